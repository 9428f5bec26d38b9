import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { findPython } from '../../../infra/dev/python.js';

// What a user installs, packed the way `npm run pack` packs it (infra/dev/run.mjs: pnpm pack in each
// client package; infra/dev/pack-python.ts for the wheel and sdist), into a temporary folder so that
// the checkout's dist/packages is left alone. Each must carry the repository's LICENSE and say
// Apache-2.0 where its tooling reads a licence: package.json's `license`, the wheel's and sdist's
// License-Expression. No stack: nothing here runs the packages (the *-package tests do).

const root = fileURLToPath(new URL('../../..', import.meta.url));
const clients = join(root, 'libs', 'clients');
const licence = readFileSync(join(root, 'LICENSE'), 'utf8');
const work = mkdtempSync(join(tmpdir(), 'tm-package-licences-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const run = async (file: string, args: string[], cwd: string) =>
  (await promisify(execFile)(file, args, { cwd, encoding: 'utf8', timeout: 120_000 })).stdout;

/** pnpm as infra/dev/run.mjs finds it: from PATH, else the pinned version through npx. */
async function pnpm(args: string[], cwd: string) {
  const pinned = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).packageManager as string;
  try {
    return await run('pnpm', args, cwd);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    return run('npx', ['--yes', pinned, ...args], cwd);
  }
}

/** Every npm package of libs/clients: what `npm run pack` packs. */
const npmPackages = readdirSync(clients).filter((name) => existsSync(join(clients, name, 'package.json')));

describe('the licence of what `npm run pack` builds', () => {
  it('when the repository is read, then its LICENSE is the Apache License 2.0 and every package.json says Apache-2.0', () => {
    const manifests = [
      'package.json',
      ...['infra/dev', 'tests/e2e', 'tests/load'].map((dir) => `${dir}/package.json`),
      ...['libs', 'services'].flatMap((parent) =>
        readdirSync(join(root, parent))
          .map((name) => `${parent}/${name}/package.json`)
          .filter((path) => existsSync(join(root, path))),
      ),
      ...npmPackages.map((name) => `libs/clients/${name}/package.json`),
    ];

    const licences = Object.fromEntries(
      manifests.map((path) => [path, JSON.parse(readFileSync(join(root, path), 'utf8')).license]),
    );

    expect(licence).toMatch(/^\s*Apache License\s+Version 2\.0, January 2004\s/);
    expect(licence).toContain('END OF TERMS AND CONDITIONS');
    expect(
      Object.values(licences).every((l) => l === 'Apache-2.0'),
      JSON.stringify(licences),
    ).toBe(true);
  });

  it.each(npmPackages)(
    'when %s is packed with pnpm pack, then the tarball holds LICENSE, the repository’s, and its package.json says Apache-2.0',
    async (name) => {
      const destination = join(work, name);

      const out = await pnpm(['pack', '--pack-destination', destination], join(clients, name));
      const tarball = out.trim().split('\n').at(-1)?.trim() ?? '';
      const path = tarball.startsWith('/') ? tarball : join(destination, tarball);
      const files = (await run('tar', ['-tzf', path], work)).split('\n').filter(Boolean);
      const packedLicence = await run('tar', ['-xzOf', path, 'package/LICENSE'], work).catch(() => '');
      const manifest = JSON.parse(await run('tar', ['-xzOf', path, 'package/package.json'], work));

      expect(files).toContain('package/LICENSE');
      expect(packedLicence).toBe(licence);
      expect(manifest.license).toBe('Apache-2.0');
    },
    120_000,
  );

  it('when the Python SDK’s wheel and sdist are built, then both hold LICENSE, the repository’s, and declare License-Expression: Apache-2.0', async () => {
    const python = findPython();
    if (!python)
      throw new Error('no Python 3 found: run `npm test` (infra/dev/ensure-python.ts says how to get one)');
    const dist = join(work, 'python');
    await run(process.execPath, ['--import', 'tsx', join(root, 'infra/dev/pack-python.ts'), dist], root);
    // The standard library reads both archives: no unzip needed.
    const read = `import json, sys, tarfile, zipfile
from email.parser import Parser
wheel = next(p for p in sys.argv[1:] if p.endswith(".whl"))
sdist = next(p for p in sys.argv[1:] if p.endswith(".tar.gz"))
out = {}
with zipfile.ZipFile(wheel) as z:
    names = z.namelist()
    meta = Parser().parsestr(z.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode())
    licences = [n for n in names if n.rsplit("/", 1)[-1] == "LICENSE"]
    out["wheel"] = {"licences": licences, "text": [z.read(n).decode() for n in licences],
                    "expression": meta["License-Expression"], "files": meta.get_all("License-File")}
with tarfile.open(sdist) as t:
    names = t.getnames()
    meta = Parser().parsestr(t.extractfile(next(n for n in names if n.count("/") == 1 and n.endswith("/PKG-INFO"))).read().decode())
    licences = [n for n in names if n.count("/") == 1 and n.endswith("/LICENSE")]
    out["sdist"] = {"licences": licences, "text": [t.extractfile(n).read().decode() for n in licences],
                    "expression": meta["License-Expression"], "files": meta.get_all("License-File")}
print(json.dumps(out))
`;

    const built = readdirSync(dist).map((file) => join(dist, file));
    const packed = JSON.parse(await run(python, ['-c', read, ...built], work));

    expect(packed).toEqual({
      wheel: {
        licences: [expect.stringMatching(/^text_memory-[^/]+\.dist-info\/licenses\/LICENSE$/)],
        text: [licence],
        expression: 'Apache-2.0',
        files: ['LICENSE'],
      },
      sdist: {
        licences: [expect.stringMatching(/^text_memory-[^/]+\/LICENSE$/)],
        text: [licence],
        expression: 'Apache-2.0',
        files: ['LICENSE'],
      },
    });
  }, 180_000);
});
