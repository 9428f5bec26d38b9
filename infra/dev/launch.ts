/**
 * Dev launcher (`pnpm start`): PostgreSQL and NATS (the system's, or local ones it starts), databases,
 * migrations, a bootstrap tenant, then every service as its own process, restarted if it dies, until Ctrl+C.
 * See infra/README.md for how it decides what to start. With `--compiled` (`npm run start:prod`, after
 * run.mjs has built dist/) the services run from dist/ with plain node instead of tsx.
 */
import { mkdir } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { bootstrapTenantOnce } from './bootstrap-tenant.js';
import { devSecret } from './dev-secret.js';
import { readDevSettings } from './dev-settings.js';
import { acceptsConnections, prepareEmbeddedPostgres } from './embedded-postgres.js';
import { ensureDatabase } from './ensure-database.js';
import { migrateService } from './migrate-service.js';
import { findNatsServer, NATS_INSTALL_HINT, startNatsServer } from './nats-server.js';
import { printLine } from './prefixed-output.js';
import { writeReleaseRecord } from './release-record.js';
import { keepRunning } from './restarting-process.js';
import { nodeArgs, type Runtime } from './service-command.js';
import { type SupervisedProcess, startSupervised } from './supervised-process.js';
import { installPlan, NATS_SERVER, runInstallPlan, stopPackagedService, thisHost } from './system-package.js';
import { canConnect, isLoopback } from './tcp-probe.js';
import { waitFor } from './wait-for.js';

const runtime: Runtime = process.argv.includes('--compiled') ? 'compiled' : 'tsx';
const settings = readDevSettings();
const { root, dataDir, pg, nats } = settings;
const say = (message: string) => printLine('dev', message);
const shown = (file: string) => relative(process.cwd(), file) || '.';

// Children get the resolved addresses, so a PGPORT or NATS_URL override reaches every service.
const childEnv: NodeJS.ProcessEnv = {
  ...process.env,
  NATS_URL: nats.url,
  ...Object.fromEntries(settings.services.map((s) => [s.databaseVar, s.databaseUrl])),
};

/** What to stop on the way out, in start order; shutdown runs it backwards. */
const stops: Array<{ name: string; stop: () => Promise<void> }> = [];
let shuttingDown: Promise<void> | undefined;

function shutdown(exitCode: number, reason: string): Promise<void> {
  shuttingDown ??= (async () => {
    say(reason);
    for (const { name, stop } of stops.reverse()) {
      await stop().catch((err: unknown) => say(`stopping ${name} failed: ${String(err)}`));
    }
    process.exit(exitCode);
  })();
  return shuttingDown;
}

// Repeated signals (the terminal's Ctrl+C plus the one run.mjs forwards) join the same shutdown.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => void shutdown(0, `${signal}: stopping`));
}

/**
 * Run a child and restart it when it dies (restarting-process.ts): one crashed service no longer takes
 * the others down. Only a child that keeps failing fast ends the launcher, and with it the rest: a
 * launcher sitting half up would hide a service that cannot start, where exit 1 tells whoever runs it.
 */
function supervise(name: string, start: () => SupervisedProcess): void {
  const child = keepRunning(name, start);
  stops.push({ name, stop: () => child.stop() });
  void child.gaveUp.then(() => {
    if (!shuttingDown) void shutdown(1, `gave up on ${name}; stopping the rest`);
  });
}

async function ensurePostgres(): Promise<void> {
  if (await canConnect(pg.host, pg.port)) return say(`PostgreSQL: using ${pg.host}:${pg.port}`);
  if (!isLoopback(pg.host))
    throw new Error(`PostgreSQL at ${pg.host}:${pg.port} (PGHOST/PGPORT) is not reachable`);
  const pgDataDir = join(dataDir, 'postgres');
  say(
    `PostgreSQL: nothing on ${pg.host}:${pg.port}; starting embedded PostgreSQL (data in ${shown(pgDataDir)})`,
  );
  supervise('postgres', await prepareEmbeddedPostgres(pg, pgDataDir));
  await waitFor('PostgreSQL to accept connections', () => acceptsConnections(pg), { timeoutMs: 30_000 });
}

async function ensureNats(): Promise<void> {
  if (await canConnect(nats.host, nats.port)) return say(`NATS: using ${nats.host}:${nats.port}`);
  if (!isLoopback(nats.host))
    throw new Error(`NATS at ${nats.host}:${nats.port} (NATS_URL) is not reachable`);
  const binary = findNatsServer() ?? (await installNatsServer());
  if (!binary)
    throw new Error(
      `NATS: nothing on ${nats.host}:${nats.port} and no nats-server found.\n${NATS_INSTALL_HINT}\nor point NATS_URL at a running server with JetStream enabled.`,
    );
  const storeDir = join(dataDir, 'nats');
  say(
    `NATS: nothing on ${nats.host}:${nats.port}; starting ${binary} with JetStream (store in ${shown(storeDir)})`,
  );
  supervise('nats', () => startNatsServer(binary, nats.port, storeDir, root));
  await waitFor('nats-server to listen', () => canConnect(nats.host, nats.port), { timeoutMs: 15_000 });
}

/** Install nats-server where that needs nobody's answer (system-package.ts); undefined if it cannot. */
async function installNatsServer(): Promise<string | undefined> {
  const plan = installPlan(thisHost, NATS_SERVER);
  if (!plan) return undefined;
  say(
    `NATS: no nats-server found; installing it (${plan.steps.map((step) => step.join(' ')).join(', then ')})`,
  );
  try {
    await runInstallPlan(plan, root);
    if ((await canConnect(nats.host, nats.port)) && (await stopPackagedService(plan, root)))
      say("NATS: stopped the package's own nats-server service (no JetStream); starting one with JetStream");
  } catch (err) {
    say(`NATS: installing nats-server failed: ${err instanceof Error ? err.message : String(err)}`);
    return undefined;
  }
  return findNatsServer();
}

async function main(): Promise<void> {
  await mkdir(dataDir, { recursive: true });
  childEnv.GATEWAY_SECRET_KEY = await devSecret(dataDir, 'GATEWAY_SECRET_KEY', process.env);
  childEnv.IMPORT_SECRET_KEY = await devSecret(dataDir, 'IMPORT_SECRET_KEY', process.env);
  childEnv.WEBHOOKS_SECRET_KEY = await devSecret(dataDir, 'WEBHOOKS_SECRET_KEY', process.env);
  // A development stack delivers webhooks to a receiver on this machine too; deployments refuse loopback.
  childEnv.WEBHOOKS_ALLOW_LOOPBACK ??= 'true';
  await ensurePostgres();
  await ensureNats();

  // In parallel: a `prisma migrate deploy` that has work to do idles about 10 s before it exits.
  await Promise.all(
    settings.services.map(async (service) => {
      const database = new URL(service.databaseUrl).pathname.slice(1);
      if (await ensureDatabase(service.databaseUrl)) say(`created database ${database}`);
      const outcome = await migrateService(service, childEnv);
      say(
        `${service.name}: migrations ${outcome === 'applied' ? 'applied to' : 'up to date in'} ${database}`,
      );
    }),
  );

  const bootstrap = await bootstrapTenantOnce(root, dataDir, childEnv, runtime);
  say(
    bootstrap.created
      ? `bootstrap tenant created (${shown(bootstrap.jsonFile)})`
      : 'bootstrap tenant: reusing it',
  );

  say(`services: ${runtime === 'tsx' ? 'TypeScript through tsx' : 'compiled, from dist/ with plain node'}`);
  for (const service of settings.services) {
    supervise(service.name, () =>
      startSupervised(service.name, process.execPath, nodeArgs(runtime, service.name, 'start.ts'), {
        cwd: root,
        env: childEnv,
      }),
    );
  }

  const base = `http://127.0.0.1:${settings.gatewayPort}`;
  await waitFor(
    'the gateway health check',
    () =>
      fetch(`${base}/api/v1/infrastructure/health`).then(
        (r) => r.ok,
        () => false,
      ),
    { timeoutMs: 60_000, intervalMs: 500 },
  );
  say('ready');
  await writeReleaseRecord(base, dataDir).then(
    (file) => say(`  Release record   ${shown(file)}`),
    (err: unknown) => say(`release record not written: ${err instanceof Error ? err.message : String(err)}`),
  );
  say(`  API              ${base}/api/v1`);
  say(`  API reference    ${base}/api/v1/docs`);
  say(`  API key          ${shown(bootstrap.keyFile)}  (send as: Authorization: Bearer <key>)`);
  say(`  Owner login      owner_email / owner_password in ${shown(bootstrap.jsonFile)}`);
  say('Ctrl+C stops everything');
}

main().catch((err: unknown) => {
  if (shuttingDown) return; // a failure caused by the shutdown itself
  for (const line of (err instanceof Error ? err.message : String(err)).split('\n'))
    printLine('dev', line, process.stderr);
  void shutdown(1, 'start-up failed; stopping what was started');
});
