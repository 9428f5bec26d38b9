#!/usr/bin/env node
// `npm start | test | bench | faults | fairness | admin | compose | pack` on a fresh clone, with Node alone: this file runs before any install,
// so it uses nothing but Node's built-ins. It installs and generates only what is stale, then runs the
// command from the workspace.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, utimesSync } from 'node:fs';
import { constants } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
// TypeScript entry points run in node itself with tsx's loader. Neither `pnpm exec` nor the tsx CLI sits
// in between: on Ctrl+C pnpm exits without waiting for its child, and the tsx CLI SIGKILLs a child that
// does not acknowledge the signal within 30 ms; either would cut the launcher's ordered shutdown short.
const tsx = (file) => [process.execPath, '--import', 'tsx', file];
const COMMANDS = {
  // `start --compiled` (npm run start:prod) builds first and runs the services from dist/ (launch.ts).
  start: tsx('infra/dev/launch.ts'),
  test: [binary(root, 'vitest'), 'run'],
  bench: tsx('tests/load/bench.ts'),
  // The fault suite: its own PostgreSQL, nats-server and service processes (docs/operations.md#fault-suite).
  faults: tsx('tests/e2e/faults/run-faults.ts'),
  // The fairness suite: one tenant's load beside another's pressure, on the fault suite's stack
  // (docs/operations.md#fairness-suite).
  fairness: tsx('tests/e2e/fairness/run-fairness.ts'),
  admin: tsx('services/gateway/src/admin/cli.ts'),
  // docker-compose.yml built and run in containers: up, down, or check (infra/dev/compose/main.ts).
  compose: tsx('infra/dev/compose/main.ts'),
  pack: null, // below: build and pack the client packages, and the Python SDK's wheel and sdist
  build: null, // below: compile the services and their libraries into dist/
};

const [command, ...extraArgs] = process.argv.slice(2);
if (!Object.hasOwn(COMMANDS, command ?? '')) {
  console.error(`usage: node infra/dev/run.mjs <${Object.keys(COMMANDS).join('|')}> [args...]`);
  process.exit(2);
}
const installed = installIfStale();
generatePrismaClients(installed);
if (command === 'test') {
  // The tests run TypeScript without compiling it; type errors, lint and import cycles must fail the
  // run too. `npm run lint` is biome, madge and redocly (package.json); side by side with tsc, so on two cores
  // the step takes about as long as tsc alone.
  // The dependency audit (infra/dev/dependency-audit.ts, docs/security.md) runs beside them: a known
  // advisory at or above high fails the run; its own lines always show, so a skipped audit is seen.
  say(
    'type-checking (tsc), linting (npm run lint: biome, madge, redocly), auditing dependencies, finding Chromium, Python and Patroni...',
  );
  await Promise.all([
    checkQuietly(binary(root, 'tsc'), ['-p', 'tsconfig.json']),
    checkQuietly(binary(root, 'tsc'), ['-p', 'libs/clients/console/tsconfig.json']),
    // The k6 scripts, against @types/k6: k6 cannot be installed here (docs/benchmarks.md, "k6").
    checkQuietly(binary(root, 'tsc'), ['-p', 'tests/load/k6/tsconfig.json']),
    checkQuietly(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['run', '--silent', 'lint']),
    checkQuietly(process.execPath, tsx('infra/dev/dependency-audit.ts').slice(1), { echo: true }),
    // The console's browser tests drive a real Chromium, the Python SDK's tests need Python with
    // pytest, httpx, mypy and pyflakes, and the fault suite's failover row Patroni, etcd and HAProxy:
    // found or installed (infra/dev/ensure-chromium.ts, ensure-python.ts, ensure-patroni.ts), one after
    // the other, as two apt-get runs at once would fight over dpkg's lock.
    checkQuietly(process.execPath, tsx('infra/dev/ensure-chromium.ts').slice(1), { echo: true })
      .then(() => checkQuietly(process.execPath, tsx('infra/dev/ensure-python.ts').slice(1), { echo: true }))
      .then(() =>
        checkQuietly(process.execPath, tsx('infra/dev/ensure-patroni.ts').slice(1), { echo: true }),
      ),
  ]);
  buildClientPackagesIfStale();
  // tests/e2e/operations/compiled-runtime.test.ts runs dist/; built here, before the files run side by
  // side, so a fresh clone's 80 s compile does not compete with them (the test's own `tsc -b` then finds
  // it current).
  buildServices();
}
// The gateway serves the console's build at /console.
// `compose check` drives the containers with the SDK, which it imports from its build.
if (command === 'start' || command === 'build' || command === 'compose') buildClientPackagesIfStale();
if (command === 'build' || (command === 'start' && extraArgs.includes('--compiled'))) {
  buildServices();
  if (command === 'build') process.exit(0);
}
if (command === 'pack') {
  buildClientPackagesIfStale();
  packClientPackages();
  // The Python SDK (libs/clients/python): wheel and sdist beside the tarballs, by a tsx script, as it
  // finds (or apt-installs) Python's build tools the way `npm test` does (infra/dev/pack-python.ts).
  runQuietly(process.execPath, tsx('infra/dev/pack-python.ts').slice(1), root);
  say(
    `packed into ${join(root, 'dist', 'packages')}: ${readdirSync(join(root, 'dist', 'packages')).join(', ')}`,
  );
  sayInstallLines();
  process.exit(0);
}
const [file, ...args] = COMMANDS[command];
run(file, [...args, ...extraArgs]);

// Status goes to stderr: `npm run admin -- bootstrap --json` must leave stdout to the command.
function say(message) {
  console.error(`› ${message}`);
}

function mtime(file) {
  return existsSync(file) ? statSync(file).mtimeMs : 0;
}

function binary(dir, name) {
  return join(dir, 'node_modules', '.bin', name);
}

function installIfStale() {
  const marker = join(root, 'node_modules', '.modules.yaml');
  // An install leaves both with the same mtime, hence >=.
  if (mtime(marker) >= mtime(join(root, 'pnpm-lock.yaml'))) return false;
  const [pnpm, ...pnpmArgs] = findPnpm();
  say('installing dependencies (pnpm install --frozen-lockfile)...');
  runQuietly(pnpm, [...pnpmArgs, 'install', '--frozen-lockfile'], root);
  // pnpm leaves the marker alone when there was nothing to do; touch it so the next run skips this.
  const now = new Date();
  utimesSync(marker, now, now);
  return true;
}

// corepack is not dependable, so: pnpm from PATH, else the pinned version through npx.
function findPnpm() {
  const { packageManager = 'pnpm@10' } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  if (spawnSync('pnpm', ['--version'], { stdio: 'ignore' }).status === 0) return ['pnpm'];
  return ['npx', '--yes', packageManager.split('+')[0]];
}

// Generated clients are gitignored; make them after an install or when the schema is newer.
function generatePrismaClients(force) {
  const servicesDir = join(root, 'services');
  for (const name of readdirSync(servicesDir)) {
    const dir = join(servicesDir, name);
    const schema = join(dir, 'prisma', 'schema.prisma');
    if (!existsSync(schema)) continue;
    const output = readFileSync(schema, 'utf8').match(/^\s*output\s*=\s*"([^"]+)"/m)?.[1];
    const outputDir = join(dir, 'prisma', output ?? '../node_modules/.prisma/client');
    const generatedAt = existsSync(outputDir)
      ? Math.max(0, ...readdirSync(outputDir).map((entry) => mtime(join(outputDir, entry))))
      : 0;
    if (!force && generatedAt > mtime(schema)) continue;
    say(`generating the Prisma client for ${name}...`);
    runQuietly(binary(dir, 'prisma'), ['generate'], dir);
  }
}

// The client packages a user installs (the SDK first: the CLI, the MCP server and the LangChain package
// import its dist/). The tests run their built dist/ as a user would; rebuild a package only when one of
// its sources is newer.
function buildClientPackagesIfStale() {
  // name → [the file a build leaves, the command, what else it is built from]. The console bundles the
  // SDK's source with Vite, so an SDK change rebuilds it too.
  const vite = binary(join(root, 'libs', 'clients', 'console'), 'vite');
  const builds = {
    sdk: ['dist/index.js', [binary(root, 'tsc'), '-p', 'libs/clients/sdk/tsconfig.build.json'], []],
    cli: ['dist/bin.js', [binary(root, 'tsc'), '-p', 'libs/clients/cli/tsconfig.build.json'], []],
    mcp: ['dist/bin.js', [binary(root, 'tsc'), '-p', 'libs/clients/mcp/tsconfig.build.json'], []],
    langchain: [
      'dist/index.js',
      [binary(root, 'tsc'), '-p', 'libs/clients/langchain/tsconfig.build.json'],
      [],
    ],
    'ai-sdk': ['dist/index.js', [binary(root, 'tsc'), '-p', 'libs/clients/ai-sdk/tsconfig.build.json'], []],
    console: [
      'dist/index.html',
      [vite, 'build', '--logLevel', 'warn', 'libs/clients/console'],
      ['libs/clients/console/index.html', 'libs/clients/console/vite.config.ts', 'libs/clients/sdk/src'],
    ],
  };
  const newest = (path) =>
    !existsSync(path)
      ? 0
      : statSync(path).isDirectory()
        ? Math.max(0, ...readdirSync(path).map((entry) => newest(join(path, entry))))
        : mtime(path);
  for (const [name, [built, [file, ...fileArgs], inputs]] of Object.entries(builds)) {
    const dir = join(root, 'libs', 'clients', name);
    const sources = Math.max(
      ...['src', 'package.json', 'tsconfig.build.json'].map((part) => newest(join(dir, part))),
      ...inputs.map((input) => newest(join(root, input))),
    );
    if (mtime(join(dir, built)) > sources) continue;
    say(`building libs/clients/${name} (${name === 'console' ? 'vite' : 'tsc'})...`);
    runQuietly(file, fileArgs, root);
  }
}

// The compiled runtime: every service, the gateway and the @tm/* libraries into their dist/,
// generated Prisma clients included (they are TypeScript under src/). Incremental: about 1.5 s when
// nothing changed, 80 s from scratch on two busy cores.
function buildServices() {
  say('building the services and their libraries (tsc -b tsconfig.build.json)...');
  runQuietly(binary(root, 'tsc'), ['-b', 'tsconfig.build.json'], root);
}

// `npm run pack`: the tarballs a user installs, in dist/packages (the Python wheel and sdist join them). pnpm pack (not npm pack) rewrites the
// `workspace:` ranges between them into real versions. The folder is emptied first: the READMEs say
// `npm install dist/packages/*.tgz`, which would take a previous version's tarballs too.
function packClientPackages() {
  const destination = join(root, 'dist', 'packages');
  rmSync(destination, { recursive: true, force: true });
  const [pnpm, ...pnpmArgs] = findPnpm();
  for (const name of ['sdk', 'cli', 'mcp', 'ai-sdk', 'langchain', 'console']) {
    runQuietly(
      pnpm,
      [...pnpmArgs, 'pack', '--pack-destination', destination],
      join(root, 'libs', 'clients', name),
    );
  }
}

// The SDK is not on the registry either, so a tarball that depends on it (or takes it as a peer) installs
// only beside the SDK's, in the same `npm install`; alone, npm looks for the SDK on the registry and
// stops with E404. Printed with the real paths, so the line a user copies is the one that works.
function sayInstallLines() {
  const destination = join(root, 'dist', 'packages');
  const tarballs = readdirSync(destination);
  const tarball = (name) => {
    const { version } = JSON.parse(readFileSync(join(root, 'libs', 'clients', name, 'package.json'), 'utf8'));
    const file = `text-memory-${name}-${version}.tgz`;
    return tarballs.includes(file) ? join(destination, file) : undefined;
  };
  const sdk = tarball('sdk');
  if (!sdk) return;
  for (const name of ['cli', 'mcp', 'ai-sdk', 'langchain']) {
    const manifest = JSON.parse(readFileSync(join(root, 'libs', 'clients', name, 'package.json'), 'utf8'));
    const needsSdk = ['dependencies', 'peerDependencies'].some(
      (field) => manifest[field]?.['@text-memory/sdk'],
    );
    const own = tarball(name);
    if (needsSdk && own) say(`install ${manifest.name} with the SDK, in one step: npm install ${sdk} ${own}`);
  }
}

function runQuietly(file, fileArgs, cwd) {
  const result = spawnSync(file, fileArgs, { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (result.status === 0) return;
  process.stderr.write(`${result.stdout ?? ''}${result.stderr ?? ''}`);
  console.error(
    `✗ ${[file, ...fileArgs].join(' ')} failed${result.error ? `: ${result.error.message}` : ''}`,
  );
  process.exit(result.status || 1);
}

/**
 * Like runQuietly, without blocking, so checks can run side by side; the first failure ends the run.
 * `echo`: the check's stderr is shown as it comes, pass or fail (its verdict must be seen either way).
 */
function checkQuietly(file, fileArgs, { echo = false } = {}) {
  return new Promise((resolve) => {
    const child = spawn(file, fileArgs, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk) => {
      if (echo) process.stderr.write(chunk);
      else output += chunk;
    });
    const fail = (reason) => {
      process.stderr.write(output);
      console.error(`✗ ${[file, ...fileArgs].join(' ')} failed${reason}`);
      process.exit(1);
    };
    child.on('error', (err) => fail(`: ${err.message}`));
    child.on('close', (code) => (code === 0 ? resolve() : fail('')));
  });
}

function run(file, runArgs) {
  const bin = join(root, 'node_modules', '.bin');
  const child = spawn(file, runArgs, {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, PATH: `${bin}${delimiter}${process.env.PATH ?? ''}` },
  });
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
  child.on('error', (err) => {
    console.error(`✗ cannot run ${file}: ${err.message}`);
    process.exit(127);
  });
  child.on('exit', (code, signal) => process.exit(code ?? 128 + (constants.signals[signal] ?? 0)));
}
