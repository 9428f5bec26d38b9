import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { followDeletion, holdJob } from '../support/deletions.js';
import { eventually } from '../support/eventually.js';
import { createTenant, recallBody, uniqueKey, uniqueNamespace, writeBody } from '../support/factories.js';
import { memoryDbCount } from '../support/memory-db.js';
import { useStack } from '../support/stack.js';
import { eventsFor } from '../support/telemetry.js';
import { templateDbCount } from '../support/template-db.js';
import { bugTemplate, templateSteps, uniqueName } from '../support/templates.js';
import { usageInStream } from '../support/usage-stream.js';

/** Namespace deletions one record per batch, so one can be held in progress (holdJob). */
const t = useStack({ memoryEnv: { MEMORY_DELETE_BATCH_SIZE: '1', MEMORY_DELETE_WAIT_MS: '0' } });
const { createTemplate, createMemory } = templateSteps(t);

const iso = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/);
const forget = (key: string, memoryId: string, headers: Record<string, string> = {}) =>
  t.api.delete(`/v1/memories/${memoryId}`, { key, headers });
const read = (key: string, memoryId: string) => t.api.get(`/v1/memories/${memoryId}`, { key });
/** A term no other test's text holds, so a cue of it matches exactly this test's texts. */
const uniqueTerm = () => `tag${randomUUID().replaceAll('-', '')}`;

const postingsOf = (memoryId: string) =>
  memoryDbCount('SELECT count(*) AS n FROM memory_term WHERE memory_id = $1::uuid', [memoryId]);

/** A namespace's records and relations as the export streams them. */
async function exported(key: string, namespace: string) {
  const res = await t.api.get('/api/v1/infrastructure/export', { key, query: { namespace: [namespace] } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const doc = JSON.parse(res.text) as {
    records: Array<{ memory_id: string; event_id: string; status: string }>;
    supersession_relations: Array<Record<string, unknown>>;
  };
  return doc;
}

async function written(
  key: string,
  namespace: string,
  text: string,
  event: Parameters<typeof writeBody>[2] = {},
) {
  const idempotencyKey = uniqueKey();
  const res = await t.api.write(key, writeBody(namespace, text, event), idempotencyKey);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return { memoryId: res.body.memory_id as string, idempotencyKey, body: writeBody(namespace, text, event) };
}

describe('DELETE /v1/memories/{memory_id}', () => {
  it('when a memory is forgotten, then it answers a receipt and the memory is gone from reads, recall and export, with its postings', async () => {
    const tenant = await createTenant();
    const namespace = uniqueNamespace('forget');
    const term = uniqueTerm();
    const kept = await written(tenant.api_key, namespace, `Bob keeps ${term} in the shed`);
    const gone = await written(tenant.api_key, namespace, `Alice hides ${term} under the stairs`);
    expect(await postingsOf(gone.memoryId)).toBe(6);

    const res = await forget(tenant.api_key, gone.memoryId, { 'X-Request-Id': 'forget-1' });

    expect(res).toMatchObject({
      status: 200,
      body: {
        contract_version: 'v1',
        operation: 'memory.forget',
        state: 'not_retained',
        request_id: 'forget-1',
        original_request_id: 'forget-1',
        retryable: false,
        idempotency_outcome: 'Accepted',
        memory_id: gone.memoryId,
        namespace,
        deleted: 1,
        retained: 0,
        removed: { postings: 6, supersession_relations: 0 },
        unresolved_relations: 0,
        reinstated: [],
        forgotten_at: iso,
      },
    });
    expect(JSON.stringify(res.body)).not.toContain('Alice');
    expect(await read(tenant.api_key, gone.memoryId)).toMatchObject({
      status: 404,
      body: { details: { code: 'not_found' } },
    });
    const recall = await t.api.recall(tenant.api_key, recallBody(namespace, term));
    expect(recall.body.related.map((r: { memory_id: string }) => r.memory_id)).toEqual([kept.memoryId]);
    expect((await exported(tenant.api_key, namespace)).records.map((r) => r.memory_id)).toEqual([
      kept.memoryId,
    ]);
    expect(await postingsOf(gone.memoryId)).toBe(0);
    expect(await postingsOf(kept.memoryId)).toBe(6);
  });

  it('when the same DELETE is sent again, then it answers the first receipt as Replayed, and another tenant or an unknown id gets 404', async () => {
    const tenant = await createTenant();
    const other = await createTenant();
    const namespace = uniqueNamespace('forget-again');
    const gone = await written(tenant.api_key, namespace, 'A note to forget twice');
    const first = await forget(tenant.api_key, gone.memoryId, { 'X-Request-Id': 'forget-first' });
    expect(first.status).toBe(200);

    const again = await forget(tenant.api_key, gone.memoryId, { 'X-Request-Id': 'forget-again' });
    const foreign = await forget(other.api_key, gone.memoryId);
    const unknown = await forget(tenant.api_key, randomUUID());
    const notAnId = await forget(tenant.api_key, 'not-a-uuid');

    expect(again).toMatchObject({
      status: 200,
      body: {
        ...first.body,
        request_id: 'forget-again',
        original_request_id: 'forget-first',
        idempotency_outcome: 'Replayed',
      },
    });
    for (const res of [foreign, unknown, notAnId]) {
      expect(res).toMatchObject({ status: 404, body: { details: { code: 'not_found' } } });
    }
  });

  it('when another tenant asks to forget a memory, then it is 404 and the memory stays, readable and recalled', async () => {
    const tenant = await createTenant();
    const other = await createTenant();
    const namespace = uniqueNamespace('forget-foreign');
    const term = uniqueTerm();
    const mine = await written(tenant.api_key, namespace, `Carol's ${term} stays`);

    const res = await forget(other.api_key, mine.memoryId);

    expect(res).toMatchObject({ status: 404, body: { details: { code: 'not_found' } } });
    expect(await read(tenant.api_key, mine.memoryId)).toMatchObject({
      status: 200,
      body: { state: 'retained' },
    });
    const recall = await t.api.recall(tenant.api_key, recallBody(namespace, term));
    expect(recall.body.related).toHaveLength(1);
  });

  it('when the write that created it is sent again, then it replays as forgotten and never writes it again; the key with another body is 409', async () => {
    const tenant = await createTenant();
    const namespace = uniqueNamespace('forget-key');
    const term = uniqueTerm();
    const gone = await written(tenant.api_key, namespace, `Dave's ${term} code is 1234`, {
      event_id: 'evt-dave',
    });
    const forgotten = await forget(tenant.api_key, gone.memoryId);

    const retry = await t.api.write(tenant.api_key, gone.body, gone.idempotencyKey);
    const changed = await t.api.write(
      tenant.api_key,
      writeBody(namespace, `Dave's ${term} code is 9999`, { event_id: 'evt-dave' }),
      gone.idempotencyKey,
    );

    expect(retry).toMatchObject({
      status: 200,
      body: {
        state: 'not_retained',
        idempotency_outcome: 'Replayed',
        memory_id: gone.memoryId,
        event_id: 'evt-dave',
        forgotten_at: forgotten.body.forgotten_at,
      },
    });
    expect(changed).toMatchObject({ status: 409, body: { details: { code: 'idempotency_conflict' } } });
    expect(
      await memoryDbCount('SELECT count(*) AS n FROM memory_record WHERE id = $1::uuid', [gone.memoryId]),
    ).toBe(0);
    const recall = await t.api.recall(tenant.api_key, recallBody(namespace, term));
    expect(recall.body.related).toEqual([]);
    // The event id is free again: a new write under a new key retains it, as a new memory.
    const anew = await t.api.write(tenant.api_key, gone.body, uniqueKey());
    expect(anew).toMatchObject({ status: 200, body: { state: 'retained', idempotency_outcome: 'Accepted' } });
    expect(anew.body.memory_id).not.toBe(gone.memoryId);
  });

  it('when it supersedes one memory and is superseded by another, then the one it superseded is current again and the later relation is unresolved', async () => {
    const tenant = await createTenant();
    const namespace = uniqueNamespace('forget-chain');
    const term = uniqueTerm();
    const first = await written(tenant.api_key, namespace, `Erin lives in Porto ${term}`, {
      event_id: 'evt-porto',
      occurred_at: '2026-01-01T00:00:00Z',
    });
    const middle = await written(tenant.api_key, namespace, `Erin lives in Braga ${term}`, {
      event_id: 'evt-braga',
      occurred_at: '2026-02-01T00:00:00Z',
      supersedes: ['evt-porto', 'evt-never-written'],
    });
    const last = await written(tenant.api_key, namespace, `Erin lives in Faro ${term}`, {
      event_id: 'evt-faro',
      occurred_at: '2026-03-01T00:00:00Z',
      supersedes: ['evt-braga'],
    });
    expect(await read(tenant.api_key, first.memoryId)).toMatchObject({ body: { state: 'superseded' } });

    const res = await forget(tenant.api_key, middle.memoryId);

    expect(res).toMatchObject({
      status: 200,
      body: {
        removed: { supersession_relations: 2 },
        unresolved_relations: 1,
        reinstated: [first.memoryId],
      },
    });
    expect(await read(tenant.api_key, first.memoryId)).toMatchObject({
      status: 200,
      body: { state: 'retained', superseded_at: null },
    });
    expect(await read(tenant.api_key, last.memoryId)).toMatchObject({
      status: 200,
      body: { state: 'retained' },
    });
    const recall = await t.api.recall(tenant.api_key, recallBody(namespace, term));
    expect(recall.body.related.map((r: { event_id: string }) => r.event_id).sort()).toEqual([
      'evt-faro',
      'evt-porto',
    ]);
    const doc = await exported(tenant.api_key, namespace);
    expect(doc.records.map((r) => r.event_id).sort()).toEqual(['evt-faro', 'evt-porto']);
    expect(doc.supersession_relations).toEqual([
      expect.objectContaining({
        superseding_event_id: 'evt-faro',
        target_event_id: 'evt-braga',
        status: 'unresolved',
      }),
    ]);
  });

  it('when a memory it superseded is also superseded by another, then that memory stays superseded, since the other one', async () => {
    const tenant = await createTenant();
    const namespace = uniqueNamespace('forget-two');
    const old = await written(tenant.api_key, namespace, 'Frank drives a red car', {
      event_id: 'evt-red',
      occurred_at: '2026-01-01T00:00:00Z',
    });
    const early = await written(tenant.api_key, namespace, 'Frank drives a blue car', {
      event_id: 'evt-blue',
      occurred_at: '2026-02-01T00:00:00Z',
      supersedes: ['evt-red'],
    });
    await written(tenant.api_key, namespace, 'Frank drives a green car', {
      event_id: 'evt-green',
      occurred_at: '2026-04-01T00:00:00Z',
      supersedes: ['evt-red'],
    });
    expect(await read(tenant.api_key, old.memoryId)).toMatchObject({
      body: { superseded_at: '2026-02-01T00:00:00.000Z' },
    });

    const res = await forget(tenant.api_key, early.memoryId);

    expect(res).toMatchObject({
      status: 200,
      body: { reinstated: [], removed: { supersession_relations: 1 } },
    });
    expect(await read(tenant.api_key, old.memoryId)).toMatchObject({
      status: 200,
      body: { state: 'superseded', superseded_at: '2026-04-01T00:00:00.000Z' },
    });
  });

  it('when a memory is forgotten while a write supersedes it and what it superseded, then neither answers 500: each succeeds or is a retryable 503 whose retry succeeds', async () => {
    // Forgetting B locks B, then A (to reinstate it); a write superseding A and B may lock A, then
    // B. PostgreSQL breaks such a deadlock by aborting one transaction, which must be a retry.
    const tenant = await createTenant();
    const untilDone = async (send: () => ReturnType<typeof forget>) => {
      const answers: number[] = [];
      for (;;) {
        const res = await send();
        answers.push(res.status);
        if (res.status !== 503 || res.body.retryable !== true || answers.length >= 10)
          return { res, answers };
        await new Promise((r) => setTimeout(r, 200));
      }
    };
    const rounds = await Promise.all(
      Array.from({ length: 8 }, async (_, round) => {
        const namespace = uniqueNamespace('forget-race');
        await written(tenant.api_key, namespace, `Ivo works at the mill ${round}`, { event_id: 'evt-a' });
        const b = await written(tenant.api_key, namespace, `Ivo works at the bakery ${round}`, {
          event_id: 'evt-b',
          supersedes: ['evt-a'],
        });
        const cKey = uniqueKey();
        const c = writeBody(namespace, `Ivo works at the harbour ${round}`, {
          event_id: 'evt-c',
          occurred_at: '2026-12-01T00:00:00Z',
          supersedes: ['evt-a', 'evt-b'],
        });
        const [forgot, wrote] = await Promise.all([
          untilDone(() => forget(tenant.api_key, b.memoryId)),
          untilDone(() => t.api.write(tenant.api_key, c, cKey)),
        ]);
        return { namespace, forgot, wrote };
      }),
    );

    for (const { namespace, forgot, wrote } of rounds) {
      expect([...forgot.answers, ...wrote.answers].filter((s) => s !== 200 && s !== 503)).toEqual([]);
      expect(forgot.res).toMatchObject({ status: 200, body: { deleted: 1 } });
      expect(wrote.res).toMatchObject({ status: 200, body: { state: 'retained' } });
      // Whichever went first, the end is the same: A superseded by C, B gone, C's relation to B unresolved.
      const doc = await exported(tenant.api_key, namespace);
      expect(doc.records.map((r) => [r.event_id, r.status]).sort()).toEqual([
        ['evt-a', 'superseded'],
        ['evt-c', 'current'],
      ]);
      expect(doc.supersession_relations.map((r) => [r.target_event_id, r.status]).sort()).toEqual([
        ['evt-a', 'superseded'],
        ['evt-b', 'unresolved'],
      ]);
    }
  });

  it('when a memory was made from a template, then its template data goes too and a retried create does not bring it back', async () => {
    const tenant = await createTenant();
    const namespace = uniqueNamespace('forget-tpl');
    const template = await createTemplate(tenant.api_key, bugTemplate(uniqueName('bug')));
    const body = {
      template_name: template.template_name,
      namespace,
      data: { title: 'Login fails', severity: 3 },
    };
    const key = uniqueKey();
    const made = await createMemory(tenant.api_key, body, key);
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const memoryId = made.body.memory_id as string;

    const res = await forget(tenant.api_key, memoryId);
    const retried = await createMemory(tenant.api_key, body, key);
    const retriedAgain = await createMemory(tenant.api_key, body, key);

    expect(res).toMatchObject({ status: 200, body: { memory_id: memoryId, namespace } });
    expect(await read(tenant.api_key, memoryId)).toMatchObject({ status: 404 });
    for (const again of [retried, retriedAgain]) {
      expect(again).toMatchObject({
        status: 200,
        body: { state: 'not_retained', memory_id: null, idempotency_outcome: 'Replayed' },
      });
    }
    expect(
      await memoryDbCount('SELECT count(*) AS n FROM memory_record WHERE namespace = $1', [namespace]),
    ).toBe(0);
    // Its data and rendered text are gone from the template service; the claim stays, redacted.
    expect(
      await templateDbCount('SELECT count(*) AS n FROM template_memory WHERE memory_id = $1', [memoryId]),
    ).toBe(0);
    expect(
      await templateDbCount(
        'SELECT count(*) AS n FROM memory_request WHERE tenant_id = $1 AND idempotency_key = $2 AND text IS NULL AND data IS NULL',
        [tenant.tenant_id, key],
      ),
    ).toBe(1);
  });

  it('when the memory service or the template service is down, then forgetting is a retryable 503 and the memory stays; once back, the same DELETE forgets it', async () => {
    const tenant = await createTenant();
    const namespace = uniqueNamespace('forget-down');
    const term = uniqueTerm();
    const target = await written(tenant.api_key, namespace, `Hana's ${term} stays until asked again`);

    await t.stack.stopMemory();
    let withoutMemory: Awaited<ReturnType<typeof forget>>;
    try {
      withoutMemory = await forget(tenant.api_key, target.memoryId);
    } finally {
      await t.stack.startMemory();
    }
    await t.stack.stopTemplate();
    let withoutTemplates: Awaited<ReturnType<typeof forget>>;
    try {
      withoutTemplates = await forget(tenant.api_key, target.memoryId);
    } finally {
      await t.stack.startTemplate();
    }
    const stillThere = await t.api.recall(tenant.api_key, recallBody(namespace, term));
    const retried = await eventually(async () => {
      const res = await forget(tenant.api_key, target.memoryId);
      expect(res.status).toBe(200);
      return res;
    });

    for (const res of [withoutMemory, withoutTemplates]) {
      expect(res).toMatchObject({ status: 503, body: { retryable: true } });
    }
    expect(stillThere.body.related.map((r: { memory_id: string }) => r.memory_id)).toEqual([target.memoryId]);
    expect(retried.body).toMatchObject({ memory_id: target.memoryId, idempotency_outcome: 'Accepted' });
    expect(await read(tenant.api_key, target.memoryId)).toMatchObject({ status: 404 });
  });

  it('when its namespace is being deleted, then forgetting it is 404, as reading it is', async () => {
    const tenant = await createTenant();
    const namespace = uniqueNamespace('forget-deleting');
    const target = await written(tenant.api_key, namespace, 'A record in a namespace on its way out');
    for (let i = 0; i < 40; i++) await written(tenant.api_key, namespace, `filler ${i}`);
    const started = await t.api.deleteNamespace(tenant.api_key, namespace);
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    const release = await holdJob(started.body.deletion.id);
    try {
      expect(await forget(tenant.api_key, target.memoryId)).toMatchObject({ status: 404 });
    } finally {
      await release();
    }
    await followDeletion(t.api, tenant.api_key, started.body.deletion.id);
  });

  it('when a memory is forgotten, then nothing is billed and one request record says memory.forget, without its text', async () => {
    const tenant = await createTenant();
    const namespace = uniqueNamespace('forget-record');
    const gone = await written(tenant.api_key, namespace, 'Grace whispers a secret phrase');
    const requestId = `forget-${randomUUID()}`;

    const res = await forget(tenant.api_key, gone.memoryId, { 'X-Request-Id': requestId });

    expect(res.status).toBe(200);
    const [event] = await eventsFor(t.api, tenant.api_key, [requestId]);
    expect(event).toMatchObject({
      request_id: requestId,
      operation: 'memory.forget',
      route: '/v1/memories/{memory_id}',
      method: 'DELETE',
      status: 200,
      state: 'not_retained',
      units: 0,
      billing_state: 'no_data',
    });
    expect(JSON.stringify(event)).not.toContain('secret phrase');
    // The write's usage row reaches the stream; the forget writes none.
    await t.stack.memory.flushOutbox();
    await eventually(async () => {
      const records = await usageInStream(tenant.tenant_id);
      expect(records.map((r) => r.operation)).toEqual(['memory.write']);
    });
    expect(
      // No usage row for it (its memory.deleted event, for webhooks, is another subject).
      await memoryDbCount(
        'SELECT count(*) AS n FROM outbox_message WHERE subject = $1 AND payload::text LIKE $2',
        ['memory.v1.usage.recorded', `%${requestId}%`],
      ),
    ).toBe(0);
  });
});
