import { hkdfSync, randomBytes } from 'node:crypto';
import { openSecret, sealSecret } from '@tm/kit';

export interface HubTokenBox {
  /** AES-256-GCM, bound to the job: a sealed token copied to another job does not open. */
  seal: (token: string, importId: string) => string;
  /** The token, or undefined when it cannot be opened (another key, another job). */
  open: (sealed: string, importId: string) => string | undefined;
  /** False when no IMPORT_SECRET_KEY was given and a per-process key stands in. */
  persistent: boolean;
}

/**
 * Keeps a caller's hub token at rest only as ciphertext, for the background job that reads the
 * dataset's rows; the key comes from IMPORT_SECRET_KEY (HKDF with its own label) or, unset, lives as
 * long as the process.
 */
export function createHubTokenBox(configured: string | undefined): HubTokenBox {
  const master = configured ? Buffer.from(configured, 'utf8') : randomBytes(48);
  const key = Buffer.from(hkdfSync('sha256', master, 'tm-template', 'hub-token-v1', 32));
  return {
    seal: (token, importId) => sealSecret(key, token, `import:${importId}`),
    open: (sealed, importId) => {
      try {
        return openSecret(key, sealed, `import:${importId}`);
      } catch {
        return undefined;
      }
    },
    persistent: configured !== undefined,
  };
}
