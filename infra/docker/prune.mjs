// Third build step of the one Dockerfile (runtime.sh runs it in the runtime folder): what the production
// install brings that the service never loads. Plain node, no dependencies.
//
// 1. Optional peers. The lockfile was resolved with pnpm's auto-install-peers, so @prisma/client comes with
//    its optional peers `prisma` (the CLI) and `typescript`, and their trees (~120 MB). A package is kept
//    when a workspace package's production dependencies reach it through `dependencies`,
//    `optionalDependencies` or a required peer; the rest of node_modules/.pnpm is removed.
// 2. Prisma's engines for other databases: the generated client loads the PostgreSQL query compiler only.
import { existsSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const root = process.cwd();
const store = join(root, 'node_modules', '.pnpm');
const projects = process.argv.slice(2);
const readJson = (file) => JSON.parse(readFileSync(file, 'utf8'));

/** The names a package needs at run time. */
function runtimeDependencies(manifest) {
  const optionalPeers = manifest.peerDependenciesMeta ?? {};
  const peers = Object.keys(manifest.peerDependencies ?? {}).filter((name) => !optionalPeers[name]?.optional);
  return [
    ...Object.keys(manifest.dependencies ?? {}),
    ...Object.keys(manifest.optionalDependencies ?? {}),
    ...peers,
  ];
}

/** Node's lookup from a package's real folder: its own node_modules and every parent's. */
function resolve(fromDir, name) {
  for (let dir = fromDir; dir.startsWith(root); dir = join(dir, '..')) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return realpathSync(candidate);
  }
  return undefined;
}

const kept = new Set();
// Each argument is a folder whose package is kept with what it needs: a workspace package, or an installed one.
const pending = projects.map((project) => realpathSync(join(root, project)));
const seen = new Set();
while (pending.length > 0) {
  const dir = pending.pop();
  if (seen.has(dir)) continue;
  seen.add(dir);
  if (dir.startsWith(`${store}/`)) kept.add(dir.slice(store.length + 1).split('/')[0]);
  for (const name of runtimeDependencies(readJson(join(dir, 'package.json')))) {
    const found = resolve(dir, name);
    if (found) pending.push(found);
  }
}

let removed = 0;
for (const entry of readdirSync(store)) {
  if (entry === 'node_modules' || kept.has(entry)) continue;
  rmSync(join(store, entry), { recursive: true, force: true });
  removed += 1;
}

const prismaRuntimes = readdirSync(store)
  .filter((entry) => entry.startsWith('@prisma+client@'))
  .map((entry) => join(store, entry, 'node_modules', '@prisma', 'client', 'runtime'));
for (const runtime of prismaRuntimes.filter((dir) => existsSync(dir))) {
  for (const file of readdirSync(runtime)) {
    const engine = /^query_(engine|compiler)_bg\./.test(file);
    if (engine && !file.startsWith('query_compiler_bg.postgresql.'))
      rmSync(join(runtime, file), { force: true });
  }
}
console.log(`pruned ${removed} packages nothing here loads`);
