import { spawnSync } from 'node:child_process';
import { installPlan, isExecutable, onPath, runInstallPlan, thisHost } from './system-package.js';

/**
 * What the Python SDK's tests (tests/e2e/clients/python-sdk.test.ts) import, with the Debian package that
 * gives each: pytest runs them, httpx is the SDK's one dependency, mypy and pyflakes check the code,
 * jsonschema checks the bodies the SDK sends against the OpenAPI snapshot, hatchling and build make the wheel, ensurepip is what `python3 -m venv` needs (python3-venv).
 */
export const PYTHON_MODULES: Record<string, string> = {
  ensurepip: 'python3-venv',
  pytest: 'python3-pytest',
  httpx: 'python3-httpx',
  mypy: 'python3-mypy',
  pyflakes: 'python3-pyflakes',
  jsonschema: 'python3-jsonschema',
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

/** The modules of `names` (all of PYTHON_MODULES by default) that `python` cannot import (one interpreter start). */
export function missingModules(python: string, names: string[] = Object.keys(PYTHON_MODULES)): string[] {
  const probe = [
    'import importlib.util',
    `print("\\n".join(n for n in ${JSON.stringify(names)} if importlib.util.find_spec(n) is None))`,
  ].join('\n');
  const result = spawnSync(python, ['-c', probe], { encoding: 'utf8' });
  if (result.status !== 0) return names;
  return result.stdout.split('\n').filter(Boolean);
}

/**
 * The interpreter (findPython) with `modules` importable: the Debian packages that give the missing ones
 * are installed where nobody has to be asked (as root or with passwordless sudo). PyPI may be out of reach
 * (it is on this project's machines). Throws, saying how to get them, when that cannot be done.
 */
export async function ensurePython(
  modules: string[],
  purpose: string,
  say: (line: string) => void,
): Promise<string> {
  const python = findPython();
  if (!python)
    throw new Error(
      process.env.TM_PYTHON
        ? `TM_PYTHON=${process.env.TM_PYTHON} is not an executable file`
        : `${purpose} need Python 3.9+: \`apt-get install python3\` (Debian/Ubuntu), or TM_PYTHON=<an interpreter>`,
    );
  const packagesFor = (names: string[]) => [...new Set(names.map((m) => PYTHON_MODULES[m] ?? m))];
  let missing = missingModules(python, modules);
  if (missing.length > 0) {
    // Homebrew's Python has none of these as formulae: there, pip installs them (the error below says so).
    const plan =
      thisHost.platform === 'linux'
        ? installPlan(thisHost, { apt: packagesFor(missing), brew: [] })
        : undefined;
    if (plan) {
      say(
        `installing ${packagesFor(missing).join(', ')} for ${purpose} (${plan.steps.map((s) => s.join(' ')).join('; ')})...`,
      );
      await runInstallPlan(plan, process.cwd());
      missing = missingModules(python, modules);
    }
  }
  if (missing.length > 0)
    throw new Error(
      `${purpose} need ${missing.join(', ')} importable by ${python}: ` +
        `\`apt-get install ${packagesFor(missing).join(' ')}\` (Debian/Ubuntu), ` +
        `or \`${python} -m pip install ${missing.join(' ')}\`, or TM_PYTHON=<an interpreter that has them>`,
    );
  return python;
}
