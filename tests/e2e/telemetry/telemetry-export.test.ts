import { randomUUID } from 'node:crypto';
import type { ExportRecord, ExportRelation, RequestEvent } from '@tm/contracts';
import { describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.js';
import { createTenant, recallBody, uniqueKey, uniqueNamespace, writeBody } from '../support/factories.js';
import { useStack } from '../support/stack.js';

// The paging test writes a few thousand records through one key: the limits must not get in its way.
const t = useStack({ gatewayEnv: { RATE_LIMIT_PER_KEY: '100000', RATE_LIMIT_PER_TENANT: '100000' } });

const EXPORT = '/api/v1/infrastructure/export';
const USERS = '/api/v1/control/users';
const API_KEYS = '/api/v1/control/api-keys';

/** What the gateway streams (ExportDocument in libs/contracts/src/telemetry/telemetry.ts). */
interface ExportDoc {
  contract_version: string;
  request_id: string;
  exported_at: string;
  selection: { namespaces: string[] | null };
  records: ExportRecord[];
  supersession_relations: ExportRelation[];
  history: RequestEvent[];
  counts: { records: number; supersession_relations: number; history: number };
  complete: boolean;
  error?: string;
}

const RequestEventKeys = [
  'billing_state',
  'deployment_version',
  'error_code',
  'key_id',
  'latency_ms',
  'method',
  'occurred_at',
  'operation',
  'outcome',
  'request_id',
  'route',
  'state',
  'status',
  'units',
  'user_id',
].sort();

const rid = (label: string) => `${label}-${randomUUID()}`;
const headers = (id: string) => ({ 'X-Request-Id': id });
/** A term no other test's text holds, so a cue of it matches exactly this test's texts. */
const uniqueTerm = () => `tag${randomUUID().replaceAll('-', '')}`;
const at = (day: number) => new Date(Date.UTC(2026, 0, day, 9, 0, 0)).toISOString();
const sorted = (xs: Iterable<string>) => [...xs].sort();
const ids = (events: RequestEvent[]) => events.map((e) => e.request_id);

/** GET the export (every namespace when `namespaces` is undefined); the streamed body, parsed. */
async function exportOf(key: string, namespaces?: string[], requestId?: string): Promise<ExportDoc> {
  const res = await t.api.get(EXPORT, {
    key,
    ...(namespaces ? { query: { namespace: namespaces } } : {}),
    ...(requestId ? { headers: headers(requestId) } : {}),
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  // Parsed from the text as streamed, not only from supertest's own parse.
  const doc = JSON.parse(res.text) as ExportDoc;
  expect(doc).toEqual(res.body);
  expect(doc.complete).toBe(true);
  expect(doc.error).toBeUndefined();
  expect(doc.counts).toEqual({
    records: doc.records.length,
    supersession_relations: doc.supersession_relations.length,
    history: doc.history.length,
  });
  return doc;
}

/**
 * The export once `ready` holds of it: request records are published after the answer and stored
 * by a consumer, so the history catches up a little later. Throws after EVENTUALLY.
 */
async function exportWhen(
  key: string,
  namespaces: string[] | undefined,
  ready: (doc: ExportDoc) => boolean,
): Promise<ExportDoc> {
  const read = await eventually(async () => {
    // A read that fails exportOf's checks is no state to wait out: thrown below, not retried.
    const read = await exportOf(key, namespaces).then(
      (doc) => ({ doc }),
      (failed: unknown) => ({ failed }),
    );
    if ('doc' in read && !ready(read.doc))
      throw new Error(`export not ready yet; history has ${read.doc.history.length} entries`);
    return read;
  });
  if ('failed' in read) throw read.failed;
  return read.doc;
}

const historyHas = (requestIds: string[]) => (doc: ExportDoc) =>
  requestIds.every((id) => doc.history.some((e) => e.request_id === id));

/** Run `fn` over `items` with at most `limit` in flight. */
async function inPool<T, R>(items: T[], limit: number, fn: (item: T, index: number) => Promise<R>) {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) {
        const i = next++;
        results[i] = await fn(items[i] as T, i);
      }
    }),
  );
  return results;
}

async function write(
  key: string,
  namespace: string,
  text: string,
  event: Parameters<typeof writeBody>[2] = {},
  requestId?: string,
) {
  const res = await t.api.write(
    key,
    writeBody(namespace, text, event),
    uniqueKey(),
    requestId ? headers(requestId) : {},
  );
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.state).toBe('retained');
  return res.body as { memory_id: string; event_id: string; request_id: string; supersession: unknown[] };
}

/**
 * A write resent with its idempotency key while the answer is retryable (a 503/504 on a loaded
 * machine), as a client does; every attempt's request id, as each is a request of the history.
 */
async function writeUntilStored(
  key: string,
  namespace: string,
  text: string,
  event: Parameters<typeof writeBody>[2],
  attempts: string[],
) {
  const idempotencyKey = uniqueKey();
  for (let attempt = 1; ; attempt++) {
    const requestId = `req_${randomUUID()}`;
    attempts.push(requestId);
    const res = await t.api.write(key, writeBody(namespace, text, event), idempotencyKey, headers(requestId));
    if (res.body.retryable === true && attempt < 5) continue;
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body as { memory_id: string; event_id: string; request_id: string };
  }
}

async function recall(key: string, namespace: string, cue: string, extra: { as_of?: string } = {}) {
  const res = await t.api.recall(key, recallBody(namespace, cue, { top_k: 100, ...extra }));
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.related as Array<{ event_id: string; memory_id: string; text: string }>;
}

describe('export of records and supersession relations', () => {
  it('when a namespace has supersessions, then the export marks superseded records and relations, and its current records are exactly what recall returns', async () => {
    const tenant = await createTenant();
    const key = tenant.api_key;
    const namespace = uniqueNamespace('export-sup');
    const term = uniqueTerm();
    const ev = (n: number) => `evt${n}-${randomUUID().slice(0, 8)}`;
    const e = { e1: ev(1), e2: ev(2), e3: ev(3), e4: ev(4), e5: ev(5), e6: ev(6) };
    const missing = `missing-${randomUUID()}`;
    const texts = {
      e1: `coffee espresso ${term}`,
      e2: `tea green ${term}`,
      e3: `water still ${term}`,
      e4: `coffee latte ${term}`,
      e5: `tea black ${term}`,
      e6: `juice orange ${term}`,
    };
    const source = { type: 'direct_user_input', id: 'chat-7' };

    const w1 = await write(key, namespace, texts.e1, { event_id: e.e1, occurred_at: at(1), source });
    const w2 = await write(key, namespace, texts.e2, { event_id: e.e2, occurred_at: at(2) });
    const w3 = await write(key, namespace, texts.e3, { event_id: e.e3, occurred_at: at(3) });
    const w4 = await write(key, namespace, texts.e4, {
      event_id: e.e4,
      occurred_at: at(5),
      supersedes: [e.e1],
    });
    const w5 = await write(key, namespace, texts.e5, {
      event_id: e.e5,
      occurred_at: at(6),
      supersedes: [e.e2, missing],
    });
    const w6 = await write(key, namespace, texts.e6, { event_id: e.e6, occurred_at: at(7) });
    expect(w5.supersession).toEqual([
      { target_event_id: e.e2, status: 'superseded' },
      { target_event_id: missing, status: 'unresolved' },
    ]);

    const doc = await exportOf(key, [namespace]);
    expect(doc).toMatchObject({
      contract_version: 'v1',
      selection: { namespaces: [namespace] },
      counts: { records: 6, supersession_relations: 3 },
    });

    const byEvent = new Map(doc.records.map((r) => [r.event_id, r]));
    expect(sorted(byEvent.keys())).toEqual(sorted(Object.values(e)));
    const expected: Array<[keyof typeof e, { memory_id: string }, string, string | null]> = [
      ['e1', w1, at(1), at(5)],
      ['e2', w2, at(2), at(6)],
      ['e3', w3, at(3), null],
      ['e4', w4, at(5), null],
      ['e5', w5, at(6), null],
      ['e6', w6, at(7), null],
    ];
    for (const [name, written, occurredAt, supersededAt] of expected) {
      expect(byEvent.get(e[name]), name).toEqual({
        memory_id: written.memory_id,
        event_id: e[name],
        namespace,
        occurred_at: occurredAt,
        retained_at: expect.any(String),
        text: texts[name],
        source: name === 'e1' ? source : null,
        status: supersededAt ? 'superseded' : 'current',
        superseded_at: supersededAt,
      });
    }

    const relations = [...doc.supersession_relations].sort((a, b) =>
      a.target_event_id.localeCompare(b.target_event_id),
    );
    const relation = (superseding: { memory_id: string }, by: string, target: string) => ({
      namespace,
      superseding_event_id: by,
      superseding_memory_id: superseding.memory_id,
      target_event_id: target,
      recorded_at: expect.any(String),
    });
    expect(relations).toEqual(
      [
        { ...relation(w4, e.e4, e.e1), target_memory_id: w1.memory_id, status: 'superseded' },
        { ...relation(w5, e.e5, e.e2), target_memory_id: w2.memory_id, status: 'superseded' },
        { ...relation(w5, e.e5, missing), target_memory_id: null, status: 'unresolved' },
      ].sort((a, b) => a.target_event_id.localeCompare(b.target_event_id)),
    );

    // Recall now sees exactly the export's current records, with the same ids and text.
    const current = doc.records.filter((r) => r.status === 'current');
    const superseded = doc.records.filter((r) => r.status === 'superseded');
    expect(sorted(current.map((r) => r.event_id))).toEqual(sorted([e.e3, e.e4, e.e5, e.e6]));
    const now = await recall(key, namespace, term);
    expect(sorted(now.map((r) => `${r.event_id} ${r.memory_id} ${r.text}`))).toEqual(
      sorted(current.map((r) => `${r.event_id} ${r.memory_id} ${r.text}`)),
    );
    for (const r of superseded) expect(now.map((x) => x.event_id)).not.toContain(r.event_id);

    // Before the superseding events happened, the superseded records were the namespace's present.
    const beforeBoth = await recall(key, namespace, term, { as_of: at(4) });
    expect(sorted(beforeBoth.map((r) => r.event_id))).toEqual(sorted([e.e1, e.e2, e.e3]));
    // Between the two supersessions, only the first has taken effect.
    const between = await recall(key, namespace, term, {
      as_of: new Date(Date.UTC(2026, 0, 5, 12)).toISOString(),
    });
    expect(sorted(between.map((r) => r.event_id))).toEqual(sorted([e.e2, e.e3, e.e4]));
  });
});

describe('export history', () => {
  it("when a namespace's requests were recorded, then its export holds their redacted records by request id and no memory text", async () => {
    const tenant = await createTenant();
    const key = tenant.api_key;
    const namespace = uniqueNamespace('export-hist');
    const otherNamespace = uniqueNamespace('export-other');
    const term = uniqueTerm();
    const text1 = `my private note one ${term}`;
    const text2 = `my private note two ${term}`;
    const otherText = `another namespace note ${term}`;
    const cue = `private note ${term}`;
    const rq = {
      write1: rid('write1'),
      write2: rid('write2'),
      recall: rid('recall'),
      other: rid('other-ns'),
      usage: rid('usage'),
      del: rid('delete'),
    };

    const first = await write(key, namespace, text1, {}, rq.write1);
    await write(key, namespace, text2, { supersedes: [first.event_id] }, rq.write2);
    const recalled = await t.api.post('/api/v1/memory/recall', {
      key,
      body: recallBody(namespace, cue),
      headers: headers(rq.recall),
    });
    expect(recalled.status).toBe(200);
    await write(key, otherNamespace, otherText, {}, rq.other);
    expect(
      (await t.api.get('/api/v1/infrastructure/usage', { key, headers: headers(rq.usage) })).status,
    ).toBe(200);

    const own = [rq.write1, rq.write2, rq.recall];
    const doc = await exportWhen(key, [namespace], historyHas(own));
    expect(doc.records.map((r) => r.text).sort()).toEqual([text1, text2].sort());
    expect(doc.supersession_relations).toHaveLength(1);
    // Only this namespace's requests: not the other namespace's write, not the usage read.
    expect(sorted(ids(doc.history))).toEqual(sorted(own));
    const entry = (id: string) => doc.history.find((h) => h.request_id === id);
    for (const id of [rq.write1, rq.write2]) {
      expect(entry(id)).toMatchObject({
        method: 'POST',
        route: '/api/v1/memory/write',
        operation: 'memory.write',
        status: 200,
        outcome: 'accepted',
        state: 'retained',
        units: 1,
        billing_state: 'billable',
      });
    }
    expect(entry(rq.recall)).toMatchObject({
      method: 'POST',
      route: '/api/v1/memory/recall',
      operation: 'memory.recall',
      status: 200,
      outcome: 'accepted',
    });
    // Redacted: the request's shape only, oldest first; no text, cue, namespace or key anywhere in it.
    for (const h of doc.history) expect(Object.keys(h).sort()).toEqual(RequestEventKeys);
    const times = doc.history.map((h) => h.occurred_at);
    expect(times).toEqual([...times].sort());
    const history = JSON.stringify(doc.history);
    for (const secret of [text1, text2, otherText, cue, term, namespace, otherNamespace, key]) {
      expect(history).not.toContain(secret);
    }

    // Without a selection, the whole history of the tenant: the other namespace's write and the usage read too.
    const everything = await exportWhen(key, undefined, historyHas([...own, rq.other, rq.usage]));
    expect(everything.selection).toEqual({ namespaces: null });
    expect(sorted(everything.records.map((r) => r.text))).toEqual(sorted([text1, text2, otherText]));

    // Deleting the namespace removes its records and relations, but not the minimal redacted history.
    const deleted = await t.api.delete('/api/v1/memory', {
      key,
      query: { namespace },
      headers: headers(rq.del),
    });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toMatchObject({ deleted: 2, removed: { supersession_relations: 1 } });
    const after = await exportWhen(key, [namespace], historyHas([rq.del]));
    expect(after.records).toEqual([]);
    expect(after.supersession_relations).toEqual([]);
    expect(after.counts).toEqual({ records: 0, supersession_relations: 0, history: 4 });
    expect(sorted(ids(after.history))).toEqual(sorted([...own, rq.del]));
    expect(after.history.find((h) => h.request_id === rq.del)).toMatchObject({
      method: 'DELETE',
      operation: 'memory.delete',
      status: 200,
      state: 'not_retained',
    });
    const afterText = JSON.stringify(after);
    for (const secret of [text1, text2, cue, term]) expect(afterText).not.toContain(secret);
    // The other namespace is untouched.
    const other = await exportOf(key, [otherNamespace]);
    expect(other.records.map((r) => r.text)).toEqual([otherText]);
  });
});

describe('namespace selection', () => {
  it('when namespaces are named, then only their records are exported; when none is, then every namespace', async () => {
    const tenant = await createTenant();
    const key = tenant.api_key;
    const [a, b, c] = [uniqueNamespace('sel-a'), uniqueNamespace('sel-b'), uniqueNamespace('sel-c')];
    const texts: Record<string, string[]> = {
      [a]: ['a one', 'a two'],
      [b]: ['b one', 'b two'],
      [c]: ['c one'],
    };
    for (const [namespace, list] of Object.entries(texts)) {
      for (const text of list) await write(key, namespace, text);
    }
    const recordsOf = (doc: ExportDoc) => sorted(doc.records.map((r) => `${r.namespace} ${r.text}`));
    const expected = (...namespaces: string[]) =>
      sorted(namespaces.flatMap((n) => (texts[n] ?? []).map((text) => `${n} ${text}`)));

    const onlyA = await exportOf(key, [a]);
    expect(onlyA.selection).toEqual({ namespaces: [a] });
    expect(recordsOf(onlyA)).toEqual(expected(a));

    const all = await exportOf(key);
    expect(all.selection).toEqual({ namespaces: null });
    expect(recordsOf(all)).toEqual(expected(a, b, c));

    const aAndC = await exportOf(key, [a, c]);
    expect(aAndC.selection).toEqual({ namespaces: [a, c] });
    expect(recordsOf(aAndC)).toEqual(expected(a, c));

    // A namespace named twice is selected once.
    const twice = await exportOf(key, [b, b]);
    expect(twice.selection).toEqual({ namespaces: [b] });
    expect(recordsOf(twice)).toEqual(expected(b));

    // A namespace with nothing in it exports nothing, and is no error.
    const empty = await exportOf(key, [uniqueNamespace('sel-none')]);
    expect(empty.records).toEqual([]);
    expect(empty.supersession_relations).toEqual([]);
    expect(empty.history).toEqual([]);

    // Up to 100 namespaces may be named.
    const hundred = [a, ...Array.from({ length: 99 }, (_, i) => `sel-many-${i}`)];
    const many = await exportOf(key, hundred);
    expect(many.selection.namespaces).toHaveLength(100);
    expect(recordsOf(many)).toEqual(expected(a));
  });

  it.each([
    ['an invalid namespace', { namespace: 'not a namespace!' }],
    ['an empty namespace', { namespace: '' }],
    ['a namespace starting with a dash', { namespace: ['ok-one', '-bad'] }],
    ['an unknown parameter', { ns: 'sel-a' }],
  ])('when the query holds %s, then 400 with the error envelope', async (_label, query) => {
    const tenant = await createTenant();
    const res = await t.api.get(EXPORT, { key: tenant.api_key, query });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      retryable: false,
      details: { code: 'validation_failed', fields: [expect.objectContaining({ path: expect.any(String) })] },
    });
    expect(typeof res.body.error).toBe('string');
    expect(res.body.request_id).toBe(res.body.details.request_id);
  });

  it('when more than 100 namespaces are named, then 400 names the namespace parameter', async () => {
    const tenant = await createTenant();
    const namespaces = Array.from({ length: 101 }, (_, i) => `too-many-${i}`);
    const res = await t.api.get(EXPORT, { key: tenant.api_key, query: { namespace: namespaces } });
    expect(res.status).toBe(400);
    expect(res.body.details).toMatchObject({
      code: 'validation_failed',
      fields: [{ path: 'namespace', message: expect.stringContaining('100') }],
    });
  });
});

describe('the download name', () => {
  it('when the request id holds quotes, a backslash and separators, then Content-Disposition keeps them quoted and escaped', async () => {
    const tenant = await createTenant();
    const requestId = `q"t\\b; filename="evil.sh", x=%`;
    const res = await t.api.get(EXPORT, { key: tenant.api_key, headers: headers(requestId) });
    expect(res).toMatchObject({
      status: 200,
      headers: {
        'x-request-id': requestId,
        'content-disposition': 'attachment; filename="export-q\\"t\\\\b; filename=\\"evil.sh\\", x=%.json"',
      },
    });
  });
});

describe('tenant isolation', () => {
  it("when another tenant exports, then none of this tenant's records, texts or request ids are in it", async () => {
    const a = await createTenant();
    const b = await createTenant();
    const shared = uniqueNamespace('shared'); // both tenants use this name
    const onlyA = uniqueNamespace('only-a');
    const onlyB = uniqueNamespace('only-b');
    const aTexts = [
      `alpha secret ${randomUUID()}`,
      `alpha private ${randomUUID()}`,
      `alpha hidden ${randomUUID()}`,
    ];
    const bTexts = [`bravo shared ${randomUUID()}`, `bravo own ${randomUUID()}`];
    const aIds = [rid('a-write'), rid('a-write'), rid('a-write'), rid('a-recall')];
    const bIds = [rid('b-write'), rid('b-write')];

    const aWrites = [
      await write(a.api_key, shared, aTexts[0] as string, {}, aIds[0]),
      await write(a.api_key, shared, aTexts[1] as string, {}, aIds[1]),
    ];
    aWrites.push(
      await write(
        a.api_key,
        onlyA,
        aTexts[2] as string,
        { supersedes: [aWrites[0]?.event_id ?? ''] },
        aIds[2],
      ),
    );
    const recalled = await t.api.post('/api/v1/memory/recall', {
      key: a.api_key,
      body: recallBody(shared, 'alpha'),
      headers: headers(aIds[3] as string),
    });
    expect(recalled.status).toBe(200);
    const bShared = await write(b.api_key, shared, bTexts[0] as string, {}, bIds[0]);
    const bOwn = await write(b.api_key, onlyB, bTexts[1] as string, {}, bIds[1]);

    // A's history has arrived (so its absence from B's export means something), and so has B's.
    const aDoc = await exportWhen(a.api_key, undefined, historyHas(aIds));
    expect(aDoc.records).toHaveLength(3);
    const bAll = await exportWhen(b.api_key, undefined, historyHas(bIds));

    const aSecrets = [
      ...aTexts,
      ...aIds,
      ...aWrites.map((w) => w.memory_id),
      ...aWrites.map((w) => w.event_id),
      a.tenant_id,
    ];
    expect(sorted(bAll.records.map((r) => r.memory_id))).toEqual(sorted([bShared.memory_id, bOwn.memory_id]));
    expect(sorted(bAll.records.map((r) => r.text))).toEqual(sorted(bTexts));
    expect(bAll.supersession_relations).toEqual([]);
    for (const id of ids(bAll.history)) expect(aIds).not.toContain(id);

    const bShared1 = await exportOf(b.api_key, [shared]);
    expect(bShared1.records.map((r) => r.memory_id)).toEqual([bShared.memory_id]);
    expect(ids(bShared1.history)).toEqual([bIds[0]]);

    // Naming only A's namespaces gets B nothing: not A's records, not A's history there.
    const bNamingA = await exportOf(b.api_key, [onlyA, shared]);
    expect(bNamingA.records.map((r) => r.memory_id)).toEqual([bShared.memory_id]);
    const bOnlyA = await exportOf(b.api_key, [onlyA]);
    expect(bOnlyA).toMatchObject({ records: [], supersession_relations: [], history: [] });

    for (const doc of [bAll, bShared1, bNamingA, bOnlyA]) {
      const text = JSON.stringify(doc);
      for (const secret of aSecrets) expect(text).not.toContain(secret);
    }
    // A's own namespace name appears only where B typed it (the echoed selection), never from A's data.
    for (const doc of [bAll, bShared1]) expect(JSON.stringify(doc)).not.toContain(onlyA);
  });
});

describe('export credentials', () => {
  it('when a key lacks export:read, then 403; without a credential, 401; with the owner session, 200', async () => {
    const tenant = await createTenant();
    const text = `owner session export ${randomUUID()}`;
    const namespace = uniqueNamespace('creds');
    await write(tenant.api_key, namespace, text);
    const session = await t.api.login(tenant.owner.email, tenant.owner.password);
    const created = await t.api.post(API_KEYS, {
      key: session,
      body: { name: 'telemetry-only', permissions: ['telemetry:read'] },
    });
    expect(created.status).toBe(201);
    const telemetryKey = created.body.key as string;
    // The key itself works where its permission is enough.
    expect((await t.api.get('/api/v1/infrastructure/events', { key: telemetryKey })).status).toBe(200);

    const denied = await t.api.get(EXPORT, { key: telemetryKey, query: { namespace } });
    expect(denied.status).toBe(403);
    expect(denied.body.details.code).toBe('permission_denied');
    expect(JSON.stringify(denied.body)).not.toContain(text);

    const anonymous = await t.api.get(EXPORT, { query: { namespace } });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.details.code).toBe('authentication_required');
    expect(JSON.stringify(anonymous.body)).not.toContain(text);

    const bySession = await exportOf(session, [namespace]);
    expect(bySession.records.map((r) => r.text)).toEqual([text]);

    // A session role without export:read is refused; one with it is served.
    for (const [role, status] of [
      ['viewer', 403],
      ['developer', 403],
      ['admin', 200],
    ] as const) {
      const email = `${role}-${randomUUID().slice(0, 8)}@example.test`;
      const password = `pw-${randomUUID()}`;
      const added = await t.api.post(USERS, { key: session, body: { email, password, role } });
      expect(added.status).toBe(201);
      const token = await t.api.login(email, password);
      const res = await t.api.get(EXPORT, { key: token, query: { namespace } });
      expect(res.status, role).toBe(status);
      if (status === 200) expect(res.body.records.map((r: ExportRecord) => r.text)).toEqual([text]);
      else expect(JSON.stringify(res.body)).not.toContain(text);
    }
  });
});

describe('export paging', () => {
  it('when a namespace holds more than a page of records, relations and history, then every one is exported exactly once', {
    timeout: 600_000,
  }, async () => {
    const tenant = await createTenant();
    const key = tenant.api_key;
    const namespace = uniqueNamespace('paging');
    const neighbour = uniqueNamespace('paging-next'); // sorts after: the last page must not spill into it
    const PLAIN = 1_050;
    const SUPERSEDING = 1_050;
    const plainIds = Array.from({ length: PLAIN }, (_, i) => `p${String(i).padStart(5, '0')}`);
    const supIds = Array.from({ length: SUPERSEDING }, (_, i) => `s${String(i).padStart(5, '0')}`);

    // Every request is history, a resent one's retryable answers too (a loaded machine gives a few).
    const requests: string[] = [];
    const plain = await inPool(plainIds, 20, (eventId) =>
      writeUntilStored(
        key,
        namespace,
        `plain ${eventId}`,
        { event_id: eventId, occurred_at: at(1) },
        requests,
      ),
    );
    // Each later event supersedes one earlier event: as many relations as superseding writes.
    const superseding = await inPool(supIds, 20, (eventId, i) =>
      writeUntilStored(
        key,
        namespace,
        `later ${eventId}`,
        { event_id: eventId, occurred_at: at(2), supersedes: [plainIds[i] as string] },
        requests,
      ),
    );
    await write(key, neighbour, 'neighbour record');

    const total = PLAIN + SUPERSEDING;
    const doc = await exportWhen(key, [namespace], (d) => d.history.length >= requests.length);

    expect(doc.counts).toEqual({
      records: total,
      supersession_relations: SUPERSEDING,
      history: requests.length,
    });
    const memoryIds = doc.records.map((r) => r.memory_id);
    expect(new Set(memoryIds).size).toBe(total);
    expect(sorted(memoryIds)).toEqual(sorted([...plain, ...superseding].map((w) => w.memory_id)));
    expect(sorted(doc.records.map((r) => r.event_id))).toEqual(sorted([...plainIds, ...supIds]));
    expect(doc.records.every((r) => r.namespace === namespace)).toBe(true);
    expect(
      doc.records
        .filter((r) => r.status === 'superseded')
        .map((r) => r.event_id)
        .sort(),
    ).toEqual(sorted(plainIds));

    const relationTargets = doc.supersession_relations.map((r) => r.target_event_id);
    expect(new Set(relationTargets).size).toBe(SUPERSEDING);
    expect(sorted(relationTargets)).toEqual(sorted(plainIds));
    expect(doc.supersession_relations.every((r) => r.status === 'superseded')).toBe(true);

    const historyIds = ids(doc.history);
    expect(new Set(historyIds).size).toBe(requests.length);
    expect(sorted(historyIds)).toEqual(sorted(requests));
    expect(doc.history.every((h) => h.operation === 'memory.write')).toBe(true);
    // One answered 200 per write; a resent write's earlier attempts are its retryable answers.
    expect(doc.history.filter((h) => h.status === 200)).toHaveLength(total);
  });
});
