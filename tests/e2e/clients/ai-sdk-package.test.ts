import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { TextMemory } from '@text-memory/sdk';
import { afterAll, describe, expect, it } from 'vitest';
import { createTenant } from '../support/factories.js';
import { useStack } from '../support/stack.js';

// @text-memory/ai-sdk as a user installs it: packed the way `npm run pack` packs it (pnpm pack, which
// turns the `workspace:` peer range into the SDK's version), installed with the SDK's tarball, `ai` and
// `zod` from the registry into an empty folder outside the repository, and run from there: the
// README's example with the AI SDK's own mock model (ai/test) in place of a provider's.

const t = useStack();
const root = fileURLToPath(new URL('../../..', import.meta.url));
/** The SDK's version: a packed client's peer range is `^` it (workspace:^), whatever the SDK's last bump. */
const sdkVersion = JSON.parse(readFileSync(join(root, 'libs/clients/sdk/package.json'), 'utf8'))
  .version as string;
const clients = join(root, 'libs', 'clients');
const work = mkdtempSync(join(tmpdir(), 'tm-ai-sdk-package-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

// Asynchronous: the stack runs in this process, and a blocking child would keep it from answering.
const run = async (file: string, args: string[], cwd: string, env: Record<string, string> = {}) =>
  (
    await promisify(execFile)(file, args, {
      cwd,
      encoding: 'utf8',
      timeout: 240_000,
      env: { ...process.env, ...env },
    })
  ).stdout;

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

/** Pack a client package into `work`; the tarball's path. */
async function pack(name: string) {
  // `infra/dev/run.mjs test` built dist/ already when it was stale; build again only if it is missing.
  if (!existsSync(join(clients, name, 'dist')))
    await run(join(root, 'node_modules', '.bin', 'tsc'), ['-p', 'tsconfig.build.json'], join(clients, name));
  const out = await pnpm(['pack', '--pack-destination', work], join(clients, name));
  const tarball = out.trim().split('\n').at(-1)?.trim() ?? '';
  if (!tarball.endsWith('.tgz')) throw new Error(`pnpm pack printed no tarball: ${out}`);
  return tarball.startsWith('/') ? tarball : join(work, tarball);
}

/** The README's code block after `<!-- agent.mjs: … -->`: what a user copies is what runs here. */
function readmeBlock(): string {
  const readme = readFileSync(join(clients, 'ai-sdk', 'README.md'), 'utf8');
  const block = /<!-- agent\.mjs:[^>]*-->\n```js\n([\s\S]*?)```/.exec(readme)?.[1];
  if (block === undefined) throw new Error('libs/clients/ai-sdk/README.md has no block marked agent.mjs');
  return block;
}

/**
 * What stands in for the user's provider model: the AI SDK's mock, scripted to call remember, then
 * recall, then answer with the text of the last tool result it was given, so the printed answer shows
 * what the model received.
 */
const scriptedModel = `import { MockLanguageModelV4 } from 'ai/test';
const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};
const turn = (content, unified) => ({ content, finishReason: { unified, raw: undefined }, usage, warnings: [] });
const call = (toolCallId, toolName, input) =>
  turn([{ type: 'tool-call', toolCallId, toolName, input: JSON.stringify(input) }], 'tool-calls');
let turns = 0;
const model = new MockLanguageModelV4({
  doGenerate: async ({ prompt }) => {
    turns += 1;
    if (turns === 1) return call('call-1', 'remember', { text: 'The user is allergic to peanuts' });
    if (turns === 2) return call('call-2', 'recall', { query: 'allergic peanuts snacks' });
    const last = prompt.at(-1).content.at(-1).output.value;
    return turn([{ type: 'text', text: 'The model read: ' + JSON.stringify(last) }], 'stop');
  },
});
`;

describe('@text-memory/ai-sdk as a user installs it', () => {
  it('when its tarball and the SDK’s are installed with ai and zod into an empty folder, then the README’s example remembers and recalls on the real stack and the model reads the memory', async () => {
    // Arrange: the tarballs, and a project that is not in the repository's workspace
    const sdk = await pack('sdk');
    const aiSdk = await pack('ai-sdk');
    const app = join(work, 'app');
    mkdirSync(app);
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
    // The versions the workspace tests with (the lockfile's), so a new `ai` release cannot change this run.
    const installed = (name: string) =>
      JSON.parse(readFileSync(join(clients, 'ai-sdk', 'node_modules', name, 'package.json'), 'utf8'))
        .version as string;
    await run(
      'npm',
      [
        'install',
        '--no-audit',
        '--no-fund',
        '--silent',
        sdk,
        aiSdk,
        `ai@${installed('ai')}`,
        `zod@${installed('zod')}`,
      ],
      app,
    );
    writeFileSync(join(app, 'agent.mjs'), `${scriptedModel}\n${readmeBlock()}`);
    const tenant = await createTenant();

    // Act
    const out = await run(process.execPath, ['agent.mjs'], app, {
      TM_BASE_URL: t.stack.url,
      TM_API_KEY: tenant.api_key,
    });

    // Assert: the model's answer quotes the recalled memory; both tools answered with request ids
    const [answer, ...toolCalls] = out.trim().split('\n');
    expect(answer).toMatch(/^The model read: ".*The user is allergic to peanuts.*request_id: req_/);
    expect(toolCalls).toEqual([
      expect.stringMatching(/^remember req_\S+$/),
      expect.stringMatching(/^recall req_\S+$/),
    ]);
    // New state: stored once, in the README's namespace of this test's own tenant.
    const tm = new TextMemory({ baseUrl: t.stack.url, apiKey: tenant.api_key });
    const stored = await tm.memory.recall({ namespace: 'user-42', query: 'allergic peanuts' });
    expect(stored.related.map((r) => r.text)).toEqual(['The user is allergic to peanuts']);
    // The package: the build, README, CHANGELOG and LICENSE; the SDK a peer at its released range, not a
    // workspace one.
    const files = (await run('tar', ['-tzf', aiSdk], work)).split('\n').filter(Boolean);
    expect(files.filter((f) => !f.startsWith('package/dist/')).sort()).toEqual([
      'package/CHANGELOG.md',
      'package/LICENSE',
      'package/README.md',
      'package/package.json',
    ]);
    expect(files).toContain('package/dist/index.d.ts');
    const manifest = JSON.parse(
      readFileSync(join(app, 'node_modules', '@text-memory', 'ai-sdk', 'package.json'), 'utf8'),
    );
    expect(manifest).toMatchObject({
      name: '@text-memory/ai-sdk',
      version: '0.2.0',
      license: 'Apache-2.0',
      peerDependencies: { '@text-memory/sdk': `^${sdkVersion}`, ai: '^7.0.0', zod: '^4.1.8' },
    });
    expect(manifest.dependencies).toBeUndefined();
  }, 300_000);
});
