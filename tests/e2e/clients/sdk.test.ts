import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  LIMITS,
  TextMemory,
  TextMemoryError,
  type TextMemoryOptions,
} from '../../../libs/clients/sdk/src/index.js';
import { exportToFile, uploadFile } from '../../../libs/clients/sdk/src/node.js';
import { contractCheckedFetch } from '../support/checked-fetch.js';
import { KEY_NOT_ACCEPTED, NO_CREDENTIAL } from '../support/credential-refusals.js';
import { EVENTUALLY, eventually } from '../support/eventually.js';
import { expectSelfConsistent, markedWords } from '../support/explanations.js';
import { createTenant, uniqueNamespace } from '../support/factories.js';
import { recordSecrets } from '../support/log-capture.js';
import { useStack } from '../support/stack.js';

const t = useStack();

/**
 * The SDK against the real stack. Its fetch checks every JSON answer against the served document,
 * as every e2e call is checked (support/api.ts).
 */
const checkedFetch = contractCheckedFetch(t);

const sdk = (options: Partial<TextMemoryOptions> = {}) =>
  new TextMemory({ baseUrl: t.stack.url, fetch: checkedFetch, backoffBaseMs: 10, ...options });

async function tenantWithSdk() {
  const tenant = await createTenant();
  const tm = sdk({ apiKey: tenant.api_key });
  await tm.control.sessions.login({ email: tenant.owner.email, password: tenant.owner.password });
  recordSecrets([tm.sessionToken]);
  return { tenant, tm };
}

const failure = async (promise: Promise<unknown>) => {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TextMemoryError);
  return error as TextMemoryError;
};

describe('SDK: memory.restore', () => {
  it('when an export is restored into another namespace and waited for, then progress is reported, the records are there, and a second restore stores nothing', async () => {
    const { tm } = await tenantWithSdk();
    const source = uniqueNamespace('sdk-source');
    const target = uniqueNamespace('sdk-target');
    await tm.memory.write({ namespace: source, text: 'The lighthouse keeper is Ada', event_id: 'lh-1' });
    await tm.memory.write({
      namespace: source,
      text: 'The lighthouse keeper is Grace',
      event_id: 'lh-2',
      supersedes: ['lh-1'],
    });
    const file = await tm.infrastructure.export({ namespace: source });
    const seen: string[] = [];

    const job = await tm.memory.restore(
      { file, namespace: target },
      { pollIntervalMs: 100, onProgress: (j) => seen.push(j.state) },
    );
    const again = await tm.memory.restore({ file, namespace: target }, { pollIntervalMs: 100 });

    expect(job).toMatchObject({ state: 'completed', namespace: target, from_namespace: source, written: 2 });
    expect(seen.at(-1)).toBe('completed');
    expect(await tm.memory.restoreStatus(job.id)).toEqual(job);
    expect(again).toMatchObject({ state: 'completed', written: 0, already_present: 2, failed: 0 });
    expect(await tm.memory.restoreFailures(again.id)).toMatchObject({ failures: [], paging: { total: 0 } });
    const restored = await tm.infrastructure.export({ namespace: target });
    expect(restored.records.map((r) => [r.event_id, r.status])).toEqual([
      ['lh-1', 'superseded'],
      ['lh-2', 'current'],
    ]);
    expect(restored.supersession_relations).toMatchObject([
      { superseding_event_id: 'lh-2', target_event_id: 'lh-1', status: 'superseded' },
    ]);
  });

  it('when the target namespace is not one, then the SDK refuses it before sending', async () => {
    const { tm } = await tenantWithSdk();
    const file = await tm.infrastructure.export({ namespace: uniqueNamespace('empty') });

    const error = await failure(tm.memory.restore({ file, namespace: ' bad' }));

    expect(error).toMatchObject({ status: 0, code: 'validation_failed' });
    expect(error.details?.fields?.map((f) => f.path)).toEqual(['namespace']);
  });
});

describe('SDK: memory.writeBatch', () => {
  const event = (text: string, at = '2026-11-22T09:30:00Z') => ({ occurred_at: at, content: { text } });

  it('when a batch mixes a new item, an invalid one and a replay, then each is answered in order; resending replays all but the invalid one', async () => {
    const { tm } = await tenantWithSdk();
    const namespace = uniqueNamespace('sdk-batch');
    const prefix = randomUUID();
    await tm.memory.write({
      namespace,
      text: 'Bob is vegan',
      idempotency_key: `${prefix}-old`,
      occurred_at: '2026-11-22T09:00:00Z',
    });
    const items = [
      { idempotency_key: `${prefix}-new`, event: event('Alice prefers green tea') },
      { idempotency_key: `${prefix}-bad`, event: event('   ') },
      { idempotency_key: `${prefix}-old`, event: event('Bob is vegan', '2026-11-22T09:00:00Z') },
      { idempotency_key: `${prefix}-old`, event: event('Bob eats fish now', '2026-11-22T09:00:00Z') },
    ];

    const first = await tm.memory.writeBatch({ namespace, items });
    const again = await tm.memory.writeBatch({ namespace, items });

    expect(first).toMatchObject({
      operation: 'memory.write_batch',
      state: 'retained',
      namespace,
      item_counts: { total: 4, accepted: 1, replayed: 1, conflict: 1, invalid: 1, failed: 0 },
      results: [
        { index: 0, status: 200, body: { idempotency_outcome: 'Accepted', event_id: `${prefix}-new` } },
        {
          index: 1,
          status: 400,
          body: { details: { code: 'validation_failed', fields: [{ path: 'items[1].event.content.text' }] } },
        },
        { index: 2, status: 200, body: { idempotency_outcome: 'Replayed' } },
        { index: 3, status: 409, body: { idempotency_outcome: 'Conflict' } },
      ],
    });
    expect(again.item_counts).toMatchObject({ total: 4, accepted: 0, replayed: 2, conflict: 1, invalid: 1 });
    expect(again.results.map((r) => r.status)).toEqual([200, 400, 200, 409]);
  });

  it('when a batch has more than 100 items or none, then the SDK refuses it before sending, worded as the server words it', async () => {
    const { tenant } = await tenantWithSdk();
    let calls = 0;
    const counting = sdk({
      apiKey: tenant.api_key,
      fetch: (input, init) => {
        calls++;
        return checkedFetch(input, init);
      },
    });
    const items = Array.from({ length: LIMITS.writeBatchMaxItems + 1 }, (_, i) => ({
      idempotency_key: `k-${i}`,
      event: event(`text ${i}`),
    }));

    const tooMany = await failure(counting.memory.writeBatch({ namespace: 'ns', items }));
    const none = await failure(counting.memory.writeBatch({ namespace: 'ns', items: [] }));
    const server = await t.api.post('/api/v1/memory/write/batch', {
      key: tenant.api_key,
      body: { contract_version: 'v1', namespace: 'ns', items },
    });

    expect(calls).toBe(0);
    expect(tooMany).toMatchObject({ status: 0, code: 'validation_failed', retryable: false });
    expect(tooMany.details?.fields).toEqual(server.body.details.fields);
    expect(none.details?.fields).toEqual([{ path: 'items', message: 'items must hold at least one item' }]);
  });
});

describe('SDK: memory (data plane)', () => {
  it('when a write asks for the related recall, then both come back and delete removes the namespace', async () => {
    const { tm } = await tenantWithSdk();
    const namespace = uniqueNamespace('sdk');

    const written = await tm.memory.write(
      { namespace, text: 'Alice prefers green tea', source: { type: 'direct_user_input', id: 'chat-1' } },
      { recall: { query: 'what does Alice drink? tea' } },
    );

    expect(written).toMatchObject({
      state: 'retained',
      idempotency_outcome: 'Accepted',
      idempotency_key: expect.stringMatching(/^evt_/),
      event_id: written.idempotency_key,
      decision: { value: 'memorized', memorized: true },
      request_id: expect.any(String),
      related_recall: {
        state: 'retained',
        retrieval_outcome: 'matched',
        related: [{ event_id: written.idempotency_key, text: 'Alice prefers green tea' }],
      },
    });
    const recalled = await tm.memory.recall({ namespace, query: 'green tea', top_k: 5 });
    expect(recalled.related.map((r) => r.memory_id)).toEqual([written.memory_id]);
    expect(await tm.memory.delete(namespace)).toMatchObject({ state: 'not_retained', deleted: 1, namespace });
    expect(await tm.memory.recall({ namespace, query: 'green tea' })).toMatchObject({ state: 'no_data' });
  });

  it('when the first answer to a write is lost, then the retry comes back Replayed with one record and one charge', async () => {
    const { tenant, tm } = await tenantWithSdk();
    const proxy = await lossyProxy(t.stack.url);
    const retried: string[] = [];
    const viaProxy = sdk({
      apiKey: tenant.api_key,
      baseUrl: proxy.url,
      onRetry: (e) => retried.push(e.error.code),
    });
    const namespace = uniqueNamespace('lost');

    try {
      const written = await viaProxy.memory.write({
        namespace,
        text: 'the answer to this write is lost once',
      });

      expect(proxy.writesForwarded()).toBe(2);
      expect(retried).toEqual(['connection_failed']);
      expect(written).toMatchObject({ state: 'retained', idempotency_outcome: 'Replayed' });
      const recalled = await tm.memory.recall({ namespace, query: 'answer lost write' });
      expect(recalled.related.map((r) => r.event_id)).toEqual([written.event_id]);
      await t.stack.memory.flushOutbox();
      // One write and one recall: two charges once billing has consumed both, and no more.
      const charges = await eventually(async () => {
        const page = await tm.control.billing.charges({ limit: 200 });
        expect(page.paging.total).toBeGreaterThanOrEqual(2);
        return page;
      });
      expect(charges.data.map((c) => [c.operation, c.idempotency_key]).sort()).toEqual([
        ['memory.recall', null],
        ['memory.write', written.idempotency_key],
      ]);
    } finally {
      await proxy.close();
    }
  });

  it('when input breaks a limit, then the SDK refuses it with the server’s field paths and messages', async () => {
    const { tenant, tm } = await tenantWithSdk();
    const bad = { namespace: '-nope', text: ' ' };

    const local = await failure(tm.memory.write(bad));
    const server = await t.api.write(
      tenant.api_key,
      {
        contract_version: 'v1',
        namespace: bad.namespace,
        event: { occurred_at: new Date().toISOString(), content: { text: bad.text } },
      },
      'validation-key',
    );

    expect(server.status).toBe(400);
    expect(local).toMatchObject({ status: 0, code: 'validation_failed', retryable: false });
    expect(local.details?.fields).toEqual(server.body.details.fields);
    const topK = await failure(tm.memory.recall({ namespace: 'ok', query: 'tea', top_k: 101 }));
    const serverTopK = await t.api.recall(tenant.api_key, {
      contract_version: 'v1',
      namespace: 'ok',
      cue: { text: 'tea' },
      top_k: 101,
    });
    expect(topK.details?.fields).toEqual(serverTopK.body.details.fields);
    const explain = await failure(
      tm.memory.recall({ namespace: 'ok', query: 'tea', explain: 'yes' as unknown as boolean }),
    );
    const serverExplain = await t.api.recall(tenant.api_key, {
      contract_version: 'v1',
      namespace: 'ok',
      cue: { text: 'tea' },
      explain: 'yes',
    });
    expect(explain.details?.fields).toEqual(serverExplain.body.details.fields);
  });

  it('when a recall, or a write’s related recall, asks for explain, then each result carries its explanation', async () => {
    const { tm } = await tenantWithSdk();
    const namespace = uniqueNamespace('sdk-explain');
    await tm.memory.write({ namespace, text: 'Bob drinks black coffee', event_id: 'coffee' });

    const written = await tm.memory.write(
      { namespace, text: 'Alice drinks green tea', event_id: 'tea' },
      { recall: { query: 'what does Alice drink?', explain: true } },
    );
    const recalled = await tm.memory.recall({ namespace, query: 'what does Alice drink?', explain: true });
    const plain = await tm.memory.recall({ namespace, query: 'what does Alice drink?' });

    expect(recalled.related.map((r) => r.event_id)).toEqual(['tea', 'coffee']);
    expect(written.related_recall?.related).toEqual(recalled.related);
    const [tea, coffee] = recalled.related.map(expectSelfConsistent);
    expect([tea && markedWords(tea.terms), coffee && markedWords(coffee.terms)]).toEqual([
      ['alice ✓', 'drink ✓'],
      ['alice ✗', 'drink ✓'],
    ]);
    expect(tea && markedWords(tea.tie_break_terms)).toEqual(['what ✗', 'does ✗']);
    expect(plain.related.map((r) => r.explanation)).toEqual([undefined, undefined]);
  });

  it('when capabilities are read, then the SDK’s limits are the published ones', async () => {
    const capabilities = await sdk().infrastructure.capabilities();

    expect(capabilities.limits).toMatchObject({
      namespace_max_length: LIMITS.namespaceMaxLength,
      text_max_chars: LIMITS.textMaxChars,
      cue_max_chars: LIMITS.cueMaxChars,
      top_k: LIMITS.topK,
      idempotency_key_max_length: LIMITS.idempotencyKeyMaxLength,
      write_batch_max_items: LIMITS.writeBatchMaxItems,
    });
  });

  it('when the server refuses a call, then the error carries status, code, request id and retryable', async () => {
    const error = await failure(
      sdk({ apiKey: 'tmk_notakey0_0000000000000000000000000000000000000000' }).memory.recall({
        namespace: 'ns',
        query: 'x',
      }),
    );

    expect(error).toMatchObject({
      status: 401,
      code: 'authentication_required',
      message: KEY_NOT_ACCEPTED,
      retryable: false,
      attempts: 1,
      request_id: expect.any(String),
    });
    expect(error.message).not.toContain('tmk_notakey0');
  });

  it('when the client was given no key, then the 401 says to send one, not that a key was refused', async () => {
    const error = await failure(sdk().memory.recall({ namespace: 'ns', query: 'x' }));

    expect(error).toMatchObject({
      status: 401,
      code: 'authentication_required',
      message: NO_CREDENTIAL,
      retryable: false,
    });
  });
});

describe('SDK: infrastructure', () => {
  it('when each route is called, then each answers in its documented shape', async () => {
    const { tm } = await tenantWithSdk();
    const namespace = uniqueNamespace('infra');
    const writes = [];
    for (let i = 0; i < 3; i++)
      writes.push(await tm.memory.write({ namespace, text: `infrastructure note ${i}` }));

    expect(await sdk().infrastructure.health()).toMatchObject({ available: true });
    expect(await tm.infrastructure.status()).toMatchObject({ contract_version: 'v1' });
    expect(await tm.infrastructure.usage({ window_minutes: 60 })).toMatchObject({ contract_version: 'v1' });
    expect(await tm.infrastructure.metrics({ window_minutes: 60 })).toMatchObject({ contract_version: 'v1' });
    expect(await tm.infrastructure.anomalies({ window_minutes: 15 })).toMatchObject({
      anomaly_count: expect.any(Number),
    });
    expect(await sdk().infrastructure.openapi()).toMatchObject({ openapi: '3.1.0' });
    // Pages of 2: the iterator walks every page of the history. Telemetry records requests off their
    // path, and every call here adds to the history: wait until the writes are in it, then check that
    // walking it page by page reaches each write (offset pages of a growing history may repeat a row
    // at a page edge, so the count is at least one).
    const writeIds = writes.map((w) => w.request_id);
    await eventually(async () => {
      const page = await tm.infrastructure.eventsPage({ limit: 100 });
      expect(page.data.map((e) => e.request_id)).toEqual(expect.arrayContaining(writeIds));
    });
    const seen: string[] = [];
    for await (const event of tm.infrastructure.events({ limit: 2 })) seen.push(event.request_id);
    for (const id of writeIds) expect(seen).toContain(id);
  });

  it('when the export is streamed to a file, then the file holds the namespace’s records', async () => {
    const { tm } = await tenantWithSdk();
    const namespace = uniqueNamespace('export');
    await tm.memory.write({ namespace, text: 'exported text' });
    const file = join(mkdtempSync(join(tmpdir(), 'tm-sdk-')), 'export.json');

    const { bytes } = await exportToFile(tm, file, { namespace });

    const exported = JSON.parse(readFileSync(file, 'utf8'));
    expect(bytes).toBe(readFileSync(file).byteLength);
    expect(exported).toMatchObject({ complete: true, records: [{ namespace, text: 'exported text' }] });
    expect(await tm.infrastructure.export({ namespace })).toMatchObject({
      records: [{ text: 'exported text' }],
    });
  });

  it('when the smoke test runs with an operator token, then every step passes', async () => {
    const { tm } = await tenantWithSdk();
    const issued = await tm.control.operatorTokens.create({ name: 'sdk smoke', ttl_hours: 1 });
    recordSecrets([issued.token]);

    const report = await tm.infrastructure.smokeTest({ operatorToken: issued.token });

    expect(report).toMatchObject({ outcome: 'passed', request_id: expect.any(String) });
    expect(report.steps.map((s) => [s.step, s.outcome])).toEqual([
      ['write', 'passed'],
      ['recall', 'passed'],
      ['delete', 'passed'],
    ]);
    expect((await tm.control.operatorTokens.list()).data.map((o) => o.id)).toContain(issued.id);
    expect(await tm.control.operatorTokens.revoke(issued.id)).toMatchObject({
      id: issued.id,
      status: 'revoked',
    });
  });
});

describe('SDK: a failing smoke test', () => {
  it('when the memory service is stopped, then smokeTest() resolves with outcome failed (write failed, recall skipped) after one request; once memory is back, it resolves passed', async () => {
    const { tenant, tm: owner } = await tenantWithSdk();
    const issued = await owner.control.operatorTokens.create({ name: 'sdk smoke failing', ttl_hours: 1 });
    recordSecrets([issued.token]);
    // The request ids of every smoke-test request the SDK sent, retries included.
    const sent: Array<string | null> = [];
    const tm = sdk({
      apiKey: tenant.api_key,
      operatorToken: issued.token,
      fetch: async (input, init) => {
        const response = await checkedFetch(input, init);
        const url = new URL(input instanceof Request ? input.url : String(input));
        if (url.pathname === '/api/v1/infrastructure/smoke-test')
          sent.push(response.headers.get('x-request-id'));
        return response;
      },
    });

    await t.stack.stopMemory();
    let report: Awaited<ReturnType<typeof tm.infrastructure.smokeTest>>;
    try {
      report = await tm.infrastructure.smokeTest();
    } finally {
      await t.stack.startMemory();
    }

    expect(report).toMatchObject({
      outcome: 'failed',
      namespace: expect.stringMatching(/^tm-smoke-test\//),
      metered: true,
      error: expect.any(String),
      retryable: true,
      details: { code: 'service_unavailable', request_id: report.request_id },
    });
    expect(Object.fromEntries(report.steps.map((s) => [s.step, s.outcome]))).toMatchObject({
      write: 'failed',
      recall: 'skipped',
    });
    // Sent once: a failed run is the answer, not a retryable error (it ran, and is billed).
    expect(sent).toEqual([report.request_id]);

    await expect.poll(async () => (await tm.infrastructure.smokeTest()).outcome, EVENTUALLY).toBe('passed');
  });
});

describe('SDK: control plane', () => {
  it('when a session manages keys, users, storage, consent and billing, then each call answers', async () => {
    const { tm } = await tenantWithSdk();

    const account = await tm.control.account.get();
    const created = await tm.control.apiKeys.create({ name: 'sdk key', permissions: ['memory:recall'] });
    recordSecrets([created.key]);
    expect(await tm.control.apiKeys.get(created.id)).toMatchObject({ id: created.id, name: 'sdk key' });
    expect(await tm.control.apiKeys.update(created.id, { name: 'renamed' })).toMatchObject({
      name: 'renamed',
    });
    const connections = await tm.control.storageConnections.list();
    const managed = connections.data[0];
    if (!managed) throw new Error('no storage connection');
    expect(await tm.control.storageConnections.get(managed.id)).toMatchObject({ id: managed.id });
    expect(await tm.control.apiKeys.detachStorage(created.id)).toMatchObject({ storage_connection_id: null });
    expect(
      await tm.control.apiKeys.attachStorage(created.id, { storage_connection_id: managed.id }),
    ).toMatchObject({
      storage_connection_id: managed.id,
    });
    const rotated = await tm.control.apiKeys.rotate(created.id);
    recordSecrets([rotated.key]);
    expect(await tm.control.apiKeys.revoke(rotated.id)).toMatchObject({ status: 'revoked' });
    expect((await tm.control.apiKeys.list()).data.length).toBeGreaterThanOrEqual(3);
    const extra = await tm.control.storageConnections.create({ kind: 'managed', name: 'second' });
    expect(await tm.control.storageConnections.update(extra.id, { status: 'disabled' })).toMatchObject({
      status: 'disabled',
    });

    const member = { email: `sdk-${randomUUID().slice(0, 8)}@example.test`, password: `pw-${randomUUID()}` };
    recordSecrets([member.password]);
    const user = await tm.control.users.create({ ...member, role: 'viewer' });
    expect(await tm.control.users.get(user.id)).toMatchObject({ email: member.email, role: 'viewer' });
    expect(await tm.control.users.update(user.id, { role: 'developer' })).toMatchObject({
      role: 'developer',
    });
    expect((await tm.control.users.list()).data.map((u) => u.id)).toContain(user.id);

    expect(await tm.control.consent.revoke()).toMatchObject({ state: 'revoked' });
    expect(await tm.control.consent.grant()).toMatchObject({ state: 'granted' });
    expect(await tm.control.consent.get()).toMatchObject({ state: 'granted' });
    expect((await tm.control.consent.events()).data.length).toBeGreaterThanOrEqual(2);

    await tm.memory.write({ namespace: uniqueNamespace('bill'), text: 'a billable write' });
    await t.stack.memory.flushOutbox();
    const charges = await eventually(async () => {
      const page = await tm.control.billing.charges();
      expect(page.paging.total).toBeGreaterThanOrEqual(1);
      return page;
    });
    const charge = charges.data[0];
    if (!charge) throw new Error('no charge');
    expect(await tm.control.billing.voidCharge(charge.id, { reason: 'sdk test' })).toMatchObject({
      state: 'void',
    });
    expect(await tm.control.usage({ window_minutes: 60 })).toMatchObject({ contract_version: 'v1' });
    expect(await tm.control.billing.closeInvoicePeriod({ period: '2020-01' })).toMatchObject({
      period: '2020-01',
    });
    expect(await tm.control.billing.invoices()).toMatchObject({ data: expect.any(Array) });
    expect(account).toMatchObject({ user: { email: expect.any(String) } });
  });

  it('when the password changes and the session logs out, then the old token stops working', async () => {
    const { tenant, tm } = await tenantWithSdk();
    const newPassword = `pw-${randomUUID()}`;
    recordSecrets([newPassword]);

    await tm.control.account.changePassword({
      current_password: tenant.owner.password,
      new_password: newPassword,
    });
    const token = tm.sessionToken;
    await tm.control.sessions.logout();

    expect(tm.sessionToken).toBeUndefined();
    const error = await failure(sdk({ sessionToken: token }).control.account.get());
    expect(error).toMatchObject({ status: 401 });
  });
});

describe('SDK: templates, marketplace and memories', () => {
  it('when a template is created, read and updated with If-Match, then a stale revision is refused', async () => {
    const { tm } = await tenantWithSdk();
    const name = `sdk-${randomUUID().slice(0, 8)}`;
    const fields = [{ name: 'title', type: 'string' as const, description: 'Title', required: true }];

    const created = await tm.templates.create({ template_name: name, description: 'first', fields });
    const updated = await tm.templates.update(
      name,
      { description: 'second', fields },
      { ifMatch: created.revision },
    );
    const stale = await failure(
      tm.templates.update(name, { description: 'third', fields }, { ifMatch: created.revision }),
    );

    expect(updated).toMatchObject({ description: 'second', revision: created.revision + 1 });
    expect(stale).toMatchObject({ status: 412, code: 'precondition_failed', retryable: false });
    expect(await tm.templates.get(name)).toMatchObject({ description: 'second' });
    expect((await tm.templates.list()).data.map((x) => x.template_name)).toContain(name);
    const memory = await tm.memories.create({
      template_name: name,
      namespace: uniqueNamespace('tpl'),
      data: { title: 'Plan' },
    });
    expect(await tm.memories.get(memory.memory_id as string)).toMatchObject({ memory_id: memory.memory_id });
    // Forgotten: gone from reads; asking again replays the first receipt.
    const receipt = await tm.memories.forget(memory.memory_id as string);
    expect(receipt).toMatchObject({
      state: 'not_retained',
      memory_id: memory.memory_id,
      idempotency_outcome: 'Accepted',
    });
    await expect(tm.memories.get(memory.memory_id as string)).rejects.toMatchObject({
      status: 404,
      code: 'not_found',
    });
    expect(await tm.memories.forget(memory.memory_id as string)).toMatchObject({
      idempotency_outcome: 'Replayed',
      original_request_id: receipt.request_id,
    });
  });

  it('when the marketplace is searched, then a listed template makes a memory readable by id', async () => {
    const { tm } = await tenantWithSdk();

    const found = await tm.marketplace.search({ category: 'productivity' });
    const task = await tm.marketplace.get('task');
    const memory = await tm.memories.create({
      marketplace_template_id: 'task',
      namespace: uniqueNamespace('market'),
      data: { title: 'File taxes', owner: 'Ana' },
    });

    expect(found.data.length).toBeGreaterThan(0);
    expect(task).toMatchObject({ id: 'task' });
    expect(memory).toMatchObject({ state: 'retained', memory_id: expect.any(String) });
    expect(await tm.memories.get(memory.memory_id as string)).toMatchObject({ memory_id: memory.memory_id });
  });
});

describe('SDK: imports and chat', () => {
  it('when a CSV is uploaded, started and waited for, then progress is reported and the failed row is listed', async () => {
    const { tm } = await tenantWithSdk();
    const file = join(mkdtempSync(join(tmpdir(), 'tm-sdk-')), 'notes.csv');
    writeFileSync(file, 'note,other\nfirst note,a\n,b\nthird note,c\n');
    const uploaded: number[] = [];
    const polled: number[] = [];

    const job = await uploadFile(
      tm,
      file,
      { format: '{note}', namespace: uniqueNamespace('imp') },
      {
        onProgress: (p) => uploaded.push(p.sentBytes),
      },
    );
    await tm.imports.start(job.id);
    const done = await tm.imports.wait(job.id, {
      intervalMs: 100,
      onProgress: (j) => polled.push(j.processed),
    });
    const failures = await tm.imports.failures(job.id);

    expect(job).toMatchObject({ state: 'estimated' });
    expect(uploaded.at(-1)).toBe(readFileSync(file).byteLength);
    expect(done).toMatchObject({ state: 'completed', total: 3, processed: 3, retained: 2, failed: 1 });
    expect(polled.at(-1)).toBe(3);
    expect(failures.failures).toMatchObject([{ row: 3, reason: 'empty_render' }]); // the file's line: the header is row 1;
    expect(await tm.imports.get(job.id)).toMatchObject({ state: 'completed' });
  });

  it('when a chat completion is asked for, then the reply is at choices[0].message.content', async () => {
    const { tm } = await tenantWithSdk();

    const completion = await tm.chat.createCompletion({
      model: 'tm-standard-1',
      memory_id: `conv-${randomUUID().slice(0, 8)}`,
      messages: [{ role: 'user', content: 'My favourite colour is teal.' }],
    });

    expect(completion.choices[0]?.message.content).toEqual(expect.any(String));
    expect((await tm.chat.listModels()).data.length).toBeGreaterThan(0);
    expect(await tm.chat.getModel('tm-nano-1')).toMatchObject({ id: 'tm-nano-1' });
  });
});

/**
 * Forwards every request to the gateway; the first write's answer is thrown away after the gateway
 * has acted on it, and the client's socket destroyed, as a network failure at the worst moment would.
 */
async function lossyProxy(target: string) {
  let writes = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) {
        if (typeof value === 'string' && !['host', 'connection', 'content-length'].includes(name))
          headers.set(name, value);
      }
      const body = Buffer.concat(chunks);
      const upstream = await fetch(`${target}${req.url}`, {
        method: req.method ?? 'GET',
        headers,
        ...(body.length > 0 ? { body } : {}),
      });
      const answer = Buffer.from(await upstream.arrayBuffer());
      if (req.url === '/api/v1/memory/write' && ++writes === 1) {
        req.socket.destroy();
        return;
      }
      res.writeHead(upstream.status, {
        'content-type': upstream.headers.get('content-type') ?? 'application/json',
      });
      res.end(answer);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    writesForwarded: () => writes,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}
