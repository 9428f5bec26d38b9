// `npm run pack` (infra/dev/run.mjs), after the npm tarballs: the Python SDK's wheel and sdist
// (libs/clients/python) into dist/packages/, or into the folder given as the first argument
// (tests/e2e/clients/python-sdk-package.test.ts). Built with `python -m build` and hatchling, the interpreter
// python.ts finds (Debian's, whose python3-build and python3-hatchling it installs when missing).
//
// --no-isolation: PyPI may be out of reach, so the build uses the interpreter's own hatchling instead of
// fetching one into a throwaway venv. --skip-dependency-check: Debian 12's hatchling declares `editables`
// (used only for editable installs, which this build does not make), and Debian 12 has no python3-editables,
// so build's check would refuse a hatchling that works (docs/decisions/clients.md, "Packaging the Python SDK").
// Nothing is written inside libs/clients/python: build makes the wheel from the sdist in a temporary folder.

import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensurePython } from './python.js';

const say = (line: string) => console.error(`› ${line}`);
const root = fileURLToPath(new URL('../..', import.meta.url));
const packageDir = join(root, 'libs', 'clients', 'python');
const destination = resolve(process.argv[2] ?? join(root, 'dist', 'packages'));

let python: string;
try {
  python = await ensurePython(['build', 'hatchling'], 'the Python SDK’s wheel and sdist', say);
} catch (err) {
  console.error(`✗ ${(err as Error).message}`);
  process.exit(1);
}
mkdirSync(destination, { recursive: true });
say(`building libs/clients/python (${python} -m build)...`);
const args = [
  '-m',
  'build',
  '--no-isolation',
  '--skip-dependency-check',
  '--outdir',
  destination,
  packageDir,
];
const result = spawnSync(python, args, {
  cwd: packageDir,
  encoding: 'utf8',
  env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' },
});
if (result.status !== 0) {
  process.stderr.write(`${result.stdout ?? ''}${result.stderr ?? ''}`);
  console.error(`✗ ${[python, ...args].join(' ')} failed${result.error ? `: ${result.error.message}` : ''}`);
  process.exit(result.status || 1);
}
say(
  `built ${readdirSync(destination)
    .filter((f) => /\.(whl|tar\.gz)$/.test(f))
    .join(', ')}`,
);
