import { randomBytes } from 'node:crypto';
import type { TestProject } from 'vitest/node';
import { assertNoCredentialsLogged, type LogCapture, openLogCapture } from './credential-leak-check.js';
import {
  cloneDatabase,
  createDatabase,
  databasesStartingWith,
  databaseUrl,
  dropDatabase,
  migrate,
  SERVICES,
  type Service,
  templateDatabase,
} from './private-databases.js';
import { startPrivateNats } from './private-nats.js';

export interface StackEnv {
  natsUrl: string;
  /** The nats-server's monitoring endpoint (`/connz`, `/jsz`), for tests that count per connection. */
  natsMonitorUrl: string;
  memoryDbUrl: string;
  gatewayDbUrl: string;
  billingDbUrl: string;
  telemetryDbUrl: string;
  templateDbUrl: string;
  webhooksDbUrl: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** The shared set below, for the unit tests of libs and services that need a database or NATS. */
    stack: StackEnv;
    /** Names this run's databases (`tmt_<runId>_…`); e2e files clone theirs from its templates (file-env.ts). */
    runId: string;
    logCapture: LogCapture;
  }
}

/**
 * Migrates one template database per service (`tmt_<run>_template_<service>`), once per run; every
 * database of the run is a copy of one (`CREATE DATABASE … TEMPLATE …`). Each e2e file clones its
 * own set and starts its own nats-server in `useStack()` (file-env.ts), so files can run at once.
 * Unit tests share one more set (`tmt_<run>_shared_<service>`) and one private nats-server, read
 * with `inject('stack')`. The run's databases are dropped at the end, whatever a file left behind;
 * the suite can run twice in a row, or beside a running dev stack, without either seeing the other.
 * After the last file, the run fails if any log line holds a credential (credential-leak-check.ts).
 */
export default async function setup(project: TestProject) {
  const runId = `${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  const shared = (service: Service) => `tmt_${runId}_shared_${service}`;
  const nats = await startPrivateNats();
  const logCapture = await openLogCapture();
  const teardown = async () => {
    await nats.stop();
    // Clones first: a template with a copy in progress cannot be dropped.
    const left = await databasesStartingWith(`tmt_${runId}_`);
    const templates = new Set(SERVICES.map((s) => templateDatabase(runId, s)));
    await Promise.all(left.filter((name) => !templates.has(name)).map((name) => dropDatabase(name)));
    await Promise.all(left.filter((name) => templates.has(name)).map((name) => dropDatabase(name)));
  };
  try {
    // In parallel: each `prisma migrate deploy` idles ~10 s on an engine timer before exiting.
    await Promise.all(
      SERVICES.map(async (service) => {
        const template = templateDatabase(runId, service);
        await createDatabase(template);
        await migrate(service, databaseUrl(template));
        await cloneDatabase(shared(service), template);
      }),
    );
  } catch (err) {
    await teardown();
    throw err;
  }
  project.provide('stack', {
    natsUrl: nats.url,
    natsMonitorUrl: nats.monitorUrl,
    memoryDbUrl: databaseUrl(shared('memory')),
    gatewayDbUrl: databaseUrl(shared('gateway')),
    billingDbUrl: databaseUrl(shared('billing')),
    telemetryDbUrl: databaseUrl(shared('telemetry')),
    templateDbUrl: databaseUrl(shared('template')),
    webhooksDbUrl: databaseUrl(shared('webhooks')),
  });
  project.provide('runId', runId);
  project.provide('logCapture', logCapture);
  return async () => {
    await teardown();
    // A throw here fails the whole `vitest run` (exit code 1, printed after the summary).
    await assertNoCredentialsLogged(logCapture);
  };
}
