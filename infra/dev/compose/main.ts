// `npm run compose -- up | down [-v] | bootstrap | check` (infra/dev/run.mjs): docker-compose.yml built and run for real.
// Where Docker can pull images, `docker compose` runs the file as it is (docker-stack.ts). Where it
// cannot (no daemon, no registry: these machines), the base images are built locally (local-bases.ts)
// and Podman runs the same file with a generated override that points it at them (override-file.ts),
// with this machine's Podman settings from infra/compose/containers.conf (podman-stack.ts).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readComposeFile } from './compose-file.js';
import { DockerStack } from './docker-stack.js';
import { ensureTools } from './ensure-tools.js';
import { ensureLocalBases } from './local-bases.js';
import { builtImage, renderOverride } from './override-file.js';
import { podman, root, workDir } from './podman.js';
import { PodmanStack, seconds } from './podman-stack.js';
import { stackPorts, stackSecrets } from './stack-env.js';
import { walkthrough } from './walkthrough.js';

// As docker compose reads it: two stacks (two checkouts) run side by side under different names.
const PROJECT = process.env.COMPOSE_PROJECT_NAME || 'textmemory';
const say = (line: string) => console.error(`› ${line}`);

type Stack = Pick<PodmanStack, 'build' | 'up' | 'down' | 'exec'>;

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

async function openStack(): Promise<{ stack: Stack; ports: Record<string, string>; local: boolean }> {
  const ports = await stackPorts(process.env);
  const env = { ...stackSecrets(join(workDir, 'secrets.json'), process.env), ...ports };
  if (await DockerStack.available()) return { stack: new DockerStack(PROJECT, env), ports, local: false };
  await step('podman, runc, podman-compose and mmdebstrap (found, or installed)', ensureTools);
  const bases = await step('base images (built once, then cached)', () => ensureLocalBases(say));
  const node = bases.find((base) => base.image.name === 'node');
  if (!node) throw new Error('no node base image');
  const replacements = Object.fromEntries(bases.map((base) => [base.image.standsInFor, base.tag]));
  const overrideFile = join(workDir, 'override.yml');
  writeFileSync(overrideFile, renderOverride(compose, { node: node.tag, replacements }, PROJECT));
  return { stack: new PodmanStack(compose, PROJECT, overrideFile, env), ports, local: true };
}

async function imageSizes() {
  for (const service of built) {
    const { stdout } = await podman([
      'image',
      'inspect',
      '--format',
      '{{.Size}}',
      builtImage(PROJECT, service),
    ]);
    say(`image ${builtImage(PROJECT, service)}: ${(Number(stdout.trim()) / 1e6).toFixed(0)} MB`);
  }
}

async function buildAndUp(stack: Stack, local: boolean) {
  for (const service of built) {
    await step(`build ${service} (the one Dockerfile, SERVICE=${service})`, () => stack.build(service));
  }
  if (local) await imageSizes();
  await step('up, each service after what it depends on, until healthy', () => stack.up(say));
}

const BOOTSTRAP = ['node', '--conditions=@tm/compiled', 'dist/admin/cli.js', 'bootstrap', '--json'];
const bootstrap = (stack: Stack) => stack.exec('gateway', BOOTSTRAP, '/app/services/gateway');

async function check(): Promise<boolean> {
  const started = Date.now();
  const { stack, ports, local } = await openStack();
  let passed = true;
  try {
    await buildAndUp(stack, local);
    const created = await step('admin bootstrap in the gateway container (a tenant and API key)', () =>
      bootstrap(stack),
    );
    const apiKey = (JSON.parse(created.trim().split('\n').at(-1) ?? '{}') as { api_key?: string }).api_key;
    if (!apiKey) throw new Error('admin bootstrap printed no api_key');
    for (const request of walkthrough(`http://127.0.0.1:${ports.GATEWAY_PORT}`, apiKey)) {
      await step(request.name, request.run);
    }
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
    const { stack, ports, local } = await openStack();
    await buildAndUp(stack, local);
    say(`gateway on http://127.0.0.1:${ports.GATEWAY_PORT}; published ports ${JSON.stringify(ports)}`);
    say('a tenant and API key: npm run compose -- bootstrap');
  } else if (command === 'bootstrap') {
    // The gateway's `admin bootstrap --json` in its running container: the new API key, on stdout only.
    const { stack } = await openStack();
    process.stdout.write(await bootstrap(stack));
  } else if (command === 'down') {
    // Like `docker compose down`: the data volumes stay unless -v is given.
    const volumes = process.argv.slice(3).includes('-v');
    const { stack } = await openStack();
    await step(volumes ? 'down -v' : 'down', () => stack.down(volumes));
  } else {
    console.error('usage: npm run compose -- up | down [-v] | bootstrap | check');
    process.exit(2);
  }
} catch {
  process.exit(1);
}
