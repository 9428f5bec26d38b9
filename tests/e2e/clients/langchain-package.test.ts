import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { createTenant, uniqueNamespace } from '../support/factories.js';
import { useStack } from '../support/stack.js';

const t = useStack();
const root = fileURLToPath(new URL('../../..', import.meta.url));
const clients = join(root, 'libs', 'clients');
const work = mkdtempSync(join(tmpdir(), 'tm-langchain-package-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

// Asynchronous: the stack runs in this process, and a blocking child would keep it from answering. A
// failure says what the command printed (tsc's errors are on stdout).
async function run(file: string, args: string[], cwd: string, env: Record<string, string> = {}) {
  try {
    const options = { cwd, encoding: 'utf8' as const, timeout: 180_000, env: { ...process.env, ...env } };
    return (await promisify(execFile)(file, args, options)).stdout;
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    throw new Error(`${[file, ...args].join(' ')} failed:\n${stdout}${stderr}`);
  }
}

const manifest = (name: string) => JSON.parse(readFileSync(join(clients, name, 'package.json'), 'utf8'));

/** pnpm (not npm) packs, so `workspace:^` becomes the SDK's version range in the tarball. */
async function pack(name: string) {
  const dir = join(clients, name);
  if (!existsSync(join(dir, 'dist', 'index.js')))
    await run(join(root, 'node_modules', '.bin', 'tsc'), ['-p', 'tsconfig.build.json'], dir);
  const { packageManager } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  await run('npx', ['--yes', packageManager, 'pack', '--pack-destination', work], dir);
  return join(work, `text-memory-${name}-${manifest(name).version}.tgz`);
}

/** The README's code block after `<!-- name: … -->`: what a user copies is what runs here. */
function readmeBlock(name: string): string {
  const readme = readFileSync(join(clients, 'langchain', 'README.md'), 'utf8');
  const block = new RegExp(`<!-- ${name.replace('.', '\\.')}:[^>]*-->\\n\`\`\`js\\n([\\s\\S]*?)\`\`\``).exec(
    readme,
  )?.[1];
  if (block === undefined) throw new Error(`libs/clients/langchain/README.md has no block marked ${name}`);
  return block;
}

// A program outside the repository: its own chain (with LangChain's echoing FakeChatModel for a model),
// the package's types checked by TypeScript as a user's editor would.
const CHAIN = `import { ChatPromptTemplate } from '@langchain/core/prompts';
import { RunnableSequence } from '@langchain/core/runnables';
import { FakeChatModel } from '@langchain/core/utils/testing';
import { memoryTools, TextMemoryRetriever, TextMemoryToolError } from '@text-memory/langchain';
import { TextMemory } from '@text-memory/sdk';

const client = new TextMemory({ baseUrl: process.env.TM_BASE_URL ?? '', apiKey: process.env.TM_API_KEY });
const namespace = process.env.TM_NAMESPACE ?? '';
const [remember] = memoryTools({ client, namespace });
const call = { text: 'Frank parks in bay 12', event_id: 'bay-1', occurred_at: '2026-04-01T10:00:00Z' };
await remember.invoke(call);
const replayed: string = await remember.invoke(call);
const retriever = new TextMemoryRetriever({ client, namespace, topK: 1 });
const chain = RunnableSequence.from([
  { context: retriever.pipe((docs) => docs.map((d) => \`\${d.pageContent} (\${d.metadata.event_id})\`).join('\\n')) },
  ChatPromptTemplate.fromMessages([['system', 'Memories: {context}']]),
  new FakeChatModel({}),
]);
const answer = await chain.invoke('where does Frank park?');
const refused = await remember.invoke({ ...call, text: 'Frank parks in bay 13' }).catch((e: unknown) => e);
console.log(JSON.stringify({
  answer: answer.content,
  replayed: replayed.includes('idempotency_outcome: Replayed'),
  refused: refused instanceof TextMemoryToolError ? refused.code : String(refused),
}));
`;

describe('@text-memory/langchain as a user installs it', () => {
  it('when its tarball and the SDK’s are installed with @langchain/core outside the repo, then the README’s quick start runs and a typed chain uses the tools and the retriever', async () => {
    const sdkTarball = await pack('sdk');
    const tarball = await pack('langchain');
    const app = join(work, 'app');
    mkdirSync(app);
    writeFileSync(
      join(app, 'package.json'),
      JSON.stringify({ name: 'langchain-user', private: true, type: 'module' }),
    );
    const core = manifest('langchain').peerDependencies['@langchain/core'];
    await run(
      'npm',
      [
        'install',
        '--no-audit',
        '--no-fund',
        '--silent',
        sdkTarball,
        tarball,
        `@langchain/core@${core}`,
        `zod@${manifest('langchain').peerDependencies.zod}`,
        '@types/node@20',
      ],
      app,
    );
    writeFileSync(join(app, 'quickstart.mjs'), readmeBlock('quickstart.mjs'));
    writeFileSync(join(app, 'chain.mts'), CHAIN);
    const tenant = await createTenant();
    const env = {
      TM_BASE_URL: t.stack.url,
      TM_API_KEY: tenant.api_key,
      TM_NAMESPACE: uniqueNamespace('lc-user'),
    };

    const quickstart = await run(process.execPath, ['quickstart.mjs'], app, env);
    // The repository's TypeScript, reading only the app's node_modules: the published .d.ts files.
    await run(
      join(root, 'node_modules', '.bin', 'tsc'),
      ['--strict', '--module', 'nodenext', '--target', 'es2022', '--outDir', 'out', 'chain.mts'],
      app,
    );
    const chain = JSON.parse(await run(process.execPath, [join('out', 'chain.mjs')], app, env));

    expect(quickstart).toMatch(
      /Remembered in namespace "support-bot" as memory \S+\.\n.*idempotency_outcome: Accepted/s,
    );
    expect(quickstart).toMatch(/Alice prefers green tea \d/);
    expect(quickstart).toContain('1 related memory in "support-bot":');
    expect(chain).toEqual({
      answer: 'Memories: Frank parks in bay 12 (bay-1)',
      replayed: true,
      refused: 'idempotency_conflict',
    });
    const files = (await run('tar', ['-tzf', tarball], work)).split('\n').filter(Boolean);
    expect(files).toEqual(
      expect.arrayContaining(['package/dist/index.js', 'package/dist/index.d.ts', 'package/README.md']),
    );
    expect(files.filter((f) => f.startsWith('package/src/'))).toEqual([]);
    const packed = JSON.parse(await run('tar', ['-xzOf', tarball, 'package/package.json'], work));
    // The SDK and zod are peers, as in @text-memory/ai-sdk: one copy of each in the app (its TextMemory
    // is ours, its errors are recognised), and the zod @langchain/core itself depends on.
    expect(packed).toMatchObject({
      peerDependencies: {
        '@langchain/core': core,
        '@text-memory/sdk': `^${manifest('sdk').version}`,
        zod: manifest('langchain').peerDependencies.zod,
      },
    });
    expect(packed.dependencies).toBeUndefined();
  }, 240_000);
});
