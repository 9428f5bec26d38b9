import { ownDatabase as ownServiceDatabase } from '../../../../tests/e2e/support/own-database.js';
import { closePrisma, initPrisma } from '../../src/data-access/prisma-client.js';

/**
 * A billing database of the test file's own: no relay runs in a unit run to take the charge.voided rows
 * a void leaves in the outbox, so they and the file's charges go when it is dropped, and a file that
 * counts outbox rows or a tenant's ledger sees only what it wrote.
 */
export const ownDatabase = (label: string) =>
  ownServiceDatabase('billing', label, { open: (url) => initPrisma(url, 2), close: closePrisma });
