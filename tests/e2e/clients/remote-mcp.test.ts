import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LIMITS, type RequestEvent, RequestRecordBatch, Streams } from '@tm/contracts';
import request from 'supertest';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { CHARGES, type Charge, PRICING_VERSION, usd, WRITE_MICRO_USD } from '../support/billing.js';
import { repo, runCommand } from '../support/cli.js';
import { controlSteps } from '../support/control.js';
import { KEY_NOT_ACCEPTED, NO_CREDENTIAL } from '../support/credential-refusals.js';
import { eventually } from '../support/eventually.js';
import { createTenant, recallBody, uniqueNamespace } from '../support/factories.js';
import { useSecondGateway, useStack } from '../support/stack.js';
import { streamMessages } from '../support/stream-reader.js';
import { eventsFor } from '../support/telemetry.js';

// The remote MCP endpoint as an agent platform meets it: the official TypeScript SDK's Streamable HTTP
// client, reaching the gateway's /mcp with an API key as bearer token, against the real stack. The
// tools are @text-memory/mcp's, the same definitions tm-mcp serves on stdio (tests/e2e/clients/mcp.test.ts);
// here what differs is checked: authentication, origin, scoping by key, and that each tool call is an
// ordinary API request (recorded, rate limited, billed) while the MCP message itself is not.

const t = useStack();
const { tenantWithSession } = controlSteps(t);

const ALL_TOOLS = [
  'forget_memory',
  'forget_namespace',
  'list_templates',
  'recall',
  'remember',
  'status',
  'use_template',
];
const mcpUrl = () => new URL('/mcp', t.stack.url);

const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

/** A client session on /mcp with `apiKey` as bearer token; lists the tools first, as real clients do. */
async function connectAs(apiKey: string) {
  const transport = new StreamableHTTPClientTransport(mcpUrl(), {
    requestInit: { headers: { Authorization: `Bearer ${apiKey}` } },
  });
  const client = new Client({ name: 'remote-mcp-e2e', version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  await client.listTools();
  return client;
}

type ToolResult = {
  content: { type: string; text?: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
};

/** A recall's related memories, from its structured content. */
const relatedOf = (result: { structuredContent?: Record<string, unknown> }) =>
  (result.structuredContent?.related ?? []) as Array<{ memory_id: string; text: string }>;

async function call(client: Client, name: string, args: Record<string, unknown> = {}) {
  const result = (await client.callTool({ name, arguments: args })) as ToolResult;
  const text = result.content.map((c) => c.text ?? '').join('\n');
  // An error carries none: `{}` then, so a test reads the facts of a success without a guard.
  return { structuredContent: result.structuredContent ?? {}, isError: result.isError ?? false, text };
}

/** A tool error's `code: …`, `status: …`, `request_id: …` lines (errors carry no structuredContent). */
const errorFacts = (text: string) =>
  Object.fromEntries(
    text
      .split('\n')
      .map((line) => /^(code|status|request_id|retryable): (.+)$/.exec(line))
      .flatMap((m) => (m?.[1] && m[2] ? [[m[1], m[2]]] : [])),
  );

/** A key of the tenant's owner holding exactly `permissions`, on the tenant's storage connection. */
async function keyWith(tenant: Awaited<ReturnType<typeof tenantWithSession>>, permissions: string[]) {
  const res = await t.api.post('/api/v1/control/api-keys', {
    key: tenant.session,
    body: {
      name: `mcp ${permissions.join(' ')}`,
      permissions,
      storage_connection_id: tenant.storage_connection_id,
    },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.key as string;
}

/** A raw JSON-RPC message to /mcp, as a client would send it, with `headers` added. */
const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};
const post = (headers: Record<string, string>, body: unknown = initialize) =>
  request(t.stack.url)
    .post('/mcp')
    .set('Accept', 'application/json, text/event-stream')
    .set(headers)
    .send(body as object);

describe('POST /mcp: authentication', () => {
  it('when no credential is sent, then 401 with a WWW-Authenticate challenge naming the resource metadata, and the SDK client cannot connect', async () => {
    const res = await post({});

    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe(
      `Bearer realm="text-memory", resource_metadata="${t.stack.url}/.well-known/oauth-protected-resource/mcp"`,
    );
    expect(res.body).toMatchObject({
      error: NO_CREDENTIAL,
      retryable: false,
      details: { code: 'authentication_required' },
    });
    const client = new Client({ name: 'anonymous', version: '1.0.0' });
    await expect(client.connect(new StreamableHTTPClientTransport(mcpUrl()))).rejects.toMatchObject({
      code: 401,
    });
  });

  it('when a bad or revoked-looking key is sent, then 401 with error="invalid_token", saying the key was not accepted as the HTTP API does, never the key', async () => {
    const bad = `tmk_${'A'.repeat(8)}_${'b'.repeat(40)}`;

    const res = await post({ Authorization: `Bearer ${bad}` });

    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toMatch(
      /^Bearer realm="text-memory", resource_metadata=".+", error="invalid_token"$/,
    );
    expect(JSON.stringify(res.body)).not.toContain(bad);
    const direct = await t.api.recall(bad, {});
    expect(res.body).toMatchObject({ error: KEY_NOT_ACCEPTED, details: { code: 'authentication_required' } });
    expect(res.body.error).toBe(direct.body.error);
  });

  it('when a valid session token is sent, then 403 credential_not_accepted: MCP acts on memory and takes an API key', async () => {
    const tenant = await tenantWithSession();

    const res = await post({ Authorization: `Bearer ${tenant.session}` });

    expect(res).toMatchObject({ status: 403, body: { details: { code: 'credential_not_accepted' } } });
  });

  it('when the protected-resource metadata is read, then it names /mcp and bearer tokens in the header (RFC 9728)', async () => {
    for (const path of [
      '/.well-known/oauth-protected-resource/mcp',
      '/.well-known/oauth-protected-resource',
    ]) {
      const res = await request(t.stack.url).get(path);

      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        resource: `${t.stack.url}/mcp`,
        bearer_methods_supported: ['header'],
        resource_name: expect.any(String),
        resource_documentation: `${t.stack.url}/console`,
      });
    }
  });
});

describe('POST /mcp: Origin', () => {
  it('when a browser page from a foreign origin calls, then 403 before the key is looked at; the own origin, loopback and no Origin are let through', async () => {
    const tenant = await createTenant();
    const auth = { Authorization: `Bearer ${tenant.api_key}` };

    const foreign = await post({ ...auth, Origin: 'https://evil.example' });
    const foreignNoKey = await post({ Origin: 'https://evil.example' });
    const same = await post({ ...auth, Origin: t.stack.url });
    const localhost = await post({ ...auth, Origin: 'http://localhost:6274' });
    const none = await post(auth);

    expect(foreign).toMatchObject({ status: 403, body: { details: { code: 'permission_denied' } } });
    expect(foreign.body.error).toContain('MCP_ALLOWED_ORIGINS');
    expect(foreignNoKey.status).toBe(403);
    expect([same.status, localhost.status, none.status]).toEqual([200, 200, 200]);
    expect(localhost.headers['access-control-allow-origin']).toBe('http://localhost:6274');
    expect(none.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('when an allowed page sends a CORS preflight, then 204 with what it may send (POST only: GET and DELETE are 405); a foreign one gets 403', async () => {
    const preflight = (origin: string) =>
      request(t.stack.url)
        .options('/mcp')
        .set('Origin', origin)
        .set('Access-Control-Request-Method', 'POST')
        .set('Access-Control-Request-Headers', 'authorization, content-type, mcp-protocol-version');

    const allowed = await preflight('http://127.0.0.1:6274');
    const foreign = await preflight('https://evil.example');

    expect(allowed.status).toBe(204);
    expect(allowed.headers).toMatchObject({
      'access-control-allow-origin': 'http://127.0.0.1:6274',
      'access-control-allow-methods': 'POST',
      'access-control-allow-headers': expect.stringContaining('Mcp-Protocol-Version'),
      'access-control-expose-headers': expect.stringContaining('WWW-Authenticate'),
    });
    expect(foreign.status).toBe(403);
    expect(foreign.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('POST /mcp: Host (DNS rebinding)', () => {
  const own = () => new URL(t.stack.url);

  it('when a page rebinds its own name to the gateway (Host and Origin both name it), then 403 before the key is looked at, with no CORS headers', async () => {
    const tenant = await createTenant();
    const rebound = { Host: 'evil.example:8080', Origin: 'http://evil.example:8080' };

    const res = await post({ ...rebound, Authorization: `Bearer ${tenant.api_key}` });
    const preflight = await request(t.stack.url)
      .options('/mcp')
      .set(rebound)
      .set('Access-Control-Request-Method', 'POST');

    expect(res).toMatchObject({ status: 403, body: { details: { code: 'permission_denied' } } });
    expect(res.body.error).toContain('GATEWAY_PUBLIC_URL');
    expect(preflight.status).toBe(403);
    for (const answer of [res, preflight])
      expect(answer.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('when the metadata is read with a foreign Host, then it names the gateway on localhost, never that host', async () => {
    const res = await request(t.stack.url)
      .get('/.well-known/oauth-protected-resource/mcp')
      .set('Host', 'evil.example:8080');

    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      resource: `http://localhost:${own().port}/mcp`,
      resource_documentation: `http://localhost:${own().port}/console`,
    });
    expect(JSON.stringify(res.body)).not.toContain('evil');
  });

  describe('with GATEWAY_PUBLIC_URL set', () => {
    const publicUrl = 'https://memory.example.com';
    const instance = useSecondGateway(t, { GATEWAY_PUBLIC_URL: `${publicUrl}/` });
    const postTo = (headers: Record<string, string>) =>
      request(instance.gateway.url)
        .post('/mcp')
        .set('Accept', 'application/json, text/event-stream')
        .set(headers)
        .send(initialize);

    it('when clients call it by that name or by loopback, then they are served and every address named is the public one; another name is refused', async () => {
      const tenant = await createTenant();
      const auth = { Authorization: `Bearer ${tenant.api_key}` };

      const byName = await postTo({ ...auth, Host: 'memory.example.com', Origin: publicUrl });
      const byLoopback = await postTo(auth);
      const anonymous = await postTo({ Host: 'memory.example.com' });
      const otherName = await postTo({ ...auth, Host: 'other.example' });
      const metadata = await request(instance.gateway.url)
        .get('/.well-known/oauth-protected-resource')
        .set('Host', 'other.example');

      expect([byName.status, byLoopback.status]).toEqual([200, 200]);
      expect(byName.headers['access-control-allow-origin']).toBe(publicUrl);
      expect(anonymous.status).toBe(401);
      expect(anonymous.headers['www-authenticate']).toBe(
        `Bearer realm="text-memory", resource_metadata="${publicUrl}/.well-known/oauth-protected-resource/mcp"`,
      );
      expect(otherName).toMatchObject({ status: 403, body: { details: { code: 'permission_denied' } } });
      expect(metadata.body).toMatchObject({
        resource: `${publicUrl}/mcp`,
        resource_documentation: `${publicUrl}/console`,
      });
    });
  });
});

describe('POST /mcp: bounded input', () => {
  it('when the body is over the size limit, nests too deep, or is not JSON, then the gateway refuses it as it refuses any API body', async () => {
    const tenant = await createTenant();
    const auth = { Authorization: `Bearer ${tenant.api_key}` };
    const levels = 100_000;
    const deep = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":${'['.repeat(levels)}1${']'.repeat(levels)}}`;

    const large = await post(auth, {
      ...initialize,
      params: { ...initialize.params, pad: 'x'.repeat(LIMITS.bodyMaxBytes) },
    });
    const nested = await post({ ...auth, 'Content-Type': 'application/json' }, deep);
    const text = await post({ ...auth, 'Content-Type': 'text/plain' }, 'hello');

    expect(large).toMatchObject({ status: 413, body: { details: { code: 'payload_too_large' } } });
    expect(nested).toMatchObject({ status: 400, body: { details: { code: 'validation_failed' } } });
    expect(text).toMatchObject({ status: 415, body: { details: { code: 'unsupported_media_type' } } });
  });

  it('when a JSON-RPC batch (an array) is sent, then 400 in the JSON-RPC error shape and none of its messages runs', async () => {
    const tenant = await createTenant();
    const namespace = uniqueNamespace('batch');
    const remember = (id: number) => ({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'remember', arguments: { namespace, text: `batched note ${id}` } },
    });

    const res = await post({ Authorization: `Bearer ${tenant.api_key}` }, [remember(1), remember(2)]);
    const single = await post({ Authorization: `Bearer ${tenant.api_key}` }, remember(3));

    expect(res).toMatchObject({
      status: 400,
      body: {
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: expect.stringContaining('one JSON-RPC message per request') },
      },
    });
    expect(single.status).toBe(200);
    const recalled = await t.api.recall(tenant.api_key, recallBody(namespace, 'batched note'));
    expect(recalled.body.related.map((r: { text: string }) => r.text)).toEqual(['batched note 3']);
  });

  it('when GET or DELETE is sent, then 405 Allow: POST (stateless: no stream to open, no session to end)', async () => {
    const get = await request(t.stack.url).get('/mcp').set('Accept', 'text/event-stream');
    const del = await request(t.stack.url).delete('/mcp');

    for (const res of [get, del]) {
      expect(res.status).toBe(405);
      expect(res.headers.allow).toBe('POST');
    }
  });
});

describe('tools over /mcp', () => {
  it('when keys hold different permissions, then each lists and may call only the tools its permissions allow', async () => {
    const tenant = await tenantWithSession();
    const full = await connectAs(tenant.api_key);
    const reader = await connectAs(await keyWith(tenant, ['memory:recall']));
    const monitor = await connectAs(await keyWith(tenant, ['telemetry:read']));

    const names = async (client: Client) => (await client.listTools()).tools.map((tool) => tool.name).sort();

    expect(await names(full)).toEqual(ALL_TOOLS);
    expect(await names(reader)).toEqual(['list_templates', 'recall']);
    expect(await names(monitor)).toEqual(['status']);
    const refused = await reader
      .callTool({ name: 'remember', arguments: { text: 'not allowed', namespace: uniqueNamespace() } })
      .then(
        (result) => ({ isError: result.isError, text: JSON.stringify(result.content) }),
        (error: Error) => ({ isError: true, text: error.message }),
      );
    expect(refused).toMatchObject({ isError: true, text: expect.stringMatching(/remember not found/) });
    const status = await call(monitor, 'status');
    expect(status).toMatchObject({
      isError: false,
      structuredContent: { base_url: t.stack.url, request_id: expect.any(String) },
    });
  });

  it('when an agent remembers and then recalls, then the recall holds the text and each answer carries its request id', async () => {
    const tenant = await createTenant();
    const client = await connectAs(tenant.api_key);
    const namespace = uniqueNamespace('remote');

    const remembered = await call(client, 'remember', {
      namespace,
      text: 'Alice drinks green tea every morning',
    });
    const recalled = await call(client, 'recall', { namespace, query: 'Alice tea' });

    expect(remembered).toMatchObject({
      isError: false,
      structuredContent: {
        state: 'retained',
        namespace,
        idempotency_outcome: 'Accepted',
        request_id: expect.any(String),
      },
    });
    expect(remembered.text).toContain(`request_id: ${remembered.structuredContent.request_id}`);
    expect(recalled).toMatchObject({
      isError: false,
      structuredContent: {
        retrieval_outcome: 'matched',
        related: [
          { text: 'Alice drinks green tea every morning', event_id: remembered.structuredContent.event_id },
        ],
      },
    });
    expect(recalled.text).toContain(`request_id: ${recalled.structuredContent.request_id}`);
  });

  it("when forget_memory is called with confirm by the owner, then that memory is gone; another tenant's key gets not_found", async () => {
    const first = await createTenant();
    const other = await createTenant();
    const namespace = uniqueNamespace('forget-one');
    const owner = await connectAs(first.api_key);
    const intruder = await connectAs(other.api_key);
    await call(owner, 'remember', { namespace, text: 'the spare key is under the blue pot' });
    const found = await call(owner, 'recall', { namespace, query: 'spare key' });
    const memoryId = relatedOf(found)[0]?.memory_id as string;

    const foreign = await call(intruder, 'forget_memory', { memory_id: memoryId, confirm: true });
    const stillThere = await call(owner, 'recall', { namespace, query: 'spare key' });
    const forgotten = await call(owner, 'forget_memory', { memory_id: memoryId, confirm: true });
    const gone = await call(owner, 'recall', { namespace, query: 'spare key' });

    expect(foreign).toMatchObject({ isError: true });
    expect(errorFacts(foreign.text)).toMatchObject({ code: 'not_found' });
    expect(stillThere.structuredContent.related).toHaveLength(1);
    expect(forgotten).toMatchObject({
      isError: false,
      structuredContent: { state: 'not_retained', memory_id: memoryId, namespace },
    });
    expect(gone.structuredContent).toMatchObject({ retrieval_outcome: 'no_match', related: [] });
  });

  it('when forget_namespace comes without confirm, then nothing is deleted; with confirm: true, the namespace is gone', async () => {
    const tenant = await createTenant();
    const client = await connectAs(tenant.api_key);
    const namespace = uniqueNamespace('forget');
    await call(client, 'remember', { namespace, text: 'the spare key is under the blue pot' });

    const unconfirmed = await call(client, 'forget_namespace', { namespace });
    const stillThere = await call(client, 'recall', { namespace, query: 'spare key' });
    const confirmed = await call(client, 'forget_namespace', { namespace, confirm: true });
    const gone = await call(client, 'recall', { namespace, query: 'spare key' });

    expect(unconfirmed).toMatchObject({
      isError: true,
      text: expect.stringContaining('nothing was deleted'),
    });
    expect(errorFacts(unconfirmed.text)).toEqual({ code: 'confirmation_required' });
    expect(stillThere.structuredContent.related).toHaveLength(1);
    expect(confirmed).toMatchObject({
      isError: false,
      structuredContent: { state: 'not_retained', namespace, deleted: 1, request_id: expect.any(String) },
    });
    expect(gone.structuredContent).toMatchObject({ retrieval_outcome: 'no_match', related: [] });
  });

  it("when another tenant's key recalls and forgets the first tenant's namespace, then it sees nothing and deletes nothing", async () => {
    const first = await createTenant();
    const other = await createTenant();
    const namespace = uniqueNamespace('private');
    const owner = await connectAs(first.api_key);
    await call(owner, 'remember', { namespace, text: 'Bob keeps his passport in the second drawer' });
    const intruder = await connectAs(other.api_key);

    const peek = await call(intruder, 'recall', { namespace, query: 'Bob passport drawer' });
    const wipe = await call(intruder, 'forget_namespace', { namespace, confirm: true });
    const ownerView = await call(owner, 'recall', { namespace, query: 'Bob passport drawer' });

    expect(peek.structuredContent).toMatchObject({
      state: 'no_data',
      retrieval_outcome: 'no_match',
      related: [],
    });
    expect(peek.text).not.toContain('passport');
    expect(wipe.structuredContent).toMatchObject({ state: 'no_data', deleted: 0 });
    expect(ownerView.structuredContent.related).toHaveLength(1);
  });

  it('when a call names no namespace, then it is refused as namespace_required, saying to pass one and nothing of TM_NAMESPACE, which a remote caller cannot set', async () => {
    const tenant = await createTenant();
    const client = await connectAs(tenant.api_key);
    const text = `Hana's locker code is ${randomUUID()}`;

    const remember = await call(client, 'remember', { text });
    const recall = await call(client, 'recall', { query: text });

    for (const refused of [remember, recall])
      expect(refused).toEqual({
        isError: true,
        structuredContent: {},
        text: 'No namespace: pass `namespace`.\ncode: namespace_required',
      });
  });

  it('when the service refuses a call, then the tool answers a tool error with its code, status and request id, never a 500 nor the key', async () => {
    const tenant = await createTenant({ storage: false });
    const client = await connectAs(tenant.api_key);

    const refused = await call(client, 'remember', { namespace: uniqueNamespace(), text: 'no storage here' });

    expect(refused.isError).toBe(true);
    expect(errorFacts(refused.text)).toEqual({
      code: 'storage_not_attached',
      status: '403',
      request_id: expect.any(String),
      retryable: 'false',
    });
    expect(refused.text).not.toContain(tenant.api_key);
  });
});

describe('/mcp under a rate limit', () => {
  // An instance whose per-key limit is 4 requests a minute, beside the file's gateway (same database
  // and bus; its tools call this instance, the one the client reached).
  const limited = useSecondGateway(t, { RATE_LIMIT_PER_KEY: '4', RATE_LIMIT_WINDOW_SECONDS: '60' });

  /** A raw client on the limited instance, connected (initialize, notifications/initialized: 2 requests). */
  async function limitedClient(apiKey: string) {
    const transport = new StreamableHTTPClientTransport(new URL('/mcp', limited.gateway.url), {
      requestInit: { headers: { Authorization: `Bearer ${apiKey}` } },
    });
    const client = new Client({ name: 'limited', version: '1.0.0' });
    clients.push(client);
    await client.connect(transport);
    return client;
  }
  /** What a call that throws (a refusal of the /mcp request itself) says: its HTTP status. */
  const statusOf = (attempt: Promise<unknown>) =>
    attempt.then(
      () => 'answered',
      (error: { code?: number }) => error.code,
    );

  it('when a key runs out, then each MCP message counted once, a tool call with its first API request, and the next message is refused 429', async () => {
    const tenant = await createTenant();
    const namespace = uniqueNamespace('limited');
    const client = await limitedClient(tenant.api_key); // 2
    await client.listTools(); // 3

    const kept = await call(client, 'remember', { namespace, text: 'Gus parks on level two' }); // 4, its write free
    const refused = await statusOf(call(client, 'recall', { namespace, query: 'Gus parks' })); // 5

    expect(kept).toMatchObject({ isError: false, structuredContent: { state: 'retained' } });
    expect(refused).toBe(429);
    expect(await statusOf(client.listTools())).toBe(429);
  });

  it('when tool calls make no API request (not permitted, bad arguments), then each still counts and the key is refused 429 after its limit', async () => {
    const tenant = await tenantWithSession();
    const reader = await keyWith(tenant, ['memory:recall']);
    const client = await limitedClient(reader); // 2

    const notPermitted = await client
      .callTool({ name: 'remember', arguments: { text: 'x', namespace: uniqueNamespace() } })
      .then(
        (result) => JSON.stringify(result.content),
        (error: Error) => error.message,
      ); // 3: the tool is not offered to this key
    const badArguments = await client
      .callTool({ name: 'recall', arguments: { namespace: uniqueNamespace(), top_k: 'many' } })
      .then(
        (result) => ({ isError: result.isError, text: JSON.stringify(result.content) }),
        (error: Error) => ({ isError: true, text: error.message }),
      ); // 4: refused by the tool's schema
    const refused = await statusOf(call(client, 'recall', { query: 'anything' })); // 5: no namespace

    expect(notPermitted).toMatch(/remember not found/);
    expect(badArguments).toMatchObject({ isError: true, text: expect.stringMatching(/top_k|query/) });
    expect(refused).toBe(429);
    const raw = await request(limited.gateway.url)
      .post('/mcp')
      .set('Accept', 'application/json, text/event-stream')
      .set('Authorization', `Bearer ${reader}`)
      .send(initialize);
    expect(raw).toMatchObject({
      status: 429,
      body: { retryable: true, details: { code: 'rate_limited' } },
    });
    expect(Number(raw.headers['retry-after'])).toBeGreaterThan(0);
  });
  it('when /mcp refuses a message, then the refusal is a request record (blocked, redacted); a message it answers is none', async () => {
    const tenant = await createTenant();
    const ids = {
      answered: `rq-${randomUUID()}`,
      limited: `rq-${randomUUID()}`,
      origin: `rq-${randomUUID()}`,
    };
    const send = (headers: Record<string, string>, requestId: string) =>
      request(limited.gateway.url)
        .post('/mcp')
        .set('Accept', 'application/json, text/event-stream')
        .set({ ...headers, 'X-Request-Id': requestId })
        .send(initialize);
    const auth = { Authorization: `Bearer ${tenant.api_key}` };

    const statuses = [(await send(auth, ids.answered)).status];
    for (let i = 0; i < 3; i += 1) statuses.push((await send(auth, `rq-${randomUUID()}`)).status);
    statuses.push((await send(auth, ids.limited)).status);
    statuses.push((await send({ ...auth, Origin: 'https://evil.example' }, ids.origin)).status);

    expect(statuses).toEqual([200, 200, 200, 200, 429, 403]);
    const { records, raw } = await eventually(async () => {
      const texts = await streamMessages(Streams.gatewayRequests.name).catch(() => []);
      const all = texts.flatMap((text) => RequestRecordBatch.parse(JSON.parse(text)).records);
      const found = all.filter((r) => Object.values(ids).includes(r.request_id));
      expect(found.map((r) => r.request_id)).toEqual(expect.arrayContaining([ids.limited, ids.origin]));
      return { records: found, raw: texts.join('\n') };
    });
    const common = {
      version: 'v1',
      method: 'POST',
      route: '/mcp',
      operation: 'mcp.message',
      outcome: 'blocked',
    };
    expect(records.find((r) => r.request_id === ids.limited)).toMatchObject({
      ...common,
      status: 429,
      error_code: 'rate_limited',
      tenant_id: tenant.tenant_id,
      key_id: expect.any(String),
      units: 0,
    });
    expect(records.find((r) => r.request_id === ids.origin)).toMatchObject({
      ...common,
      status: 403,
      error_code: 'permission_denied',
      tenant_id: null,
    });
    expect(records.filter((r) => r.request_id === ids.answered)).toEqual([]);
    expect(raw).not.toContain(tenant.api_key);
  });
});

describe('a remember over /mcp is an ordinary write', () => {
  /**
   * The tenant's charges once billing holds the charge of `laterRequestId`, a call made after the ones
   * asserted on: charges arrive in order, so a late duplicate of an earlier one would be there too.
   */
  async function chargesUpTo(session: string, laterRequestId: string): Promise<Charge[]> {
    await t.stack.memory.flushOutbox();
    const res = await eventually(async () => {
      const r = await t.api.get(CHARGES, { key: session, query: { limit: '200' } });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect((r.body.data as Charge[]).map((c) => c.request_id)).toContain(laterRequestId);
      return r;
    });
    return res.body.data as Charge[];
  }
  const writesOf = (charges: Charge[]) => charges.filter((c) => c.operation === 'memory.write');

  it('when an agent remembers once, then one memory, one request record (the write, none for the MCP message) and one write charge', async () => {
    const tenant = await tenantWithSession();
    const client = await connectAs(tenant.api_key);
    const namespace = uniqueNamespace('billed');

    const remembered = await call(client, 'remember', { namespace, text: 'Carol prefers aisle seats' });
    const requestId = remembered.structuredContent.request_id as string;

    const events = await eventsFor(t.api, tenant.api_key, [requestId]);
    const writes = events.filter((e: RequestEvent) => e.operation === 'memory.write');
    expect(writes).toEqual([
      expect.objectContaining({
        request_id: requestId,
        method: 'POST',
        route: '/api/v1/memory/write',
        status: 200,
        outcome: 'accepted',
        units: 1,
        billing_state: 'billable',
      }),
    ]);
    expect(events.filter((e) => e.route.includes('mcp'))).toEqual([]);
    const recalled = await call(client, 'recall', { namespace, query: 'Carol aisle seats' });
    expect(recalled.structuredContent.related).toHaveLength(1);
    const charges = await chargesUpTo(tenant.session, recalled.structuredContent.request_id as string);
    expect(writesOf(charges)).toEqual([
      expect.objectContaining({
        state: 'recorded',
        operation: 'memory.write',
        units: 1,
        amount_usd: usd(WRITE_MICRO_USD),
        pricing_version: PRICING_VERSION,
        request_id: requestId,
      }),
    ]);
  });

  it('when the agent retries a remember with the same event_id and occurred_at, then the retry is Replayed and charged once', async () => {
    const tenant = await tenantWithSession();
    const client = await connectAs(tenant.api_key);
    const namespace = uniqueNamespace('retried');
    const args = {
      namespace,
      text: 'Dan moved to Lisbon in March',
      event_id: `agent-${randomUUID()}`,
      occurred_at: '2026-11-20T10:00:00Z',
    };

    const first = await call(client, 'remember', args);
    const retry = await call(await connectAs(tenant.api_key), 'remember', args);

    expect(first.structuredContent).toMatchObject({
      idempotency_outcome: 'Accepted',
      event_id: args.event_id,
    });
    expect(retry.structuredContent).toMatchObject({
      idempotency_outcome: 'Replayed',
      event_id: args.event_id,
      memory_id: first.structuredContent.memory_id,
    });
    expect(retry.text).toContain('idempotency_outcome: Replayed');
    const recalled = await call(client, 'recall', { namespace, query: 'Dan Lisbon' });
    expect(recalled.structuredContent.related).toHaveLength(1);
    const charges = await chargesUpTo(tenant.session, recalled.structuredContent.request_id as string);
    expect(writesOf(charges)).toEqual([
      expect.objectContaining({ operation: 'memory.write', idempotency_key: args.event_id, units: 1 }),
    ]);
  });
});

describe('/mcp under the MCP Inspector CLI', () => {
  // The Inspector's command-line mode against the URL (installed with the e2e packages: nothing is
  // downloaded at test time), as tests/e2e/clients/mcp.test.ts runs it against tm-mcp on stdio.
  const inspector = join(repo, 'tests', 'e2e', 'node_modules', '.bin', 'mcp-inspector');
  const home = mkdtempSync(join(tmpdir(), 'tm-remote-mcp-inspector-'));
  afterAll(() => rmSync(home, { recursive: true, force: true }));

  async function inspect(apiKey: string, args: string[]) {
    const run = await runCommand(
      inspector,
      [
        '--cli',
        mcpUrl().href,
        '--transport',
        'http',
        '--header',
        `Authorization: Bearer ${apiKey}`,
        '--format',
        'json',
        '--quiet',
        ...args,
      ],
      { env: { HOME: home, MCP_INSPECTOR_SECRET_STORE: 'memory' } },
    );
    return {
      code: run.code,
      result: run.stdout.trim() ? JSON.parse(run.stdout).result : undefined,
      stderr: run.stderr,
    };
  }

  it('when it lists the tools and remembers then recalls, then every tool is there and the recall finds the text', async () => {
    const tenant = await createTenant();
    const namespace = uniqueNamespace('inspector');

    const listed = await inspect(tenant.api_key, ['--method', 'tools/list', '--strict']);
    const remembered = await inspect(tenant.api_key, [
      '--method',
      'tools/call',
      '--tool-name',
      'remember',
      '--tool-args-json',
      JSON.stringify({ namespace, text: 'Erin waters the ferns on Sundays' }),
    ]);
    const recalled = await inspect(tenant.api_key, [
      '--method',
      'tools/call',
      '--tool-name',
      'recall',
      '--tool-args-json',
      JSON.stringify({ namespace, query: 'Erin ferns' }),
    ]);

    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.result.tools.map((tool: { name: string }) => tool.name).sort()).toEqual(ALL_TOOLS);
    expect(remembered).toMatchObject({ code: 0, result: { structuredContent: { state: 'retained' } } });
    expect(recalled).toMatchObject({
      code: 0,
      result: { structuredContent: { related: [{ text: 'Erin waters the ferns on Sundays' }] } },
    });
    expect(remembered.stderr + listed.stderr).not.toContain(tenant.api_key);
  });

  // The 401's challenge is what an OAuth-capable client acts on: the Inspector reports that the server
  // wants authorization (in a terminal it would start an OAuth flow, which our keys do not use).
  it('when the key is wrong, then the Inspector reports auth_required and prints nothing of the key', async () => {
    const wrongKey = `tmk_${'C'.repeat(8)}_${'d'.repeat(40)}`;

    const refused = await inspect(wrongKey, ['--method', 'tools/list']);

    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('"code":"auth_required"');
    expect(refused.stderr + (refused.result ?? '')).not.toContain(wrongKey);
  });
});
