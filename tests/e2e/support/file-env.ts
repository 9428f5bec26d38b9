import { createHash } from 'node:crypto';
import { basename } from 'node:path';
import { inject } from 'vitest';
import type { StackEnv } from './global-setup.js';
import { cloneDatabase, databaseUrl, dropDatabase, SERVICES, templateDatabase } from './private-databases.js';
import { type PrivateNatsOptions, startPrivateNats } from './private-nats.js';

/** PostgreSQL cuts names at 63 bytes; `tmt_<run>_` and `_<service>` take up to 30 of them. */
const MAX_LABEL = 28;

/** `control-api-keys.test.ts` → `control_api_keys`; a longer name is cut and made unique with a hash. */
export function fileLabel(filepath: string): string {
  const label = basename(filepath)
    .replace(/\.test\.ts$/, '')
    .replace(/[^a-z0-9]+/gi, '_')
    .toLowerCase();
  if (label.length <= MAX_LABEL) return label;
  const hash = createHash('sha1').update(filepath).digest('hex').slice(0, 4);
  return `${label.slice(0, MAX_LABEL - 5)}_${hash}`;
}

/**
 * One e2e file's own databases and nats-server, so files can run at the same time: a database per
 * service cloned from the run's migrated templates (`tmt_<run>_<file>_<service>`), and a private
 * JetStream server, because the services' durable consumers have fixed names (two stacks on one
 * server would take each other's messages). About a second to open on a quiet machine.
 */
export async function openFileEnv(
  filepath: string,
  natsOptions: PrivateNatsOptions = {},
): Promise<{ env: StackEnv; close: () => Promise<void> }> {
  const runId = inject('runId');
  const label = fileLabel(filepath);
  const names = Object.fromEntries(SERVICES.map((s) => [s, `tmt_${runId}_${label}_${s}`])) as Record<
    (typeof SERVICES)[number],
    string
  >;
  const created: string[] = [];
  const nats = await startPrivateNats(natsOptions);
  const close = async () => {
    await nats.stop();
    await Promise.all(created.map((name) => dropDatabase(name)));
  };
  try {
    await Promise.all(
      SERVICES.map(async (service) => {
        await cloneDatabase(names[service], templateDatabase(runId, service));
        created.push(names[service]);
      }),
    );
  } catch (err) {
    await close();
    throw err;
  }
  return {
    env: {
      natsUrl: nats.url,
      natsMonitorUrl: nats.monitorUrl,
      memoryDbUrl: databaseUrl(names.memory),
      gatewayDbUrl: databaseUrl(names.gateway),
      billingDbUrl: databaseUrl(names.billing),
      telemetryDbUrl: databaseUrl(names.telemetry),
      templateDbUrl: databaseUrl(names.template),
      webhooksDbUrl: databaseUrl(names.webhooks),
    },
    close,
  };
}
