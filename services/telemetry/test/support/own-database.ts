import { ownDatabase as ownServiceDatabase } from '../../../../tests/e2e/support/own-database.js';
import { closePrisma, initPrisma } from '../../src/data-access/prisma-client.js';

/**
 * A telemetry database of the test file's own: deployment-wide signals count every dead letter and drop
 * report in a window, whoever stored them, and the anomaly watch's tests judge every tenant with requests
 * in the last minutes, so files that store such rows keep to their own.
 */
export const ownDatabase = (label: string) =>
  ownServiceDatabase('telemetry', label, { open: (url) => initPrisma(url, 2), close: closePrisma });
