// Third build step of the one Dockerfile (runtime.sh runs it in the runtime folder): what the production
// install brings that the service never loads. Plain node, no dependencies.
//
// 1. Optional peers. The lockfile was resolved with pnpm's auto-install-peers, so @prisma/client comes with
//    its optional peers `prisma` (the CLI) and `typescript`, and their trees (~120 MB). A package is kept
//    when a workspace package's production dependencies reach it through `dependencies`,
//    `optionalDependencies` or a required peer; the rest of node_modules/.pnpm is removed.
// 2. Prisma's runtimes that nothing here loads: the generated client imports @prisma/client/runtime/client
//    and the PostgreSQL query compiler, not the library, binary, edge, React Native or WASM-engine
//    runtimes; and no engine of another database, in the client or in the CLI (the migrate image).
// 3. Files node never reads: source maps (no --enable-source-maps), type declarations, and the
//    TypeScript sources some packages ship beside their JavaScript (node does not run .ts from
//    node_modules), and READMEs and changelogs. Licences stay.
import { existsSync, readdirSync, readFileSync, realpathSync, rmSync, statSync } from 'node:fs';
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

/** Every file under `dir`, symbolic links not followed (a workspace package is walked as itself). */
function* files(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* files(path);
    else if (entry.isFile()) yield path;
  }
}

// What the services' compiled code (the generated clients in it) imports of Prisma's runtime folder:
// `client`, `index-browser`, `query_compiler_bg.postgresql.mjs`, … → the names before their first dot.
const loadedRuntimes = new Set();
for (const project of projects.filter((dir) => existsSync(join(root, dir, 'dist')))) {
  for (const file of files(join(root, project, 'dist'))) {
    if (!file.endsWith('.js')) continue;
    for (const [, name] of readFileSync(file, 'utf8').matchAll(/@prisma\/client\/runtime\/([\w.-]+)/g))
      loadedRuntimes.add(name.split('.')[0]);
  }
}

const runtimeFolders = readdirSync(store).flatMap((entry) => [
  join(store, entry, 'node_modules', '@prisma', 'client', 'runtime'),
  join(store, entry, 'node_modules', 'prisma', 'build'),
  join(store, entry, 'node_modules', 'prisma', 'prisma-client', 'runtime'),
]);
let bytes = 0;
const drop = (file) => {
  bytes += statSync(file).size;
  rmSync(file, { force: true });
};
for (const folder of runtimeFolders.filter((dir) => existsSync(dir))) {
  const isClient = folder.endsWith(join('@prisma', 'client', 'runtime'));
  for (const file of readdirSync(folder, { withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => e.name)) {
    const engine = /^query_(engine|compiler)_bg\.(\w+)\./.exec(file);
    // The client's: the PostgreSQL query compiler only (engineType "client"); the CLI's: PostgreSQL's two.
    if (engine && (engine[2] !== 'postgresql' || (isClient && engine[1] === 'engine')))
      drop(join(folder, file));
    else if (!engine && isClient && loadedRuntimes.size > 0 && !loadedRuntimes.has(file.split('.')[0]))
      drop(join(folder, file));
  }
}

const unread = /\.(map|d\.[cm]?ts)$|^(readme|changelog|history)(\.(md|markdown|txt))?$/i;
const thirdPartyTs = /\.[cm]?ts$/;
for (const file of files(store)) {
  const name = file.slice(file.lastIndexOf('/') + 1);
  if (unread.test(name) || thirdPartyTs.test(name)) drop(file);
}
for (const project of projects.filter((dir) => existsSync(join(root, dir, 'dist')))) {
  for (const file of files(join(root, project, 'dist'))) if (/\.(map|d\.ts)$/.test(file)) drop(file);
}
console.log(
  `pruned ${removed} packages nothing here loads, and ${(bytes / 1e6).toFixed(1)} MB of files nothing reads`,
);
