import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { useStack } from './support/stack.js';

const t = useStack();
const sdkDir = fileURLToPath(new URL('../../libs/sdk', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'tm-sdk-package-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

// Asynchronous: the stack runs in this process, and a blocking child would keep it from answering.
const run = async (file: string, args: string[], cwd: string) =>
  (await promisify(execFile)(file, args, { cwd, encoding: 'utf8', timeout: 120_000 })).stdout;

describe('@text-memory/sdk as a user installs it', () => {
  it('when the packed tarball is installed alone outside the repo, then an ESM script calls health', async () => {
    // `infra/dev/run.mjs test` built dist/ already when it was stale; build again only if it is missing.
    if (!readdirSync(sdkDir).includes('dist'))
      await run(join(sdkDir, '../../node_modules/.bin/tsc'), ['-p', 'tsconfig.build.json'], sdkDir);
    const tarball =
      (await run('npm', ['pack', '--silent', '--pack-destination', work], sdkDir))
        .trim()
        .split('\n')
        .at(-1) ?? '';
    const app = join(work, 'app');
    mkdirSync(app);
    writeFileSync(
      join(app, 'package.json'),
      JSON.stringify({ name: 'sdk-user', private: true, type: 'module' }),
    );
    await run('npm', ['install', '--no-audit', '--no-fund', '--silent', join(work, tarball)], app);
    writeFileSync(
      join(app, 'main.js'),
      `import { TextMemory, TextMemoryError } from '@text-memory/sdk';
const tm = new TextMemory({ baseUrl: process.argv[2] });
const health = await tm.infrastructure.health();
console.log(JSON.stringify({ available: health.available, error: typeof TextMemoryError }));`,
    );

    const out = await run(process.execPath, ['main.js', t.stack.url], app);

    expect(JSON.parse(out)).toEqual({ available: true, error: 'function' });
    // The package holds the build and the README, not the sources or the snapshot.
    const files = (await run('tar', ['-tzf', join(work, tarball)], work)).split('\n').filter(Boolean);
    expect(files).toContain('package/dist/index.js');
    expect(files).toContain('package/dist/index.d.ts');
    expect(files).toContain('package/dist/node.js');
    expect(files).toContain('package/README.md');
    expect(files.filter((f) => f.startsWith('package/src/'))).toEqual([]);
  }, 120_000);
});
