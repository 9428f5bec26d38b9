import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * A development stack's secret (GATEWAY_SECRET_KEY: sessions and storage secrets; IMPORT_SECRET_KEY:
 * hub tokens of running imports; WEBHOOKS_SECRET_KEY: webhook signing secrets), made once and kept in
 * .data (never committed), so what it signs or seals survives a restart. The variable, when set in the environment, wins.
 */
export async function devSecret(
  dataDir: string,
  variable: 'GATEWAY_SECRET_KEY' | 'IMPORT_SECRET_KEY' | 'WEBHOOKS_SECRET_KEY',
  env: NodeJS.ProcessEnv,
): Promise<string> {
  const given = env[variable];
  if (given) return given;
  const file = join(dataDir, `${variable.toLowerCase().replace(/_key$/, '').replaceAll('_', '-')}.key`);
  if (existsSync(file)) return (await readFile(file, 'utf8')).trim();
  const secret = randomBytes(48).toString('base64url');
  await writeFile(file, `${secret}\n`, { mode: 0o600 });
  return secret;
}
