// Part of `npm test` (infra/dev/run.mjs): the Python SDK's tests (tests/e2e/clients/python-sdk.test.ts)
// need an interpreter with pytest, httpx, mypy, pyflakes, hatchling and build. PyPI may be out of reach
// (it is on this project's machines), so they come from Debian's packages: installed where nobody has to
// be asked (as root or with passwordless sudo), else the run stops and says how to get them (python.ts).

import { ensurePython, PYTHON_MODULES } from './python.js';

const say = (line: string) => console.error(`› ${line}`);

try {
  const python = await ensurePython(Object.keys(PYTHON_MODULES), 'the Python SDK tests', say);
  say(`Python SDK tests use ${python}`);
} catch (err) {
  console.error(`✗ ${(err as Error).message}`);
  process.exit(1);
}
