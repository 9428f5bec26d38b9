import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

type Release = { health?: { status?: string }; schema_versions?: Record<string, string | null> };

/** Every service has answered: health `ok`, and each database's migration known where the record says them (the operator view). */
const complete = (r: Release) =>
  r.health?.status === 'ok' && Object.values(r.schema_versions ?? {}).every((v) => v !== null);

/**
 * Keep the stack's release record (the spec: deployment, contract and schema versions, capability
 * manifest and health) as `<dataDir>/releases/<start time>.json`: what the gateway's
 * `GET /api/v1/infrastructure/release` answers without a credential (its public view) once the stack is up. Health turns 200 as soon as what
 * writes need answers, so the optional services may not have yet: the record is asked again for up to
 * `settleMs` until every service is in it, and written as it is then. Returns the file written.
 */
export async function writeReleaseRecord(
  baseUrl: string,
  dataDir: string,
  { now = new Date(), settleMs = 15_000 }: { now?: Date; settleMs?: number } = {},
): Promise<string> {
  const deadline = Date.now() + settleMs;
  let record: Release;
  for (;;) {
    const response = await fetch(`${baseUrl}/api/v1/infrastructure/release`);
    if (!response.ok) throw new Error(`the release route answered ${response.status}`);
    record = (await response.json()) as Release;
    if (complete(record) || Date.now() > deadline) break;
    await sleep(250);
  }
  const folder = join(dataDir, 'releases');
  await mkdir(folder, { recursive: true });
  // Colons are not allowed in Windows file names; dashes sort the same.
  const file = join(folder, `${now.toISOString().replaceAll(':', '-')}.json`);
  await writeFile(file, `${JSON.stringify(record, null, 2)}\n`, { flag: 'wx' });
  return file;
}
