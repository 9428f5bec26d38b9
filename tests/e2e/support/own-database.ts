import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import {
  cloneDatabase,
  databaseUrl,
  dropDatabase,
  type Service,
  templateDatabase,
} from './private-databases.js';

/** How a service's data access is pointed at a database and let go of. */
export interface DatabaseClient {
  open(url: string): void;
  close(): Promise<void>;
}

/**
 * A copy of the run's migrated database of `service` for one test file, for a service's unit tests whose
 * rows another file's would disturb (a dispatcher takes every due delivery it finds; deployment-wide
 * signals count every dead letter). `open` clones it and points `client` at it; `close` drops it.
 */
export function ownDatabase(service: Service, label: string, client: DatabaseClient) {
  const database = `tmt_${inject('runId')}_${label}_${randomBytes(3).toString('hex')}`;
  return {
    open: async () => {
      await cloneDatabase(database, templateDatabase(inject('runId'), service));
      client.open(databaseUrl(database));
    },
    close: async () => {
      await client.close();
      await dropDatabase(database);
    },
  };
}
