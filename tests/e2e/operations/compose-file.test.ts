import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CLOSE_AFTER_DRAIN_MS, env } from '@tm/kit';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { COMPILED_CONDITION } from '../../../infra/dev/service-command.js';
import { STOP_GRACE_MS } from '../../../infra/dev/supervised-process.js';

// `docker compose config` needs the compose plugin, which CI machines lack: this reads the file instead.
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');

interface ComposeService {
  image?: string;
  stop_grace_period?: string;
  environment?: Record<string, unknown>;
  healthcheck?: { test?: unknown };
  build?: { context?: string; dockerfile?: string; args?: Record<string, string> };
}
const compose = parse(read('docker-compose.yml'), { merge: true }) as {
  services: Record<string, ComposeService>;
};
const built = Object.entries(compose.services).filter(([, s]) => s.build !== undefined);
const serviceFolders = readdirSync(join(root, 'services')).filter((name) =>
  existsSync(join(root, 'services', name, 'package.json')),
);

describe('docker-compose.yml', () => {
  it('when a service is built, then from the one Dockerfile with a SERVICE that names a services/ folder or migrate', () => {
    expect(built.length).toBeGreaterThan(0);
    for (const [name, service] of built) {
      const { context, dockerfile, args } = service.build ?? {};
      expect({ name, context, dockerfile }).toEqual({ name, context: '.', dockerfile: 'Dockerfile' });
      const target = args?.SERVICE;
      expect(
        target === 'migrate' || (target !== undefined && serviceFolders.includes(target)),
        `${name}: SERVICE=${target}`,
      ).toBe(true);
    }
  });

  it('when the stack is built, then every folder of services/ and the migrate step have an image', () => {
    const targets = built.map(([, s]) => s.build?.args?.SERVICE).sort();

    expect(targets).toEqual([...serviceFolders, 'migrate'].sort());
  });

  it('when the Dockerfile is read, then it exists, takes SERVICE, and no per-service Dockerfile is left', () => {
    const dockerfile = read('Dockerfile');

    expect(dockerfile).toMatch(/^ARG SERVICE$/m);
    for (const script of ['infra/docker/install.sh', 'infra/docker/start.sh']) {
      expect(dockerfile).toContain(script);
      expect(existsSync(join(root, script)), script).toBe(true);
    }
    expect(serviceFolders.filter((name) => existsSync(join(root, 'services', name, 'Dockerfile')))).toEqual(
      [],
    );
    expect(existsSync(join(root, 'infra', 'migrate', 'Dockerfile'))).toBe(false);
  });

  it("when an image is built, then its runtime stage copies only the build stage's output and runs as a non-root user with a healthcheck and SIGTERM", () => {
    const instructions = read('Dockerfile')
      .replace(/\\\n\s*/g, ' ')
      .split('\n')
      .filter((line) => line.trim() !== '' && !line.trim().startsWith('#'));
    const stages = instructions.filter((line) => line.startsWith('FROM '));
    const runtime = instructions.slice(instructions.lastIndexOf(stages.at(-1) ?? ''));

    // The build stage from NODE_IMAGE, the image that ships from RUNTIME_IMAGE, both node:24-slim unless a
    // build passes others (npm run compose passes slimmer local ones); the last takes nothing but /runtime.
    expect(stages).toEqual([
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the Dockerfile's own ${NODE_IMAGE}, verbatim
      'FROM ${NODE_IMAGE} AS build',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the Dockerfile's own ${RUNTIME_IMAGE}, verbatim
      'FROM ${RUNTIME_IMAGE}',
    ]);
    expect(instructions.filter((line) => line.startsWith('ARG ') && line.includes('IMAGE'))).toEqual([
      'ARG NODE_IMAGE=node:24-slim',
      'ARG RUNTIME_IMAGE=node:24-slim',
    ]);
    expect(runtime.filter((line) => /^(COPY|ADD|RUN) /.test(line))).toEqual([
      'COPY --from=build /runtime /app',
    ]);
    expect(read('infra/docker/runtime.sh')).toMatch(/pnpm install --offline --frozen-lockfile --prod /);
    expect(runtime.filter((line) => line.startsWith('USER '))).toEqual(['USER node']);
    expect(runtime).toContain('STOPSIGNAL SIGTERM');
    expect(runtime.filter((line) => line.startsWith('HEALTHCHECK '))).toHaveLength(1);
    expect(runtime.find((line) => line.startsWith('HEALTHCHECK '))).toContain('infra/docker/healthcheck.mjs');
    // No secret is baked into an image: those are the compose file's (or the orchestrator's) to pass.
    expect(instructions.filter((line) => /^(ENV|ARG) .*(SECRET|PASSWORD|TOKEN|_KEY)/i.test(line))).toEqual(
      [],
    );
  });

  it("when the gateway's health is checked, then the compose file runs the image's own check, which asks the readiness route", () => {
    expect(compose.services.gateway?.healthcheck?.test).toEqual([
      'CMD',
      'node',
      'infra/docker/healthcheck.mjs',
    ]);
    expect(read('infra/docker/healthcheck.mjs')).toContain(`/api/v1/infrastructure/health\``);
  });

  it('when a healthcheck is an argument list, then every argument is a plain word, which survives podman-compose 1.0 joining them into a shell line unquoted', () => {
    const lists = Object.entries(compose.services)
      .map(([name, service]) => [name, service.healthcheck?.test] as const)
      .filter(([, test]) => Array.isArray(test) && test[0] === 'CMD');

    expect(lists.length).toBeGreaterThan(0);
    for (const [name, test] of lists) {
      for (const arg of (test as string[]).slice(1)) expect(arg, name).toMatch(/^[\w@%+=:,./-]+$/);
    }
  });

  it('when a service image is built and started, then it compiles the service and runs its dist/ with plain node', () => {
    const install = read('infra/docker/install.sh');
    const start = read('infra/docker/start.sh');
    const commands = (script: string) => script.split('\n').filter((line) => !line.trim().startsWith('#'));

    expect(commands(install).join('\n')).toContain(
      'pnpm exec tsc -b "services/$service/tsconfig.build.json"',
    );
    const exec = commands(start).filter((line) => line.trim().startsWith('exec '));
    expect(exec).toEqual([`exec node ${COMPILED_CONDITION} dist/start.js`]);
    expect(commands(start).join('\n')).not.toMatch(/tsx/);
    expect(read('.dockerignore').split('\n')).toContain('**/dist');
    for (const name of serviceFolders) {
      expect(existsSync(join(root, 'services', name, 'tsconfig.build.json')), name).toBe(true);
    }
  });

  it("when the migrate image starts, then every service's migrations run at once through node, with no .bin shim and no checkpoint", () => {
    const start = read('infra/docker/start.sh')
      .split('\n')
      .filter((line) => !line.trim().startsWith('#'))
      .join('\n');

    // The slim runtime base has sh and node only: pnpm's .bin shims call sed, dirname and uname.
    expect(start).toContain('(cd "$dir" && node node_modules/prisma/build/index.js migrate deploy) &');
    expect(start).not.toContain('.bin/');
    expect(start).toContain('export CHECKPOINT_DISABLE=1');
    expect(start).toContain('for pid in $pids; do wait "$pid" || failed=1; done');
  });

  it('when the gateway image is built, then it builds the console it serves at /console', () => {
    const install = read('infra/docker/install.sh');

    expect(install).toMatch(
      /if \[ "\$service" = gateway \]; then\n\s+#[^\n]*\n\s+pnpm --filter @text-memory\/console build/,
    );
  });

  it('when a service is stopped, then it has its whole drain and close before SIGKILL, as under the dev launcher', () => {
    const drainMs = env.drainTimeoutMs().parse(undefined);
    const seconds = (value: string | undefined) => Number(value?.match(/^(\d+)s$/)?.[1] ?? Number.NaN) * 1000;

    for (const [name, service] of built.filter(([, s]) =>
      serviceFolders.includes(s.build?.args?.SERVICE ?? ''),
    )) {
      expect({ name, graceMs: seconds(service.stop_grace_period) }).toEqual({ name, graceMs: STOP_GRACE_MS });
      expect(service.environment, name).toHaveProperty('DRAIN_TIMEOUT_MS');
    }
    expect(drainMs + CLOSE_AFTER_DRAIN_MS).toBeLessThan(STOP_GRACE_MS);
  });
});
