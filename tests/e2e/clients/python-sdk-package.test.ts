import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { findPython } from '../../../infra/dev/python.js';
import { createTenant } from '../support/factories.js';
import { useStack } from '../support/stack.js';

// The Python SDK (libs/clients/python) as a user installs it: the wheel `npm run pack` builds
// (infra/dev/pack-python.ts), pip-installed with no index into a fresh venv outside the repository, and
// used from there. The venv sees Debian's httpx through --system-site-packages (PyPI is out of reach).
const t = useStack();
const root = fileURLToPath(new URL('../../..', import.meta.url));
const packageDir = join(root, 'libs', 'clients', 'python');
const work = mkdtempSync(join(tmpdir(), 'tm-python-package-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Runs a command to its end (asynchronously: the stack answers from this process); a non-zero exit fails. */
function run(file: string, args: string[], cwd: string, env: Record<string, string> = {}) {
  return new Promise<string>((resolve, reject) => {
    const child = spawn(file, args, {
      cwd,
      env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let output = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
      output += chunk;
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    child.once('error', reject);
    child.once('close', (code) =>
      code === 0
        ? resolve(stdout)
        : reject(new Error(`${[file, ...args].join(' ')} exited ${code}:\n${output}`)),
    );
  });
}

/** The package README's code block after `<!-- name: … -->`: what a user copies is what runs here. */
function readmeBlock(name: string): string {
  const readme = readFileSync(join(packageDir, 'README.md'), 'utf8');
  const block = new RegExp(
    `<!-- name: ${name.replace('.', '\\.')}[^>]*-->\\n\`\`\`python\\n([\\s\\S]*?)\`\`\``,
  ).exec(readme)?.[1];
  if (block === undefined) throw new Error(`libs/clients/python/README.md has no block marked ${name}`);
  return block;
}

/** Every path under `dir` that git does not track and does not ignore, or that git sees changed. */
const gitStatus = (dir: string) => run('git', ['status', '--porcelain', '--untracked-files=all', '.'], dir);

describe('the Python SDK (text-memory) as a user installs it', () => {
  it('when the wheel npm run pack builds is pip-installed with no index into a fresh venv outside the repository, then it imports typed, at pyproject’s version, and the README’s quick start runs against the stack', async () => {
    const python = findPython();
    if (!python)
      throw new Error('no Python 3 found: run `npm test` (infra/dev/ensure-python.ts says how to get one)');
    const before = await gitStatus(packageDir);
    const dist = join(work, 'dist');
    await run(process.execPath, ['--import', 'tsx', join(root, 'infra/dev/pack-python.ts'), dist], root);
    const version = /^version\s*=\s*"([^"]+)"/m.exec(
      readFileSync(join(packageDir, 'pyproject.toml'), 'utf8'),
    )?.[1];
    const built = readdirSync(dist).sort();
    const venv = join(work, 'venv');
    await run(python, ['-m', 'venv', '--system-site-packages', venv], work);
    const venvPython = join(venv, 'bin', 'python');
    await run(
      venvPython,
      [
        '-m',
        'pip',
        'install',
        '--no-index',
        '--no-deps',
        '--quiet',
        join(dist, `text_memory-${version}-py3-none-any.whl`),
      ],
      work,
    );
    const app = mkdtempSync(join(work, 'app-'));
    writeFileSync(
      join(app, 'installed.py'),
      `import importlib.metadata, json, pathlib, text_memory
from text_memory import AsyncTextMemory, TextMemory, TextMemoryError
print(json.dumps({
    "file": text_memory.__file__,
    "py_typed": (pathlib.Path(text_memory.__file__).parent / "py.typed").is_file(),
    "version": text_memory.__version__,
    "distribution": importlib.metadata.version("text-memory"),
    "licence": importlib.metadata.metadata("text-memory")["License-Expression"],
    "classes": [c.__name__ for c in (TextMemory, AsyncTextMemory, TextMemoryError)],
}))
`,
    );
    writeFileSync(join(app, 'quickstart.py'), readmeBlock('quickstart.py'));
    const tenant = await createTenant();

    const installed = JSON.parse(await run(venvPython, ['installed.py'], app));
    const quickstart = await run(venvPython, ['quickstart.py'], app, {
      TM_BASE_URL: t.stack.url,
      TM_API_KEY: tenant.api_key,
    });

    expect(version).toMatch(/^\d+\.\d+\.\d+/);
    expect(built).toEqual([`text_memory-${version}-py3-none-any.whl`, `text_memory-${version}.tar.gz`]);
    // Imported from the venv, not from the checkout.
    expect(installed.file.startsWith(join(venv, 'lib'))).toBe(true);
    expect(installed).toMatchObject({
      py_typed: true,
      version,
      distribution: version,
      licence: 'Apache-2.0',
      classes: ['TextMemory', 'AsyncTextMemory', 'TextMemoryError'],
    });
    expect(quickstart).toMatch(/Alice prefers green tea.* \d/s);
    // The build left nothing in the package's folder (no build/, *.egg-info, dist/, __pycache__).
    expect(await gitStatus(packageDir)).toBe(before);
  }, 180_000);
});
