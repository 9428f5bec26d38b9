import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CLOSE_AFTER_DRAIN_MS, env } from '@tm/kit';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { COMPILED_CONDITION } from '../../infra/dev/service-command.js';
import { STOP_GRACE_MS } from '../../infra/dev/supervised-process.js';

// `docker compose config` needs the compose plugin, which CI machines lack: this reads the file instead.
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');

interface ComposeService {
  image?: string;
  stop_grace_period?: string;
  environment?: Record<string, unknown>;
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
