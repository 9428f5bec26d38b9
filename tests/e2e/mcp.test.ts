import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, uniqueKey, uniqueNamespace } from './support/factories.js';
import { useStack } from './support/stack.js';

// The MCP server as an agent's client meets it: the built `tm-mcp` spawned over stdio, talking to the
// real stack through @text-memory/sdk. Nothing of the service is mocked.

const t = useStack();
const root = fileURLToPath(new URL('../..', import.meta.url));
const mcpDir = join(root, 'libs', 'mcp');
const bin = join(mcpDir, 'dist', 'bin.js');

const TOOLS = ['forget_namespace', 'list_templates', 'recall', 'remember', 'status', 'use_template'];

beforeAll(() => {
  if (!existsSync(bin))
    throw new Error('libs/mcp is not built: run `pnpm --filter @text-memory/mcp build` (tsc) first');
});

const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

/** An MCP client session with the server spawned with exactly these TM_* variables. */
async function connect(env: Record<string, string>, command = process.execPath, args = [bin]) {
  const transport = new StdioClientTransport({
    command,
    args,
    env: { ...getDefaultEnvironment(), ...env },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'mcp-e2e', version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  return client;
}

async function connectAs(apiKey: string, extra: Record<string, string> = {}) {
  return connect({ TM_BASE_URL: t.stack.url, TM_API_KEY: apiKey, ...extra });
}

type ToolResult = {
  content: { type: string; text?: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
};

async function call(client: Client, name: string, args: Record<string, unknown> = {}) {
  const result = (await client.callTool({ name, arguments: args })) as ToolResult;
  const text = result.content.map((c) => c.text ?? '').join('\n');
  // A success may leave isError out; say false so assertions read the same either way.
  return { ...result, isError: result.isError ?? false, text };
}

const uuid = expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
const requestId = expect.any(String);

describe('tm-mcp tools/list', () => {
  it('when a client connects, then the six tools are listed with bounded input schemas and output schemas', async () => {
    const tenant = await createTenant();
    const client = await connectAs(tenant.api_key);

    const { tools } = await client.listTools();

    expect(tools.map((tool) => tool.name).sort()).toEqual(TOOLS);
    const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool]));
    expect(byName.remember?.inputSchema).toMatchObject({
      type: 'object',
      required: ['text'],
      properties: {
        text: { type: 'string', minLength: 1, maxLength: 32_768 },
        namespace: { type: 'string', maxLength: 128 },
        event_id: { type: 'string', maxLength: 255 },
        occurred_at: { type: 'string', format: 'date-time' },
        supersedes: { type: 'array' },
      },
    });
    expect(byName.recall?.inputSchema).toMatchObject({
      required: ['query'],
      properties: {
        query: { type: 'string', maxLength: 4_096 },
        top_k: { type: 'integer', minimum: 1, maximum: 100 },
        as_of: { type: 'string', format: 'date-time' },
      },
    });
    expect(byName.forget_namespace?.inputSchema).toMatchObject({
      required: ['namespace'],
      properties: { namespace: { type: 'string' }, confirm: { type: 'boolean' } },
    });
    expect(byName.forget_namespace?.annotations).toMatchObject({ destructiveHint: true });
    expect(byName.use_template?.inputSchema).toMatchObject({
      required: ['data'],
      properties: {
        template_name: { type: 'string' },
        marketplace_template_id: { type: 'string' },
        data: { type: 'object' },
      },
    });
    expect(byName.list_templates?.inputSchema).toMatchObject({
      properties: { source: { enum: ['private', 'marketplace', 'both'] }, keyword: {}, category: {} },
    });
    for (const tool of tools) {
      expect(tool.description?.length, tool.name).toBeGreaterThan(80);
      expect(tool.outputSchema, tool.name).toMatchObject({ type: 'object' });
    }
  });
});

describe('tm-mcp remember and recall', () => {
  it('when a fact is remembered, then recall returns it in the context, and the same call again replays it', async () => {
    const tenant = await createTenant();
    const client = await connectAs(tenant.api_key);
    const namespace = uniqueNamespace('mcp');
    const eventId = uniqueKey('fact');
    const fact = 'Ana prefers green tea and is allergic to peanuts';
    const write = { text: fact, namespace, event_id: eventId, occurred_at: '2026-11-22T09:30:00Z' };

    const remembered = await call(client, 'remember', write);
    const replayed = await call(client, 'remember', write);
    const conflicting = await call(client, 'remember', { ...write, text: 'Ana prefers coffee' });
    const recalled = await call(client, 'recall', { query: 'what tea does Ana drink', namespace, top_k: 5 });

    expect(remembered).toMatchObject({
      isError: false,
      structuredContent: {
        state: 'retained',
        memory_id: uuid,
        event_id: eventId,
        namespace,
        idempotency_outcome: 'Accepted',
        decision: 'memorized',
        supersession: [],
        request_id: requestId,
      },
    });
    expect(remembered.text).toContain(`Remembered in namespace "${namespace}"`);
    expect(replayed.structuredContent).toMatchObject({
      idempotency_outcome: 'Replayed',
      memory_id: remembered.structuredContent?.memory_id,
    });
    // The service's refusal, as a tool error an agent can act on.
    expect(conflicting).toMatchObject({
      isError: true,
      structuredContent: {
        error: { code: 'idempotency_conflict', status: 409, retryable: false, request_id: requestId },
      },
    });
    expect(conflicting.text).toMatch(/code: idempotency_conflict\nstatus: 409\nrequest_id: req_\S+/);
    expect(recalled).toMatchObject({
      isError: false,
      structuredContent: {
        state: 'retained',
        retrieval_outcome: 'matched',
        namespace,
        context: expect.stringContaining(fact),
        related: [
          {
            event_id: eventId,
            memory_id: remembered.structuredContent?.memory_id,
            text: fact,
            score: expect.any(Number),
            occurred_at: expect.any(String),
          },
        ],
        request_id: requestId,
      },
    });
    expect(recalled.text).toContain(fact);
  });

  it('when TM_NAMESPACE is set, then calls without a namespace use it; without it they are refused', async () => {
    const tenant = await createTenant();
    const namespace = uniqueNamespace('default');
    const withDefault = await connectAs(tenant.api_key, { TM_NAMESPACE: namespace });
    const withoutDefault = await connectAs(tenant.api_key);

    const remembered = await call(withDefault, 'remember', { text: 'The office wifi is called Orchard' });
    const refused = await call(withoutDefault, 'recall', { query: 'wifi Orchard' });
    const recalled = await call(withoutDefault, 'recall', { query: 'wifi Orchard', namespace });

    expect(remembered.structuredContent).toMatchObject({ state: 'retained', namespace });
    expect(refused).toMatchObject({
      isError: true,
      structuredContent: { error: { code: 'namespace_required' } },
    });
    expect(refused.text).toContain('TM_NAMESPACE');
    expect(recalled.structuredContent).toMatchObject({ retrieval_outcome: 'matched' });
  });

  it('when an input breaks a limit, then the call is refused as a tool error before reaching the service', async () => {
    const tenant = await createTenant();
    const client = await connectAs(tenant.api_key);

    const result = await call(client, 'recall', { query: 'tea', namespace: 'ok', top_k: 101 });

    expect(result.isError).toBe(true);
    expect(result.text).toContain('top_k');
  });
});

describe('tm-mcp forget_namespace', () => {
  it('when confirm is missing, then nothing is deleted; when confirm is true, then the namespace is gone', async () => {
    const tenant = await createTenant();
    const client = await connectAs(tenant.api_key);
    const namespace = uniqueNamespace('forget');
    await call(client, 'remember', { text: 'Bruno parks in bay 42', namespace });

    const refused = await call(client, 'forget_namespace', { namespace });
    const stillThere = await call(client, 'recall', { query: 'Bruno bay', namespace });
    const deleted = await call(client, 'forget_namespace', { namespace, confirm: true });
    const gone = await call(client, 'recall', { query: 'Bruno bay', namespace });

    expect(refused).toMatchObject({
      isError: true,
      structuredContent: { error: { code: 'confirmation_required' } },
    });
    expect(refused.text).toContain('nothing was deleted');
    expect(stillThere.structuredContent).toMatchObject({
      retrieval_outcome: 'matched',
      related: [{ text: 'Bruno parks in bay 42' }],
    });
    expect(deleted).toMatchObject({
      isError: false,
      structuredContent: { state: 'not_retained', namespace, deleted: 1, request_id: requestId },
    });
    expect(gone.structuredContent).toMatchObject({
      retrieval_outcome: 'no_match',
      related: [],
      context: null,
    });
  });
});

describe('tm-mcp templates', () => {
  it('when the marketplace is searched for "task" and the task template is used, then its rendered text is remembered', async () => {
    const tenant = await createTenant();
    const client = await connectAs(tenant.api_key);
    const namespace = uniqueNamespace('tasks');

    const listed = await call(client, 'list_templates', { keyword: 'task' });
    const used = await call(client, 'use_template', {
      marketplace_template_id: 'task',
      data: { title: 'File taxes', owner: 'Ana' },
      namespace,
    });
    const recalled = await call(client, 'recall', { query: 'taxes Ana', namespace });

    expect(listed.structuredContent?.private).toBeUndefined();
    expect(listed.structuredContent?.marketplace).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          marketplace_template_id: 'task',
          category: 'productivity',
          fields: expect.arrayContaining([
            { name: 'title', type: 'string', required: true, description: 'What needs doing' },
          ]),
        }),
      ]),
    );
    expect(used).toMatchObject({
      isError: false,
      structuredContent: {
        state: 'retained',
        memory_id: uuid,
        namespace,
        text: expect.stringContaining('Task "File taxes" owned by Ana'),
        idempotency_outcome: 'Accepted',
        template: { source: 'marketplace', template_name: 'Task', template_version: '1' },
        request_id: requestId,
      },
    });
    expect(recalled.structuredContent).toMatchObject({
      related: [{ memory_id: used.structuredContent?.memory_id }],
    });
  });

  it('when both or neither template is named, then the call is refused; an unknown one is the service error', async () => {
    const tenant = await createTenant();
    const client = await connectAs(tenant.api_key);

    const neither = await call(client, 'use_template', { data: { title: 'x' } });
    const unknown = await call(client, 'use_template', { template_name: 'no-such-template', data: {} });

    expect(neither).toMatchObject({
      isError: true,
      structuredContent: { error: { code: 'template_required' } },
    });
    expect(unknown).toMatchObject({
      isError: true,
      structuredContent: { error: { status: 404, code: expect.any(String), request_id: requestId } },
    });
    expect(unknown.text).toMatch(/request_id: \S+/);
  });
});

describe('tm-mcp status and errors', () => {
  it('when status is called, then health, monitoring and consent come back for the configured deployment', async () => {
    const tenant = await createTenant();
    const client = await connectAs(tenant.api_key);

    const result = await call(client, 'status');

    expect(result).toMatchObject({
      isError: false,
      structuredContent: {
        status: 'ok',
        available: true,
        consent: 'granted',
        execution_mode: 'mock',
        monitoring: { state: expect.any(String) },
        base_url: t.stack.url,
        default_namespace: null,
        request_id: requestId,
      },
    });
    expect(result.text).toContain('private-memory consent: granted');
  });

  it('when the service refuses the key, then the tool error carries message, code, status and request id, never the key', async () => {
    const wrongKey = `tmk_${uniqueKey('not-a-key')}`;
    const client = await connectAs(wrongKey);

    const result = await call(client, 'remember', { text: 'anything', namespace: 'ns' });

    expect(result).toMatchObject({
      isError: true,
      structuredContent: {
        error: { message: expect.any(String), code: expect.any(String), status: 401, request_id: requestId },
      },
    });
    expect(result.text).toContain('status: 401');
    expect(JSON.stringify(result)).not.toContain(wrongKey);
  });
});

describe('tm-mcp start', () => {
  it('when TM_API_KEY is missing, then it exits 2 with a message on stderr and nothing on stdout', () => {
    const { TM_API_KEY: _k, TM_BASE_URL: _u, TM_NAMESPACE: _n, ...env } = process.env;

    const missing = spawnSync(process.execPath, [bin], {
      env: { ...env, TM_BASE_URL: t.stack.url },
      encoding: 'utf8',
      input: '',
    });
    const badUrl = spawnSync(process.execPath, [bin], {
      env: { ...env, TM_BASE_URL: 'not a url', TM_API_KEY: 'tmk_secret-value-1234' },
      encoding: 'utf8',
      input: '',
    });

    expect(missing).toMatchObject({ status: 2, stdout: '' });
    expect(missing.stderr).toContain('TM_API_KEY is not set');
    expect(badUrl).toMatchObject({ status: 2, stdout: '' });
    expect(badUrl.stderr).toContain('TM_BASE_URL must be an http:// or https:// address');
    expect(badUrl.stderr).not.toContain('tmk_secret-value-1234');
  });
});

describe('@text-memory/mcp as a user installs it', () => {
  const work = mkdtempSync(join(tmpdir(), 'tm-mcp-package-'));
  afterAll(() => rmSync(work, { recursive: true, force: true }));
  const run = (file: string, args: string[], cwd: string) =>
    execFileSync(file, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 120_000 });
  // pnpm (not npm) packs, so `workspace:^` becomes the SDK's version range in the tarball.
  const pnpm = spawnSync('pnpm', ['--version']).status === 0 ? ['pnpm'] : ['npx', '--yes', 'pnpm@10.34.9'];
  const pack = (dir: string) => {
    const [file = 'pnpm', ...args] = pnpm;
    const out = run(file, [...args, 'pack', '--pack-destination', work], dir);
    return out.trim().split('\n').at(-1) ?? '';
  };

  it('when both packed tarballs are installed outside the repo, then the tm-mcp bin serves the tools', async () => {
    const sdkTarball = pack(join(root, 'libs', 'sdk'));
    const mcpTarball = pack(mcpDir);
    const app = join(work, 'app');
    mkdirSync(app);
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'mcp-user', private: true }));
    run('npm', ['install', '--no-audit', '--no-fund', '--silent', sdkTarball, mcpTarball], app);
    const tenant = await createTenant();

    const client = await connect(
      { TM_BASE_URL: t.stack.url, TM_API_KEY: tenant.api_key },
      join(app, 'node_modules', '.bin', 'tm-mcp'),
      [],
    );
    const { tools } = await client.listTools();

    expect(tools.map((tool) => tool.name).sort()).toEqual(TOOLS);
    const files = run('tar', ['-tzf', mcpTarball], work).split('\n').filter(Boolean);
    expect(files).toEqual(
      expect.arrayContaining(['package/dist/bin.js', 'package/dist/server.js', 'package/README.md']),
    );
    expect(files.filter((f) => f.startsWith('package/src/'))).toEqual([]);
    const manifest = JSON.parse(run('tar', ['-xzOf', mcpTarball, 'package/package.json'], work));
    const sdk = JSON.parse(readFileSync(join(root, 'libs', 'sdk', 'package.json'), 'utf8'));
    expect(manifest.dependencies['@text-memory/sdk']).toBe(`^${sdk.version}`);
  }, 120_000);
});
