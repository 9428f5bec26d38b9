import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import {
  cloneDatabase,
  databaseUrl,
  dropDatabase,
  templateDatabase,
} from '../../../../tests/e2e/support/private-databases.js';
import { closePrisma, initPrisma } from '../../src/data-access/prisma-client.js';

/**
 * A copy of the run's migrated telemetry database for one test file: deployment-wide signals count
 * every dead letter and drop report in a window, whoever stored them, and the anomaly watch's tests
 * judge every tenant with requests in the last minutes, so files that store such rows keep to their own.
 */
export function ownDatabase(label: string) {
  const database = `tmt_${inject('runId')}_${label}_${randomBytes(3).toString('hex')}`;
  return {
    open: async () => {
      await cloneDatabase(database, templateDatabase(inject('runId'), 'telemetry'));
      initPrisma(databaseUrl(database), 2);
    },
    close: async () => {
      await closePrisma();
      await dropDatabase(database);
    },
  };
}
