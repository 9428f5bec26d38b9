import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findPython } from '../../../infra/dev/python.js';
import { createTenant } from '../support/factories.js';
import { useStack } from '../support/stack.js';
import { type StubHub, startStubHub } from '../support/stub-hub.js';

// The Python SDK (libs/clients/python) in `npm test`: its pytest suite (a scripted local server, and the
// real stack this file starts), mypy --strict and pyflakes, in a venv over the interpreter
// infra/dev/ensure-python.ts found or equipped (Debian's /usr/bin/python3 here, whose apt packages the
// venv sees through --system-site-packages; PyPI is out of reach).
// A stub model hub with one small dataset, for `imports.from_dataset` (started before the stack reads its URL).
let hub: StubHub;
const DATASET = `stub-org/python-sdk-${process.pid}`;
beforeAll(async () => {
  hub = await startStubHub();
  hub.add({
    id: DATASET,
    sha: 'a'.repeat(40),
    configs: {
      default: {
        train: [
          { name: 'Ada', city: 'London' },
          { name: 'Bo', city: 'Oslo' },
        ],
      },
    },
    columns: ['name', 'city'],
  });
});
afterAll(() => hub?.close());
const t = useStack({ templateEnv: () => hub.env });
const packageDir = fileURLToPath(new URL('../../../libs/clients/python', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'tm-python-sdk-'));
const venvPython = join(work, 'venv', 'bin', 'python');
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Runs a command to its end (asynchronously: the stack answers from this process), with its output. */
function run(file: string, args: string[], env: Record<string, string> = {}) {
  return new Promise<{ code: number | null; output: string }>((resolve, reject) => {
    const child = spawn(file, args, {
      cwd: packageDir,
      // No __pycache__ or .mypy_cache left in the checkout.
      env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, output }));
  });
}

/** Asserts a zero exit, showing the command's output when it is not. */
async function expectSuccess(file: string, args: string[], env: Record<string, string> = {}) {
  const { code, output } = await run(file, args, env);
  expect(code, `${[file, ...args].join(' ')} exited ${code}:\n${output}`).toBe(0);
  return output;
}

beforeAll(async () => {
  const python = findPython();
  if (!python)
    throw new Error('no Python 3 found: run `npm test` (infra/dev/ensure-python.ts says how to get one)');
  await expectSuccess(python, ['-m', 'venv', '--system-site-packages', join(work, 'venv')]);
}, 120_000);

describe('the Python SDK (text-memory)', () => {
  it('when its pytest suite runs against the scripted server, then every test passes', async () => {
    // The stack's tests run in the last test below, with the stack's address; here they are left out.
    const output = await expectSuccess(venvPython, [
      '-m',
      'pytest',
      '-q',
      '-p',
      'no:cacheprovider',
      '--ignore=tests/test_stack.py',
      'tests',
    ]);

    expect(output).toMatch(/\d+ passed/);
    expect(output).not.toMatch(/skipped/);
  }, 120_000);

  it('when mypy --strict and pyflakes check the package and its tests, then they find nothing', async () => {
    await expectSuccess(venvPython, [
      '-m',
      'mypy',
      '--strict',
      '--cache-dir',
      join(work, 'mypy-cache'),
      'src',
      'tests',
    ]);
    await expectSuccess(venvPython, ['-m', 'pyflakes', 'src', 'tests']);
  }, 180_000);

  it('when the sync and async clients run against the real stack, then every call answers as documented', async () => {
    const tenant = await createTenant();

    const output = await expectSuccess(
      venvPython,
      ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', '-rs', 'tests/test_stack.py'],
      {
        TM_TEST_STACK_URL: t.stack.url,
        TM_TEST_API_KEY: tenant.api_key,
        // The control plane takes an owner's session: the tests log in with these.
        TM_TEST_OWNER_EMAIL: tenant.owner.email,
        TM_TEST_OWNER_PASSWORD: tenant.owner.password,
        TM_TEST_DATASET: DATASET,
      },
    );

    expect(output).toMatch(/14 passed/);
    expect(output).not.toMatch(/skipped/);
  }, 240_000);
});
