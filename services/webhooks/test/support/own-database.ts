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
 * A copy of the run's migrated webhooks database for one test file: a dispatcher takes every due
 * delivery it finds, so two files sharing a database sent, leased and settled each other's.
 */
export function ownDatabase(label: string) {
  const database = `tmt_${inject('runId')}_${label}_${randomBytes(3).toString('hex')}`;
  return {
    open: async () => {
      await cloneDatabase(database, templateDatabase(inject('runId'), 'webhooks'));
      initPrisma(databaseUrl(database), 2);
    },
    close: async () => {
      await closePrisma();
      await dropDatabase(database);
    },
  };
}
