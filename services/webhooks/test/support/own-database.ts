import { ownDatabase as ownServiceDatabase } from '../../../../tests/e2e/support/own-database.js';
import { closePrisma, initPrisma } from '../../src/data-access/prisma-client.js';

/**
 * A webhooks database of the test file's own: a dispatcher takes every due delivery it finds, so two
 * files sharing a database sent, leased and settled each other's.
 */
export const ownDatabase = (label: string) =>
  ownServiceDatabase('webhooks', label, { open: (url) => initPrisma(url, 2), close: closePrisma });
