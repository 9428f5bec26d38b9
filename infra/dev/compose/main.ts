// `npm run compose -- up | down | check` (infra/dev/run.mjs): docker-compose.yml built and run for real.
// Where Docker can pull images, `docker compose` runs the file as it is. Where it cannot (no daemon, no
// registry: these machines), the base images are built locally (local-bases.ts) and Podman runs the
// same file with a generated override that points it at them (override-file.ts), with this machine's
// Podman settings from infra/compose/containers.conf.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readComposeFile } from './compose-file.js';
import { ensureTools } from './ensure-tools.js';
import { ensureLocalBases } from './local-bases.js';
import { builtImage, renderOverride } from './override-file.js';
import { podman, root, workDir } from './podman.js';
import { PodmanStack, seconds } from './podman-stack.js';
import { stackPorts, stackSecrets } from './stack-env.js';
import { walkthrough } from './walkthrough.js';

const PROJECT = 'textmemory';
const say = (line: string) => console.error(`› ${line}`);

/** One step of a command: its name and duration on success; on failure the error, and the run stops. */
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

async function podmanStack(): Promise<{ stack: PodmanStack; ports: Record<string, string> }> {
  await step('finding or installing podman, runc, podman-compose and mmdebstrap', ensureTools);
  const bases = await step('base images (built once, then cached)', () => ensureLocalBases(say));
  const compose = readComposeFile(root);
  const node = bases.find((base) => base.image.name === 'node');
  if (!node) throw new Error('no node base image');
  const replacements = Object.fromEntries(bases.map((base) => [base.image.standsInFor, base.tag]));
  const overrideFile = join(workDir, 'override.yml');
  writeFileSync(overrideFile, renderOverride(compose, { node: node.tag, replacements }, PROJECT));
  const ports = await stackPorts(process.env);
  const env = { ...stackSecrets(join(workDir, 'secrets.json'), process.env), ...ports };
  return { stack: new PodmanStack(compose, PROJECT, overrideFile, env), ports };
}

async function imageSizes(services: string[]) {
  for (const service of services) {
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

async function check() {
  const started = Date.now();
  const { stack, ports } = await podmanStack();
  const compose = readComposeFile(root);
  const built = Object.keys(compose.services).filter((name) => compose.services[name]?.build);
  let failed = false;
  try {
    for (const service of built) {
      await step(`build ${service} (the one Dockerfile, SERVICE=${service})`, () => stack.build(service));
    }
    await imageSizes(built);
    await step('up, each service after what it depends on, until healthy', () => stack.up(say));
    const base = `http://127.0.0.1:${ports.GATEWAY_PORT}`;
    const bootstrap = await step(
      'bootstrap a tenant and API key (admin bootstrap in the gateway container)',
      () =>
        stack.exec(
          'gateway',
          ['node', '--conditions=@tm/compiled', 'dist/admin/cli.js', 'bootstrap', '--json'],
          '/app/services/gateway',
        ),
    );
    const apiKey = (JSON.parse(bootstrap.trim().split('\n').at(-1) ?? '{}') as { api_key?: string }).api_key;
    if (!apiKey) throw new Error('admin bootstrap printed no api_key');
    for (const request of walkthrough(base, apiKey)) await step(request.name, request.run);
  } catch {
    failed = true;
  } finally {
    // Whatever happened, nothing is left running: containers, network and volumes go.
    await step('down -v', () => stack.down()).catch(() => {
      failed = true;
    });
  }
  console.error(
    `${failed ? '✗ compose check failed' : '✓ compose check passed'} (${seconds(started)} in all)`,
  );
  process.exit(failed ? 1 : 0);
}

const [command] = process.argv.slice(2);
try {
  if (command === 'check') await check();
  else if (command === 'up') {
    const { stack, ports } = await podmanStack();
    const compose = readComposeFile(root);
    const built = Object.keys(compose.services).filter((name) => compose.services[name]?.build);
    for (const service of built) await step(`build ${service}`, () => stack.build(service));
    await step('up', () => stack.up(say));
    say(`gateway on http://127.0.0.1:${ports.GATEWAY_PORT} (published ports: ${JSON.stringify(ports)})`);
    say(
      'a tenant and API key: podman exec -w /app/services/gateway textmemory_gateway_1 node --conditions=@tm/compiled dist/admin/cli.js bootstrap --json',
    );
  } else if (command === 'down') {
    const { stack } = await podmanStack();
    await step('down -v', () => stack.down());
  } else {
    console.error('usage: npm run compose -- up | down | check');
    process.exit(2);
  }
} catch {
  process.exit(1);
}
