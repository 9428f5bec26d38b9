import { spawnSync } from 'node:child_process';
import { isExecutable, onPath } from './system-package.js';

/**
 * What the Python SDK's tests (tests/e2e/python-sdk.test.ts) import, with the Debian package that
 * gives each: pytest runs them, httpx is the SDK's one dependency, mypy and pyflakes check the code,
 * hatchling and build make the wheel, ensurepip is what `python3 -m venv` needs (python3-venv).
 */
export const PYTHON_MODULES: Record<string, string> = {
  ensurepip: 'python3-venv',
  pytest: 'python3-pytest',
  httpx: 'python3-httpx',
  mypy: 'python3-mypy',
  pyflakes: 'python3-pyflakes',
  hatchling: 'python3-hatchling',
  build: 'python3-build',
};

/**
 * The interpreter the Python tests use: `TM_PYTHON` when set, else Debian's own `/usr/bin/python3`
 * (whose packages apt installs; a `python3` earlier on PATH may be a pyenv build that cannot see them),
 * else `python3` on PATH; undefined when there is none.
 */
export function findPython(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.TM_PYTHON) return isExecutable(env.TM_PYTHON) ? env.TM_PYTHON : undefined;
  if (isExecutable('/usr/bin/python3')) return '/usr/bin/python3';
  return onPath('python3', env);
}

/** The modules of PYTHON_MODULES that `python` cannot import (one interpreter start). */
export function missingModules(python: string): string[] {
  const names = Object.keys(PYTHON_MODULES);
  const probe = [
    'import importlib.util',
    `print("\\n".join(n for n in ${JSON.stringify(names)} if importlib.util.find_spec(n) is None))`,
  ].join('\n');
  const result = spawnSync(python, ['-c', probe], { encoding: 'utf8' });
  if (result.status !== 0) return names;
  return result.stdout.split('\n').filter(Boolean);
}
