// Part of `npm test` (infra/dev/run.mjs): the Python SDK's tests (tests/e2e/python-sdk.test.ts) need an
// interpreter with pytest, httpx, mypy, pyflakes, hatchling and build. PyPI may be out of reach (it is on
// this project's machines), so they come from Debian's packages: installed where nobody has to be asked
// (as root or with passwordless sudo), else the run stops and says how to get them.

import { findPython, missingModules, PYTHON_MODULES } from './python.js';
import { installPlan, runInstallPlan, thisHost } from './system-package.js';

const say = (line: string) => console.error(`› ${line}`);

const python = findPython();
if (!python) {
  console.error(
    process.env.TM_PYTHON
      ? `✗ TM_PYTHON=${process.env.TM_PYTHON} is not an executable file`
      : '✗ the Python SDK tests need Python 3.9+: `apt-get install python3` (Debian/Ubuntu), or TM_PYTHON=<an interpreter>',
  );
  process.exit(1);
}
const packagesFor = (modules: string[]) => [...new Set(modules.map((m) => PYTHON_MODULES[m] ?? m))];
let missing = missingModules(python);
if (missing.length > 0) {
  // Homebrew's Python has none of these as formulae: there, pip installs them (the error below says so).
  const plan =
    thisHost.platform === 'linux'
      ? installPlan(thisHost, { apt: packagesFor(missing), brew: [] })
      : undefined;
  if (plan) {
    say(`installing the Python SDK's test tools (${plan.steps.map((s) => s.join(' ')).join('; ')})...`);
    await runInstallPlan(plan, process.cwd());
    missing = missingModules(python);
  }
}
if (missing.length > 0) {
  console.error(
    `✗ the Python SDK tests need ${missing.join(', ')} importable by ${python}: ` +
      `\`apt-get install ${packagesFor(missing).join(' ')}\` (Debian/Ubuntu), ` +
      `or \`${python} -m pip install pytest httpx mypy pyflakes hatchling build\`, or TM_PYTHON=<an interpreter that has them>`,
  );
  process.exit(1);
}
say(`Python SDK tests use ${python}`);
