import type { Prisma } from '../../data-access/generated/client.js';

/**
 * What counts against a tenant's imports in flight (IMPORT_MAX_CONCURRENT_PER_TENANT), each kind
 * counted apart with the same limit: the phases in which the service reads a source for the tenant.
 * - an upload while it is received or read (`uploading`): memory and CPU here;
 * - a dataset import while the hub is asked for its metadata (`resolving`, the create request) and
 *   while its rows are read from the hub (`processing`): calls to the hub, page after page.
 * An `estimated` job waiting to be started costs neither (and expires, expire-unstarted-imports.ts).
 * Apart, not shared: a dataset import can read for an hour, and must not block a tenant's uploads.
 */

/** An `uploading` or `resolving` job older than this was abandoned (its process stopped) and no longer counts. */
export const IN_FLIGHT_WINDOW_MS = 15 * 60_000;

export function uploadsInFlight(now = Date.now()): Prisma.ImportJobWhereInput {
  return { state: 'uploading', createdAt: { gt: new Date(now - IN_FLIGHT_WINDOW_MS) } };
}

export function datasetImportsInFlight(now = Date.now()): Prisma.ImportJobWhereInput {
  return {
    datasetId: { not: null },
    OR: [
      { state: 'processing' },
      { state: 'resolving', createdAt: { gt: new Date(now - IN_FLIGHT_WINDOW_MS) } },
    ],
  };
}
