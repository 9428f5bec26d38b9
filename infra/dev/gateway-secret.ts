import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * The development stack's GATEWAY_SECRET_KEY, made once and kept in .data (never committed), so
 * sessions survive a restart. A GATEWAY_SECRET_KEY in the environment wins.
 */
export async function devGatewaySecret(dataDir: string, env: NodeJS.ProcessEnv): Promise<string> {
  if (env.GATEWAY_SECRET_KEY) return env.GATEWAY_SECRET_KEY;
  const file = join(dataDir, 'gateway-secret.key');
  if (existsSync(file)) return (await readFile(file, 'utf8')).trim();
  const secret = randomBytes(48).toString('base64url');
  await writeFile(file, `${secret}\n`, { mode: 0o600 });
  return secret;
}
