import { chmod, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { UsageError } from './exit-codes.js';

/** What `tm login` keeps between runs. The file holds secrets, so it is written with mode 0600. */
export interface StoredConfig {
  base_url?: string;
  api_key?: string;
  session_token?: string;
  /** The account the session belongs to, for `tm login` messages; not a secret. */
  email?: string;
}

export const DEFAULT_BASE_URL = 'http://127.0.0.1:8080';

export function configPath(env: NodeJS.ProcessEnv = process.env): string {
  if (env.TM_CONFIG) return env.TM_CONFIG;
  const base = env.XDG_CONFIG_HOME || join(homedir(), '.config');
  return join(base, 'text-memory', 'config.json');
}

export async function readConfig(path = configPath()): Promise<StoredConfig> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw error;
  }
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
      throw new Error('not an object');
    return parsed as StoredConfig;
  } catch {
    throw new UsageError(`The config file ${path} is not valid JSON; fix it or run \`tm logout\``);
  }
}

/**
 * Write through a temporary file created 0600 and renamed over the old one, so the secret is never
 * readable by others, not even for the moment between creating and chmod-ing a file.
 */
export async function writeConfig(config: StoredConfig, path = configPath()): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  // The mode given to writeFile is masked by the umask; set it exactly.
  await chmod(temporary, 0o600);
  await rename(temporary, path);
}

export async function removeConfig(path = configPath()): Promise<void> {
  await rm(path, { force: true });
}

export interface Credentials {
  baseUrl: string;
  apiKey: string | undefined;
  sessionToken: string | undefined;
}

/** The environment wins over the file: TM_BASE_URL, TM_API_KEY, TM_SESSION_TOKEN. */
export function resolveCredentials(config: StoredConfig, env: NodeJS.ProcessEnv = process.env): Credentials {
  return {
    baseUrl: env.TM_BASE_URL || config.base_url || DEFAULT_BASE_URL,
    apiKey: env.TM_API_KEY || config.api_key || undefined,
    sessionToken: env.TM_SESSION_TOKEN || config.session_token || undefined,
  };
}
