import { hkdfSync, randomBytes } from 'node:crypto';

export interface GatewaySecrets {
  /** HMAC key for session tokens. */
  sessionSigningKey: Uint8Array;
  /** AES-256-GCM key for storage-connection secrets at rest. */
  storageSecretKey: Buffer;
  /** False when no GATEWAY_SECRET_KEY was given and a per-process key stands in. */
  persistent: boolean;
}

/**
 * One configured secret, separate keys per use (HKDF with a label each), so a key leaked from one use
 * says nothing about the other. Without a configured secret (development only, config enforces it)
 * a random one lives as long as the process.
 */
export function deriveGatewaySecrets(configured: string | undefined): GatewaySecrets {
  const master = configured ? Buffer.from(configured, 'utf8') : randomBytes(48);
  const derive = (label: string) => Buffer.from(hkdfSync('sha256', master, 'tm-gateway', label, 32));
  return {
    sessionSigningKey: new Uint8Array(derive('session-token-v1')),
    storageSecretKey: derive('storage-secret-v1'),
    persistent: configured !== undefined,
  };
}
