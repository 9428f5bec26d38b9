// `npm run compose -- up | down [-v] | bootstrap | bench | check` (infra/dev/run.mjs): docker-compose.yml built and run for real.
// Where Docker can pull images, `docker compose` runs the file as it is (docker-stack.ts). Where it
// cannot (no daemon, no registry: these machines), the base images are built locally (local-bases.ts)
// and Podman runs the same file with a generated override that points it at them (override-file.ts),
// with this machine's Podman settings from infra/compose/containers.conf (podman-stack.ts).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readComposeFile } from './compose-file.js';
import { DockerStack } from './docker-stack.js';
import { ensureTools } from './ensure-tools.js';
import { ensureLocalBases } from './local-bases.js';
import { builtImage, renderOverride } from './override-file.js';
import { podman, root, workDir } from './podman.js';
import { PodmanStack, seconds } from './podman-stack.js';
import { killReplicaUnderLoad, type ScaleOutTarget, spreadOverReplicas } from './scale-out.js';
import { type BootstrappedTenant, sdkSmokeTest } from './sdk-smoke.js';
import { stackPorts, stackSecrets } from './stack-env.js';
import { walkthrough } from './walkthrough.js';

// As docker compose reads it: two stacks (two checkouts) run side by side under different names.
const PROJECT = process.env.COMPOSE_PROJECT_NAME || 'textmemory';
// `check` runs a stack of its own, so it never touches the data of one brought `up`, and it can clear
// what an interrupted check left behind before it starts.
const CHECK_PROJECT = `${PROJECT}-check`;
const say = (line: string) => console.error(`› ${line}`);

type Stack = Pick<
  PodmanStack,
  | 'build'
  | 'removeBuildLeftovers'
  | 'up'
  | 'down'
  | 'exec'
  | 'scale'
  | 'replicas'
  | 'kill'
  | 'pause'
  | 'address'
  | 'port'
>;

/** One step: its name and duration on success; on failure the error, and the caller stops. */
async function step<T>(name: string, action: () => Promise<T>): Promise<T> {
  const started = Date.now();
  say(`${name}...`);
  try {
    const result = await action();
    console.error(`✓ ${name} (${seconds(started)})`);
    return result;
  } catch (err) {
    console.error(`✗ ${name} (${seconds(started)}): ${err instanceof Error ? err.message : String(err)}`);
    throw err;
  }
}

const compose = readComposeFile(root);
const built = Object.keys(compose.services).filter((name) => compose.services[name]?.build);

async function openStack(
  project = PROJECT,
): Promise<{ stack: Stack; ports: Record<string, string>; local: boolean; project: string }> {
  const ports = await stackPorts(process.env);
  const env = { ...stackSecrets(join(workDir, 'secrets.json'), process.env), ...ports };
  if (await DockerStack.available())
    return { stack: new DockerStack(project, env), ports, local: false, project };
  await step('podman, runc, podman-compose and mmdebstrap (found, or installed)', ensureTools);
  const bases = await step('base images (built once, then cached)', () => ensureLocalBases(say));
  const entries = (args: boolean) =>
    Object.fromEntries(
      bases
        .filter((base) => Boolean(base.image.buildArg) === args)
        .map((base) => [base.image.buildArg ?? base.image.standsInFor, base.tag]),
    );
  const overrideFile = join(workDir, `${project}.override.yml`);
  writeFileSync(
    overrideFile,
    renderOverride(compose, { buildArgs: entries(true), replacements: entries(false) }, project),
  );
  return { stack: new PodmanStack(compose, project, overrideFile, env), ports, local: true, project };
}

async function imageSizes(project: string) {
  for (const service of built) {
    const { stdout } = await podman([
      'image',
      'inspect',
      '--format',
      '{{.Size}}',
      builtImage(project, service),
    ]);
    say(`image ${builtImage(project, service)}: ${(Number(stdout.trim()) / 1e6).toFixed(0)} MB`);
  }
}

type Opened = Awaited<ReturnType<typeof openStack>>;

async function buildAndUp({ stack, local, project }: Opened) {
  for (const service of built) {
    await step(`build ${service} (the one Dockerfile, SERVICE=${service})`, () => stack.build(service));
  }
  // After every build, not after each: the services share the layers from `COPY . .` on while they build.
  await step('remove the build stages and replaced images (dangling, labelled by the Dockerfile)', async () =>
    say(await stack.removeBuildLeftovers()),
  );
  if (local) await imageSizes(project);
  await step('up, each service after what it depends on, until healthy', () => stack.up(say));
}

const BOOTSTRAP = ['node', '--conditions=@tm/compiled', 'dist/admin/cli.js', 'bootstrap', '--json'];
const bootstrap = (stack: Stack, args: string[] = []) =>
  stack.exec('gateway', [...BOOTSTRAP, ...args], '/app/services/gateway');

/** A new tenant whose owner can log in, from the gateway container's admin command. */
async function newTenant(stack: Stack, email: string): Promise<BootstrappedTenant> {
  const printed = await bootstrap(stack, ['--email', email]);
  const tenant = JSON.parse(printed.trim().split('\n').at(-1) ?? '{}') as Partial<BootstrappedTenant>;
  if (!tenant.api_key || !tenant.owner_password) throw new Error('admin bootstrap printed no api_key');
  return tenant as BootstrappedTenant;
}

async function check(): Promise<boolean> {
  const started = Date.now();
  const opened = await openStack(CHECK_PROJECT);
  const { stack, ports } = opened;
  const baseUrl = `http://127.0.0.1:${ports.GATEWAY_PORT}`;
  const target: ScaleOutTarget = {
    stack,
    baseUrl,
    natsMonitorUrl: `http://127.0.0.1:${ports.NATS_MONITOR_PORT}`,
  };
  let passed = true;
  try {
    await step('down -v of what an interrupted check left, if anything', () => stack.down());
    await buildAndUp(opened);
    const tenant = await step(
      'admin bootstrap in the gateway container (a tenant, its owner, an API key)',
      () => newTenant(stack, 'owner@compose-check.example'),
    );
    for (const request of walkthrough(baseUrl, tenant.api_key)) {
      await step(request.name, request.run);
    }
    await step('SDK: owner login, operator token, smoke test', async () =>
      say(await sdkSmokeTest(baseUrl, tenant)),
    );
    await step('scale memory to 3 replicas; writes spread over them', async () =>
      say(await spreadOverReplicas(target, tenant.api_key)),
    );
    const second = await step('a second tenant for the crash', () =>
      newTenant(stack, 'failover@compose-check.example'),
    );
    await step(
      'kill -9 one memory replica holding writes, under a write load; nothing lost or doubled',
      async () => say(await killReplicaUnderLoad(target, second.api_key)),
    );
  } catch {
    passed = false;
  } finally {
    // Pass or fail, nothing is left behind: containers, network and volumes go.
    await step('down -v', () => stack.down()).catch(() => {
      passed = false;
    });
  }
  console.error(
    `${passed ? '✓ compose check passed' : '✗ compose check failed'} (${seconds(started)} in all)`,
  );
  return passed;
}

const [command] = process.argv.slice(2);
try {
  if (command === 'check') {
    process.exit((await check()) ? 0 : 1);
  } else if (command === 'up') {
    const opened = await openStack();
    await buildAndUp(opened);
    const { ports } = opened;
    say(`gateway on http://127.0.0.1:${ports.GATEWAY_PORT}; published ports ${JSON.stringify(ports)}`);
    say('a tenant and API key: npm run compose -- bootstrap');
  } else if (command === 'bootstrap') {
    // The gateway's `admin bootstrap --json` in its running container: the new API key, on stdout only.
    const { stack } = await openStack();
    process.stdout.write(await bootstrap(stack));
  } else if (command === 'bench') {
    // `npm run bench` against the running containers: their gateway, a new tenant of theirs, and their
    // PostgreSQL for the baseline's database and the direct seeding (tests/load/bench-options.ts).
    const { stack } = await openStack();
    const tenant = await newTenant(stack, `bench-${Date.now()}@compose-check.example`);
    const env = {
      ...process.env,
      BENCH_URL: `http://${await stack.port('gateway', 8080)}`,
      BENCH_API_KEY: tenant.api_key,
      BENCH_PG_URL: `postgresql://postgres@${await stack.port('postgres', 5432)}/postgres`,
    };
    say(`bench against ${env.BENCH_URL} (PostgreSQL ${env.BENCH_PG_URL})`);
    const bench = spawn(
      process.execPath,
      [join(root, 'infra/dev/run.mjs'), 'bench', ...process.argv.slice(3)],
      {
        env,
        stdio: 'inherit',
      },
    );
    const [code] = (await once(bench, 'exit')) as [number | null];
    process.exit(code ?? 1);
  } else if (command === 'down') {
    // Like `docker compose down`: the data volumes stay unless -v is given.
    const volumes = process.argv.slice(3).includes('-v');
    const { stack } = await openStack();
    await step(volumes ? 'down -v' : 'down', () => stack.down(volumes));
  } else {
    console.error('usage: npm run compose -- up | down [-v] | bootstrap | bench [bench options] | check');
    process.exit(2);
  }
} catch {
  process.exit(1);
}
