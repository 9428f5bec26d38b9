import { randomBytes } from 'node:crypto';
import type { TestProject } from 'vitest/node';
import { assertNoCredentialsLogged, type LogCapture, openLogCapture } from './credential-leak-check.js';
import { createDatabase, databaseUrl, dropDatabase, migrate, type Service } from './private-databases.js';
import { startPrivateNats } from './private-nats.js';

export interface StackEnv {
  natsUrl: string;
  memoryDbUrl: string;
  gatewayDbUrl: string;
  billingDbUrl: string;
  telemetryDbUrl: string;
  templateDbUrl: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    stack: StackEnv;
    logCapture: LogCapture;
  }
}

/**
 * One private nats-server and one freshly migrated database per service for this run, so the
 * suite can run twice in a row, or beside a running dev stack, without either seeing the other.
 * After the last file, the run fails if any log line holds a credential (credential-leak-check.ts).
 */
export default async function setup(project: TestProject) {
  const runId = `${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  const names = {
    memory: `tmt_${runId}_memory`,
    billing: `tmt_${runId}_billing`,
    telemetry: `tmt_${runId}_telemetry`,
    template: `tmt_${runId}_template`,
    gateway: `tmt_${runId}_gateway`,
  };
  const nats = await startPrivateNats();
  const logCapture = await openLogCapture();
  const created: string[] = [];
  const teardown = async () => {
    await nats.stop();
    for (const name of created) await dropDatabase(name);
  };
  try {
    // In parallel: each `prisma migrate deploy` idles ~10 s on an engine timer before exiting.
    await Promise.all(
      (Object.entries(names) as Array<[Service, string]>).map(async ([service, name]) => {
        await createDatabase(name);
        created.push(name);
        await migrate(service, databaseUrl(name));
      }),
    );
  } catch (err) {
    await teardown();
    throw err;
  }
  project.provide('stack', {
    natsUrl: nats.url,
    memoryDbUrl: databaseUrl(names.memory),
    gatewayDbUrl: databaseUrl(names.gateway),
    billingDbUrl: databaseUrl(names.billing),
    telemetryDbUrl: databaseUrl(names.telemetry),
    templateDbUrl: databaseUrl(names.template),
  });
  project.provide('logCapture', logCapture);
  return async () => {
    await teardown();
    // A throw here fails the whole `vitest run` (exit code 1, printed after the summary).
    await assertNoCredentialsLogged(logCapture);
  };
}
