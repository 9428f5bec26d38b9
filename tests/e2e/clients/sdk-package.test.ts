import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { createTenant } from '../support/factories.js';
import { useStack } from '../support/stack.js';

const t = useStack();
const sdkDir = fileURLToPath(new URL('../../../libs/clients/sdk', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'tm-sdk-package-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

// Asynchronous: the stack runs in this process, and a blocking child would keep it from answering.
const run = async (file: string, args: string[], cwd: string, env: Record<string, string> = {}) =>
  (
    await promisify(execFile)(file, args, {
      cwd,
      encoding: 'utf8',
      timeout: 120_000,
      env: { ...process.env, ...env },
    })
  ).stdout;

/** The README's code block after `<!-- name: … -->`: what a user copies is what runs here. */
function readmeBlock(name: string): string {
  const readme = readFileSync(join(sdkDir, 'README.md'), 'utf8');
  const block = new RegExp(`<!-- ${name.replace('.', '\\.')}:[^>]*-->\\n\`\`\`js\\n([\\s\\S]*?)\`\`\``).exec(
    readme,
  )?.[1];
  if (block === undefined) throw new Error(`libs/clients/sdk/README.md has no block marked ${name}`);
  return block;
}

describe('@text-memory/sdk as a user installs it', () => {
  it('when the packed tarball is installed alone in a default `npm init` project, then the README’s quick start runs as .mjs, its CommonJS form as .js, and an ESM script calls health', async () => {
    // `infra/dev/run.mjs test` built dist/ already when it was stale; build again only if it is missing.
    if (!readdirSync(sdkDir).includes('dist'))
      await run(join(sdkDir, '../../../node_modules/.bin/tsc'), ['-p', 'tsconfig.build.json'], sdkDir);
    const tarball =
      (await run('npm', ['pack', '--silent', '--pack-destination', work], sdkDir))
        .trim()
        .split('\n')
        .at(-1) ?? '';
    const app = join(work, 'app');
    mkdirSync(app);
    // npm's own defaults: a CommonJS package ("type": "commonjs" on npm 10)
    await run('npm', ['init', '-y'], app);
    await run('npm', ['install', '--no-audit', '--no-fund', '--silent', join(work, tarball)], app);
    writeFileSync(join(app, 'quickstart.mjs'), readmeBlock('quickstart.mjs'));
    writeFileSync(join(app, 'quickstart.js'), readmeBlock('quickstart.cjs'));
    writeFileSync(
      join(app, 'health.mjs'),
      `import { TextMemory, TextMemoryError } from '@text-memory/sdk';
import { REMEMBER_TOOL } from '@text-memory/sdk/tools';
const tm = new TextMemory({ baseUrl: process.argv[2] });
const health = await tm.infrastructure.health();
console.log(JSON.stringify({ available: health.available, error: typeof TextMemoryError, tool: REMEMBER_TOOL.name }));`,
    );
    const tenant = await createTenant();
    const env = { TM_BASE_URL: t.stack.url, TM_API_KEY: tenant.api_key };

    const health = await run(process.execPath, ['health.mjs', t.stack.url], app);
    const esm = await run(process.execPath, ['quickstart.mjs'], app, env);
    const cjs = await run(process.execPath, ['quickstart.js'], app, env);

    expect(JSON.parse(readFileSync(join(app, 'package.json'), 'utf8')).type ?? 'commonjs').toBe('commonjs');
    expect(JSON.parse(health)).toEqual({ available: true, error: 'function', tool: 'remember' });
    expect(esm).toMatch(/Alice prefers green tea.* \d/s);
    expect(cjs).toContain('Bo drinks black coffee');
    // The package holds the build, the README and the licence, not the sources or the snapshot.
    const files = (await run('tar', ['-tzf', join(work, tarball)], work)).split('\n').filter(Boolean);
    expect(files).toContain('package/dist/index.js');
    expect(files).toContain('package/dist/index.d.ts');
    expect(files).toContain('package/dist/node.js');
    expect(files).toContain('package/dist/tools/index.d.ts');
    expect(files).toContain('package/README.md');
    expect(files).toContain('package/LICENSE');
    expect(
      JSON.parse(readFileSync(join(app, 'node_modules/@text-memory/sdk/package.json'), 'utf8')).license,
    ).toBe('Apache-2.0');
    expect(files.filter((f) => f.startsWith('package/src/'))).toEqual([]);
  }, 120_000);
});
