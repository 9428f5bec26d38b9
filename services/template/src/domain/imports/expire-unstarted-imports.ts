import { markUnstartedImportsExpired } from '../../data-access/import-repository.js';
import { getPrisma } from '../../data-access/prisma-client.js';
import { IN_FLIGHT_WINDOW_MS } from './in-flight-imports.js';

/**
 * An estimated import nobody starts within `ttlMs` (IMPORT_UNSTARTED_TTL_MS) expires: its state says
 * `expired`, a sealed hub token and the stored rows go, and starting it is refused. Without this a
 * dataset job never started kept the caller's hub token sealed in the database for ever. Run by a
 * periodic task (app.ts); returns how many jobs expired.
 */
export async function expireUnstartedImports(deps: { ttlMs: number }, db = getPrisma()): Promise<number> {
  const now = Date.now();
  return markUnstartedImportsExpired(db, {
    estimatedBefore: new Date(now - deps.ttlMs),
    resolvingBefore: new Date(now - IN_FLIGHT_WINDOW_MS),
  });
}
