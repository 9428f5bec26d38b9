import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Keep the stack's release record (the spec: deployment, contract and schema versions, capability
 * manifest and health) as `<dataDir>/releases/<start time>.json`: the gateway's
 * `GET /api/v1/infrastructure/release` as it answered once the stack was healthy, so every start
 * leaves what it ran behind. Returns the file written.
 */
export async function writeReleaseRecord(
  baseUrl: string,
  dataDir: string,
  now = new Date(),
): Promise<string> {
  const response = await fetch(`${baseUrl}/api/v1/infrastructure/release`);
  if (!response.ok) throw new Error(`the release route answered ${response.status}`);
  const record: unknown = await response.json();
  const folder = join(dataDir, 'releases');
  await mkdir(folder, { recursive: true });
  // Colons are not allowed in Windows file names, and sort the same as dashes here.
  const file = join(folder, `${now.toISOString().replaceAll(':', '-')}.json`);
  await writeFile(file, `${JSON.stringify(record, null, 2)}\n`, { flag: 'wx' });
  return file;
}
