import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from '../support/cli.js';
import { KEY_NOT_ACCEPTED } from '../support/credential-refusals.js';
import { EVENTUALLY } from '../support/eventually.js';
import { createTenant, uniqueKey, uniqueNamespace } from '../support/factories.js';
import { useStack } from '../support/stack.js';

// The MCP server as an agent's client meets it: the built `tm-mcp` spawned over stdio, talking to the
// real stack through @text-memory/sdk. Nothing of the service is mocked. Every session lists the tools
// first, as every real client does: from then on the official client checks each result against the
// tool's listed output schema and turns a mismatch into a protocol error (-32602), so every call below
// is also a check that what the tool answered is what it declared.

const t = useStack();
const root = fileURLToPath(new URL('../../..', import.meta.url));
const mcpDir = join(root, 'libs', 'clients', 'mcp');
const bin = join(mcpDir, 'dist', 'bin.js');

const TOOLS = [
  'forget_memory',
  'forget_namespace',
  'list_templates',
  'recall',
  'remember',
  'status',
  'use_template',
];

beforeAll(() => {
  if (!existsSync(bin))
    throw new Error('libs/clients/mcp is not built: run `pnpm --filter @text-memory/mcp build` (tsc) first');
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
  await client.listTools();
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

/** A recall's related memories, from its structured content. */
const relatedOf = (result: { structuredContent?: Record<string, unknown> }) =>
  (result.structuredContent?.related ?? []) as Array<{
    memory_id: string;
    text: string;
    explanation?: unknown;
  }>;

async function call(client: Client, name: string, args: Record<string, unknown> = {}) {
  const result = (await client.callTool({ name, arguments: args })) as ToolResult;
  const text = result.content.map((c) => c.text ?? '').join('\n');
  // A success may leave isError out; say false so assertions read the same either way.
  const isError = result.isError ?? false;
  // structuredContent always named, so `structuredContent: undefined` asserts an error carried none.
  const structuredContent = result.structuredContent;
  return { ...result, structuredContent, isError, text, ...(isError ? { error: errorFacts(text) } : {}) };
}

/**
 * A tool error's facts, read from its text's `code: …`, `status: …`, `request_id: …`, `retryable: …`
 * lines: an error carries no structuredContent (it would have to match the success's output schema).
 */
function errorFacts(text: string): Record<string, string> {
  const facts: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const fact = /^(code|status|request_id|retryable): (.+)$/.exec(line);
    if (fact?.[1] && fact[2]) facts[fact[1]] = fact[2];
  }
  return facts;
}

const uuid = expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
const requestId = expect.any(String);

describe('tm-mcp tools/list', () => {
  it('when a client connects, then the seven tools are listed with bounded input schemas and output schemas', async () => {
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
        explain: { type: 'boolean' },
      },
    });
    expect(byName.forget_memory?.inputSchema).toMatchObject({
      required: ['memory_id'],
      properties: { memory_id: { type: 'string', maxLength: 128 }, confirm: { type: 'boolean' } },
    });
    expect(byName.forget_memory?.annotations).toMatchObject({ destructiveHint: true });
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
      expect(tool.outputSchema, tool.name).toMatchObject({ type: 'object', additionalProperties: false });
    }
    // What a health entry really holds, not only `available`.
    expect(byName.status?.outputSchema).toMatchObject({
      properties: {
        services: {
          type: 'object',
          additionalProperties: {
            type: 'object',
            properties: {
              available: { type: 'boolean' },
              required: { type: 'boolean' },
              dependencies: { type: 'object' },
            },
            required: ['available', 'required'],
          },
        },
      },
    });
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
      structuredContent: undefined,
      error: { code: 'idempotency_conflict', status: '409', retryable: 'false', request_id: requestId },
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

  it('when recall is asked to explain, then each memory carries its explanation and the text gives its words with ✓/✗', async () => {
    const tenant = await createTenant();
    const client = await connectAs(tenant.api_key);
    const namespace = uniqueNamespace('mcp-explain');
    await call(client, 'remember', { text: 'Ana drinks green tea', namespace });

    const explained = await call(client, 'recall', {
      query: 'what does Ana drink',
      namespace,
      explain: true,
    });
    const plain = await call(client, 'recall', { query: 'what does Ana drink', namespace });

    const [memory] = relatedOf(explained);
    expect(memory?.explanation).toMatchObject({
      terms: [
        { word: 'ana', matched: true },
        { word: 'drink', matched: true },
      ],
      tie_break_terms: [
        { word: 'what', matched: false },
        { word: 'does', matched: false },
      ],
    });
    expect(explained.text).toMatch(
      /\n {2}terms: ana [\d.]+ ✓, drink [\d.]+ ✓; tie-break words: what [\d.]+ ✗, does [\d.]+ ✗\nrequest_id: /,
    );
    expect(relatedOf(plain)[0]).not.toHaveProperty('explanation');
    expect(plain.text).not.toContain('terms:');
  });

  it('when remember is retried with the same event_id and no occurred_at, from another tm-mcp process, then the retry is Replayed, as in LangChain and the AI SDK', async () => {
    const tenant = await createTenant();
    const client = await connectAs(tenant.api_key);
    const restarted = await connectAs(tenant.api_key);
    const namespace = uniqueNamespace('mcp');
    const write = { text: 'Bo parks in bay 7', namespace, event_id: uniqueKey('bay') };

    const first = await call(client, 'remember', write);
    const retry = await call(restarted, 'remember', write);

    expect(first.structuredContent).toMatchObject({
      idempotency_outcome: 'Accepted',
      event_id: write.event_id,
    });
    expect(retry.structuredContent).toMatchObject({
      idempotency_outcome: 'Replayed',
      memory_id: first.structuredContent?.memory_id,
    });
    expect(retry.text).toContain('idempotency_outcome: Replayed');
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
      structuredContent: undefined,
      error: { code: 'namespace_required' },
    });
    expect(refused.text).toBe(
      'No namespace: pass `namespace`, or start the server with TM_NAMESPACE set to a default namespace.\ncode: namespace_required',
    );
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

describe('tm-mcp forget_memory', () => {
  it('when confirm is missing, then nothing is forgotten; when confirm is true, then that one memory is gone and the others stay', async () => {
    const tenant = await createTenant();
    const client = await connectAs(tenant.api_key);
    const namespace = uniqueNamespace('forget-one');
    await call(client, 'remember', { text: 'Bruno parks in bay 42', namespace });
    await call(client, 'remember', { text: 'Bruno parks his bike in bay 7', namespace });
    const found = await call(client, 'recall', { query: 'Bruno bay 42', namespace, top_k: 1 });
    const memoryId = relatedOf(found)[0]?.memory_id as string;

    const refused = await call(client, 'forget_memory', { memory_id: memoryId });
    const forgotten = await call(client, 'forget_memory', { memory_id: memoryId, confirm: true });
    const left = await call(client, 'recall', { query: 'Bruno bay', namespace });

    expect(refused).toMatchObject({ isError: true, error: { code: 'confirmation_required' } });
    expect(refused.text).toContain('nothing was deleted');
    expect(forgotten).toMatchObject({
      isError: false,
      structuredContent: { state: 'not_retained', memory_id: memoryId, namespace, reinstated: [] },
    });
    expect(forgotten.text).toContain(`Forgotten: memory ${memoryId}`);
    expect(relatedOf(left).map((r) => r.text)).toEqual(['Bruno parks his bike in bay 7']);
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
      structuredContent: undefined,
      error: { code: 'confirmation_required' },
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
    expect(gone.structuredContent).toMatchObject({ retrieval_outcome: 'no_match', related: [] });
    // Absent, not null: output schemas name no null type, which several clients cannot read.
    expect(gone.structuredContent).not.toHaveProperty('context');
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
        template: { source: 'marketplace', template_name: 'Task', template_version: '2' },
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
      structuredContent: undefined,
      error: { code: 'template_required' },
    });
    expect(unknown).toMatchObject({
      isError: true,
      structuredContent: undefined,
      error: { status: '404', code: expect.any(String), request_id: requestId },
    });
    expect(unknown.text).toMatch(/request_id: \S+/);
  });
});

/** Every service of the stack, answering, as status lists it. */
const everyServiceAnswering = {
  memory: { available: true, required: true, dependencies: { database: { available: true } } },
  billing: { available: true, required: expect.any(Boolean), dependencies: expect.any(Object) },
  telemetry: { available: true, required: false, dependencies: expect.any(Object) },
  template: { available: true, required: expect.any(Boolean), dependencies: expect.any(Object) },
  gateway_store: { available: true, required: true },
};

/** One call of every tool with arguments it accepts; each reaches the service. */
const EVERY_TOOL_CALL: Array<[string, Record<string, unknown>]> = [
  ['remember', { text: 'Ana prefers green tea', namespace: 'mcp-every-tool' }],
  ['recall', { query: 'tea', namespace: 'mcp-every-tool' }],
  ['forget_memory', { memory_id: '00000000-0000-4000-8000-000000000000', confirm: true }],
  ['forget_namespace', { namespace: 'mcp-every-tool', confirm: true }],
  ['list_templates', {}],
  ['use_template', { marketplace_template_id: 'task', data: { title: 'File taxes', owner: 'Ana' } }],
  ['status', {}],
];

/** A memory written only to be forgotten: its memory_id. */
async function rememberedId(client: Client): Promise<string> {
  const remembered = await call(client, 'remember', {
    text: 'Ana once lived in Faro',
    namespace: 'mcp-every-tool-forget',
  });
  return remembered.structuredContent?.memory_id as string;
}

describe('tm-mcp status and errors', () => {
  it('when status is called, then health per service (with what each needs), monitoring and consent come back', async () => {
    const tenant = await createTenant();
    const client = await connectAs(tenant.api_key);

    const result = await call(client, 'status');

    expect(result).toMatchObject({
      isError: false,
      structuredContent: {
        status: 'ok',
        available: true,
        services: everyServiceAnswering,
        consent: 'granted',
        execution_mode: 'mock',
        monitoring: { state: expect.any(String) },
        base_url: t.stack.url,
        request_id: requestId,
      },
    });
    expect(result.structuredContent).not.toHaveProperty('default_namespace');
    expect(result.text).toContain('private-memory consent: granted');
  });

  it('when the service refuses the key, then every tool answers a tool error saying the key was not accepted, with code, status and request id, never the key', async () => {
    const wrongKey = `tmk_${uniqueKey('not-a-key')}`;
    const client = await connectAs(wrongKey);

    const results = await Promise.all(EVERY_TOOL_CALL.map(([name, args]) => call(client, name, args)));

    for (const [i, [name]] of EVERY_TOOL_CALL.entries()) {
      expect(results[i], name).toMatchObject({
        isError: true,
        structuredContent: undefined,
        content: [
          {
            type: 'text',
            text: expect.stringContaining(
              `${KEY_NOT_ACCEPTED}\ncode: authentication_required\nstatus: 401\n`,
            ),
          },
        ],
        error: { code: expect.any(String), status: '401', retryable: 'false', request_id: requestId },
      });
      expect(JSON.stringify(results[i]), name).not.toContain(wrongKey);
    }
  });

  it('when the service answers every tool, then every result passes the schema the client listed', async () => {
    const tenant = await createTenant();
    const client = await connectAs(tenant.api_key);

    const results = [];
    for (const [name, args] of EVERY_TOOL_CALL) {
      // forget_memory needs a memory of this tenant's own: one written for it, apart from the namespace.
      const sent = name === 'forget_memory' ? { ...args, memory_id: await rememberedId(client) } : args;
      results.push(await call(client, name, sent));
    }

    expect(results.map((result) => result.isError)).toEqual(EVERY_TOOL_CALL.map(() => false));
    expect(results.map((result) => result.structuredContent)).toEqual([
      expect.objectContaining({ state: 'retained', namespace: 'mcp-every-tool' }),
      expect.objectContaining({ retrieval_outcome: 'matched' }),
      expect.objectContaining({ state: 'not_retained', namespace: 'mcp-every-tool-forget', reinstated: [] }),
      expect.objectContaining({ state: 'not_retained', deleted: 1 }),
      expect.objectContaining({ private: [], marketplace: expect.any(Array) }),
      expect.objectContaining({ state: 'retained', namespace: 'templates' }),
      expect.objectContaining({ status: 'ok' }),
    ]);
  });
});

describe('tm-mcp while a service is stopped', () => {
  it('when the telemetry service is stopped, then status answers degraded (telemetry not answering, monitoring unavailable) within its schema', async () => {
    const tenant = await createTenant();
    const client = await connectAs(tenant.api_key);

    await t.stack.stopTelemetry();
    let degraded: Awaited<ReturnType<typeof call>>;
    try {
      degraded = await call(client, 'status');
    } finally {
      await t.stack.startTelemetry();
    }

    expect(degraded).toMatchObject({
      isError: false,
      structuredContent: {
        status: 'degraded',
        available: true,
        services: {
          ...everyServiceAnswering,
          // A service that did not answer reports no dependencies.
          telemetry: { available: false, required: false },
        },
        monitoring: { state: 'unavailable' },
        consent: 'granted',
        request_id: requestId,
      },
    });
    expect(degraded.structuredContent).not.toHaveProperty('monitoring.anomaly_count');
    expect(degraded.structuredContent?.services).not.toHaveProperty('telemetry.dependencies');
    expect(degraded.text).toContain('not answering: telemetry');
    await expect
      .poll(async () => (await call(client, 'status')).structuredContent?.status, EVENTUALLY)
      .toBe('ok');
  });

  it('when the memory service is stopped, then status answers unavailable, and remember and recall are retryable tool errors', async () => {
    const tenant = await createTenant();
    const client = await connectAs(tenant.api_key);
    const namespace = uniqueNamespace('outage');

    await t.stack.stopMemory();
    let status: Awaited<ReturnType<typeof call>>;
    let remembered: Awaited<ReturnType<typeof call>>;
    let recalled: Awaited<ReturnType<typeof call>>;
    try {
      status = await call(client, 'status');
      remembered = await call(client, 'remember', {
        text: 'written while memory is away',
        namespace,
        event_id: uniqueKey('outage'),
        occurred_at: '2026-11-26T08:00:00Z',
      });
      recalled = await call(client, 'recall', { query: 'memory away', namespace });
    } finally {
      await t.stack.startMemory();
    }

    expect(status).toMatchObject({
      isError: false,
      structuredContent: {
        status: 'unavailable',
        available: false,
        services: { memory: { available: false, required: true } },
        request_id: requestId,
      },
    });
    for (const result of [remembered, recalled])
      expect(result).toMatchObject({
        isError: true,
        structuredContent: undefined,
        error: { code: expect.any(String), status: expect.stringMatching(/^50[34]$/), retryable: 'true' },
      });
    await expect
      .poll(async () => (await call(client, 'status')).structuredContent?.status, EVENTUALLY)
      .toBe('ok');
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

  it.each([
    ['a line break', '\n', 'a line break'],
    ['a carriage return', '\r', 'a line break'],
    ['a non-ASCII character', '€', 'a character outside ASCII'],
    ['a space', ' ', 'a space'],
  ])(
    'when TM_API_KEY holds %s, then it exits 2 saying where, and never echoes the key',
    (_, breaking, said) => {
      const { TM_API_KEY: _k, TM_BASE_URL: _u, TM_NAMESPACE: _n, ...env } = process.env;
      const head = 'tmk_Abc12345_';
      const tail = 'SecretPart0123456789SecretPart0123456789'.slice(0, 30);
      const key = `${head}${tail.slice(0, 10)}${breaking}${tail.slice(10)}`;

      const started = spawnSync(process.execPath, [bin], {
        env: { ...env, TM_BASE_URL: t.stack.url, TM_API_KEY: key },
        encoding: 'utf8',
        input: '',
      });

      expect(started).toMatchObject({
        status: 2,
        stdout: '',
        stderr: `tm-mcp: cannot start.\nTM_API_KEY holds ${said} at character 24 of 44: give the key exactly as issued (tmk_…); it is not shown here\n`,
      });
      for (const part of [key, tail.slice(0, 10), tail.slice(10), JSON.stringify(key)])
        expect(started.stderr).not.toContain(part);
    },
  );
});

describe('tm-mcp under the MCP Inspector CLI', () => {
  // The Inspector's command-line mode, as its docs show it for a CI smoke test: one process per method,
  // `--format json`, exit 0 for a result, 5 for a tool error (isError), 1 for a failure (a result its
  // own output-schema check refused among them). Its home is a temporary folder so it keeps nothing
  // of ours; its secret store is memory only.
  const inspector = join(root, 'tests', 'e2e', 'node_modules', '.bin', 'mcp-inspector');
  const home = mkdtempSync(join(tmpdir(), 'tm-mcp-inspector-'));
  afterAll(() => rmSync(home, { recursive: true, force: true }));

  async function inspect(apiKey: string, args: string[]) {
    const run = await runCommand(
      inspector,
      [
        '--cli',
        process.execPath,
        bin,
        '--format',
        'json',
        '--quiet',
        ...['-e', `TM_BASE_URL=${t.stack.url}`, '-e', `TM_API_KEY=${apiKey}`],
        ...args,
      ],
      { env: { HOME: home, MCP_INSPECTOR_SECRET_STORE: 'memory' } },
    );
    const lastLine = run.stderr.trim().split('\n').at(-1) ?? '';
    const envelope = run.stdout.trim() ? JSON.parse(run.stdout) : undefined;
    return {
      code: run.code,
      result: envelope?.result,
      // With --strict, every schema portability finding (warnings too) of the tools listed.
      findings: envelope?.schemaFindings,
      error: lastLine.startsWith('{') ? JSON.parse(lastLine).error : undefined,
    };
  }
  const callTool = (apiKey: string, name: string, args: Record<string, unknown> = {}) =>
    inspect(apiKey, [
      '--method',
      'tools/call',
      '--tool-name',
      name,
      '--tool-args-json',
      JSON.stringify(args),
    ]);

  it('when it lists the tools, then the seven come with output schemas and no portability finding, not even a warning', async () => {
    const tenant = await createTenant();

    const listed = await inspect(tenant.api_key, ['--method', 'tools/list', '--strict']);

    expect(listed).toMatchObject({ code: 0, error: undefined, findings: undefined });
    expect(listed.result.tools.map((tool: { name: string }) => tool.name).sort()).toEqual(TOOLS);
    for (const tool of listed.result.tools)
      expect(tool.outputSchema, tool.name).toMatchObject({ type: 'object' });
  });

  it('when every tool is called, then each result passes the Inspector’s output-schema check', async () => {
    const tenant = await createTenant();
    // forget_memory needs a memory of this tenant's own, written for it apart from the namespace.
    const toForget = await callTool(tenant.api_key, 'remember', {
      text: 'Ana once lived in Faro',
      namespace: 'mcp-every-tool-forget',
    });
    const memoryId = toForget.result.structuredContent.memory_id as string;

    const results = [];
    for (const [name, args] of EVERY_TOOL_CALL) {
      const sent = name === 'forget_memory' ? { ...args, memory_id: memoryId } : args;
      results.push(await callTool(tenant.api_key, name, sent));
    }

    for (const [i, [name]] of EVERY_TOOL_CALL.entries())
      expect(results[i], name).toMatchObject({
        code: 0,
        error: undefined,
        result: { content: [{ type: 'text' }], structuredContent: expect.any(Object) },
      });
    expect(results.at(-1)?.result.structuredContent).toMatchObject({
      status: 'ok',
      services: everyServiceAnswering,
    });
    // One Inspector process per call (eight here), each a few seconds on two loaded cores.
  }, 90_000);

  it('when a tool fails (a refusal, the service’s error), then the Inspector shows the tool error’s text, not a schema failure', async () => {
    const tenant = await createTenant();
    const wrongKey = `tmk_${uniqueKey('not-a-key')}`;

    const refused = await callTool(tenant.api_key, 'forget_namespace', { namespace: 'kept' });
    const unauthorized = await callTool(wrongKey, 'status');

    expect(refused).toMatchObject({
      code: 5,
      result: {
        isError: true,
        content: [{ type: 'text', text: expect.stringContaining('code: confirmation_required') }],
      },
      error: { code: 'tool_is_error' },
    });
    expect(refused.result).not.toHaveProperty('structuredContent');
    expect(unauthorized).toMatchObject({
      code: 5,
      result: {
        isError: true,
        content: [{ type: 'text', text: expect.stringContaining(`${KEY_NOT_ACCEPTED}\n`) }],
      },
      error: { code: 'tool_is_error' },
    });
    expect(JSON.stringify(unauthorized)).not.toContain(wrongKey);
  });

  it('when the telemetry service is stopped, then status through the Inspector answers degraded', async () => {
    const tenant = await createTenant();

    await t.stack.stopTelemetry();
    let degraded: Awaited<ReturnType<typeof callTool>>;
    try {
      degraded = await callTool(tenant.api_key, 'status');
    } finally {
      await t.stack.startTelemetry();
    }

    expect(degraded).toMatchObject({
      code: 0,
      error: undefined,
      result: {
        structuredContent: {
          status: 'degraded',
          services: { telemetry: { available: false, required: false } },
          monitoring: { state: 'unavailable' },
        },
      },
    });
    expect(degraded.result.structuredContent).not.toHaveProperty('monitoring.anomaly_count');
  });
});

describe('@text-memory/mcp as a user installs it', () => {
  const work = mkdtempSync(join(tmpdir(), 'tm-mcp-package-'));
  afterAll(() => rmSync(work, { recursive: true, force: true }));
  // Async: npm install on a loaded machine can take a minute, and a worker blocked that long misses
  // vitest's own 60 s RPC deadline (the run then fails with every test passed).
  const run = async (file: string, args: string[], cwd: string) => {
    const ran = await runCommand(file, args, { cwd });
    if (ran.code !== 0) throw new Error(`${file} ${args.join(' ')} exited ${ran.code}: ${ran.stderr}`);
    return ran.stdout;
  };
  // pnpm (not npm) packs, so `workspace:^` becomes the SDK's version range in the tarball.
  const pnpm = spawnSync('pnpm', ['--version']).status === 0 ? ['pnpm'] : ['npx', '--yes', 'pnpm@10.34.9'];
  const pack = async (dir: string) => {
    const [file = 'pnpm', ...args] = pnpm;
    const out = await run(file, [...args, 'pack', '--pack-destination', work], dir);
    return out.trim().split('\n').at(-1) ?? '';
  };

  it('when both packed tarballs are installed outside the repo, then the tm-mcp bin serves the tools', async () => {
    const sdkTarball = await pack(join(root, 'libs', 'clients', 'sdk'));
    const mcpTarball = await pack(mcpDir);
    const app = join(work, 'app');
    mkdirSync(app);
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'mcp-user', private: true }));
    await run('npm', ['install', '--no-audit', '--no-fund', '--silent', sdkTarball, mcpTarball], app);
    const tenant = await createTenant();

    const client = await connect(
      { TM_BASE_URL: t.stack.url, TM_API_KEY: tenant.api_key },
      join(app, 'node_modules', '.bin', 'tm-mcp'),
      [],
    );
    const { tools } = await client.listTools();

    expect(tools.map((tool) => tool.name).sort()).toEqual(TOOLS);
    const files = (await run('tar', ['-tzf', mcpTarball], work)).split('\n').filter(Boolean);
    expect(files).toEqual(
      expect.arrayContaining(['package/dist/bin.js', 'package/dist/server.js', 'package/README.md']),
    );
    expect(files.filter((f) => f.startsWith('package/src/'))).toEqual([]);
    const manifest = JSON.parse(await run('tar', ['-xzOf', mcpTarball, 'package/package.json'], work));
    const sdk = JSON.parse(readFileSync(join(root, 'libs', 'clients', 'sdk', 'package.json'), 'utf8'));
    expect(manifest.dependencies['@text-memory/sdk']).toBe(`^${sdk.version}`);
  }, 120_000);
});
