import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { EVENTUALLY } from '../support/eventually.js';
import { createTenant, recallBody, uniqueKey, uniqueNamespace } from '../support/factories.js';
import { useStack } from '../support/stack.js';
import { bugTemplate, iso, templateSteps, uniqueName } from '../support/templates.js';

const t = useStack();
const { createMemory, createTemplate } = templateSteps(t);

describe('POST /v1/memories, GET /v1/memories/{memory_id}', () => {
  it('when data fits a private template, then it is retained as rendered text, readable and recalled in its namespace', async () => {
    const tenant = await createTenant();
    const name = uniqueName('bug');
    const template = await createTemplate(tenant.api_key, bugTemplate(name));
    const namespace = uniqueNamespace('bugs');
    const data = { title: 'Checkout button unresponsive', severity: 2, steps: ['add item', 'click pay'] };

    const created = await createMemory(tenant.api_key, { template_name: name, data, namespace }, uniqueKey());
    const read = await t.api.get(`/v1/memories/${created.body.memory_id}`, { key: tenant.api_key });
    const recalled = await t.api.recall(tenant.api_key, recallBody(namespace, 'checkout unresponsive'));

    const text = 'Bug "Checkout button unresponsive" severity 2. Steps: add item, click pay.';
    const metadata = {
      source: 'private',
      template_id: template.id,
      template_name: name,
      template_version: '1',
      template_revision: 1,
      marketplace_template_id: null,
    };
    expect(created).toMatchObject({
      status: 201,
      body: {
        operation: 'template.memory.create',
        state: 'retained',
        memory_id: expect.any(String),
        idempotency_outcome: 'Accepted',
        namespace,
        text,
        template: metadata,
        usage: { billing_state: 'billable', operation_units: 1, sandbox: true },
        created_at: iso,
      },
    });
    expect(read).toMatchObject({
      status: 200,
      body: { memory_id: created.body.memory_id, namespace, data, text, template: metadata, created_at: iso },
    });
    expect(recalled).toMatchObject({
      status: 200,
      body: {
        state: 'retained',
        related: [{ memory_id: created.body.memory_id, text, source: { type: 'template' } }],
      },
    });
  });

  it('when data fits a marketplace template, then it is retained in the default namespace with marketplace metadata', async () => {
    const tenant = await createTenant();
    const data = {
      title: `Roadmap review ${randomUUID().slice(0, 6)}`,
      date: '2026-11-20',
      attendees: ['Ana', 'Ben'],
      summary: 'Agreed to ship search first.',
    };

    const created = await createMemory(tenant.api_key, { marketplace_template_id: 'meeting-notes', data });
    const read = await t.api.get(`/v1/memories/${created.body.memory_id}`, { key: tenant.api_key });
    const recalled = await t.api.recall(tenant.api_key, recallBody('templates', data.title));

    // decisions and action_items were left out: their phrases are dropped, not filled with "none"
    const text = `Meeting "${data.title}" on 2026-11-20 with Ana, Ben. Summary: Agreed to ship search first.`;
    const metadata = {
      source: 'marketplace',
      template_id: null,
      template_name: 'Meeting notes',
      template_version: '2',
      template_revision: null,
      marketplace_template_id: 'meeting-notes',
    };
    expect(created).toMatchObject({
      status: 201,
      body: { state: 'retained', namespace: 'templates', text, template: metadata },
    });
    expect(read).toMatchObject({
      status: 200,
      body: { namespace: 'templates', data, text, template: metadata },
    });
    expect(recalled.body.related).toEqual([
      expect.objectContaining({ memory_id: created.body.memory_id, text }),
    ]);
  });

  it('when the data does not fit the template, then 400 names each path and nothing is retained', async () => {
    const tenant = await createTenant();
    const name = uniqueName();
    await createTemplate(tenant.api_key, bugTemplate(name));
    const namespace = uniqueNamespace();

    const res = await createMemory(tenant.api_key, {
      template_name: name,
      namespace,
      data: { severity: 'high', reproducible: 1, priority: 'p1' },
    });
    const recalled = await t.api.recall(tenant.api_key, recallBody(namespace, 'high'));

    expect(res).toMatchObject({ status: 400, body: { details: { code: 'validation_failed' } } });
    expect(res.body.details.fields).toEqual([
      { path: 'data.title', message: 'is required' },
      { path: 'data.severity', message: 'must be a finite number' },
      { path: 'data.reproducible', message: 'must be true or false' },
      { path: 'data.priority', message: 'is not a field of the template' },
    ]);
    expect(recalled.body.state).toBe('no_data');
  });

  it('when a list value nests 40 levels (past the data bound, within the body bound), then 400 at its field on every try, and nothing is retained or charged', async () => {
    const tenant = await createTenant();
    const session = await t.api.login(tenant.owner.email, tenant.owner.password);
    const namespace = uniqueNamespace('deep');
    const key = uniqueKey();
    let attendees: unknown = 'Ana';
    // 40: deeper than template data may nest (32), not as deep as a body may (64, refused at parse
    // time in request-bodies.test.ts), so the data's own bound answers, at its field.
    for (let i = 0; i < 40; i++) attendees = [attendees];
    const body = {
      marketplace_template_id: 'meeting-notes',
      namespace,
      data: { title: 'Deep review', date: '2026-11-20', summary: 'Nested lists.', attendees },
    };

    const first = await createMemory(tenant.api_key, body, key);
    const retry = await createMemory(tenant.api_key, body, key);
    // A memory that is charged: once its charge shows, billing has seen everything sent before it.
    const controlKey = uniqueKey();
    const control = await createMemory(
      tenant.api_key,
      { marketplace_template_id: 'task', namespace: uniqueNamespace('control'), data: { title: 'Control' } },
      controlKey,
    );
    await t.stack.memory.flushOutbox();
    const charges = () => t.api.get('/api/v1/control/billing/charges', { key: session });
    await expect.poll(async () => (await charges()).body.paging.total, EVENTUALLY).toBeGreaterThanOrEqual(1);
    const charged = await charges();
    const usage = await t.api.get('/api/v1/infrastructure/usage', { key: tenant.api_key });
    // Read after the charges and usage: the recall is charged too, and its charge may already be in.
    const recalled = await t.api.recall(tenant.api_key, recallBody(namespace, 'deep review nested'));

    const refused = {
      status: 400,
      body: {
        retryable: false,
        details: {
          code: 'validation_failed',
          fields: [{ path: 'data.attendees', message: 'nests objects and lists deeper than 32 levels' }],
        },
      },
    };
    expect(first).toMatchObject(refused);
    expect(retry).toMatchObject(refused);
    expect(control.status).toBe(201);
    expect(recalled).toMatchObject({ status: 200, body: { state: 'no_data', related: [] } });
    expect(charged.body).toMatchObject({
      data: [{ idempotency_key: controlKey, operation: 'memory.write', state: 'recorded' }],
      paging: { total: 1 },
    });
    expect(usage.body).toMatchObject({
      request_volume: 1,
      operations: [{ operation: 'memory.write', requests: 1, units: 1 }],
    });
  });

  it.each([
    [
      'both template_name and marketplace_template_id',
      { template_name: 'a', marketplace_template_id: 'task' },
    ],
    ['neither template_name nor marketplace_template_id', {}],
  ])('when the body gives %s, then 400', async (_label, ref) => {
    const tenant = await createTenant();

    const res = await createMemory(tenant.api_key, { ...ref, data: { title: 'x' } });

    expect(res).toMatchObject({
      status: 400,
      body: {
        details: { fields: [{ message: 'give exactly one of template_name and marketplace_template_id' }] },
      },
    });
  });

  it('when the namespace is invalid or reserved, then 400 at namespace', async () => {
    const tenant = await createTenant();

    for (const namespace of ['-bad', 'tm-smoke-test/x']) {
      const res = await createMemory(tenant.api_key, {
        marketplace_template_id: 'task',
        data: { title: 'x' },
        namespace,
      });
      expect(res).toMatchObject({ status: 400, body: { details: { fields: [{ path: 'namespace' }] } } });
    }
  });

  it('when the template is unknown, then 404 in the envelope', async () => {
    const tenant = await createTenant();

    const privateRes = await createMemory(tenant.api_key, { template_name: 'nope', data: {} });
    const marketRes = await createMemory(tenant.api_key, { marketplace_template_id: 'nope', data: {} });

    expect(privateRes).toMatchObject({
      status: 404,
      body: { error: 'No such template', details: { code: 'not_found' } },
    });
    expect(marketRes).toMatchObject({ status: 404, body: { details: { code: 'not_found' } } });
  });

  it('when the rendered text exceeds the memory text limit, then 400 at data', async () => {
    const tenant = await createTenant();

    const res = await createMemory(tenant.api_key, {
      marketplace_template_id: 'task',
      data: { title: 'x'.repeat(33_000) },
    });

    expect(res).toMatchObject({
      status: 400,
      body: { details: { fields: [{ path: 'data', message: expect.stringContaining('at most 32768') }] } },
    });
  });

  it('when the same Idempotency-Key comes again, then the first memory is replayed; with other data it is 409', async () => {
    const tenant = await createTenant();
    const key = uniqueKey();
    const body = { marketplace_template_id: 'task', data: { title: 'Renew certificate', owner: 'Ana' } };

    const first = await createMemory(tenant.api_key, body, key);
    const replay = await createMemory(tenant.api_key, body, key);
    const conflict = await createMemory(tenant.api_key, { ...body, data: { title: 'Something else' } }, key);

    expect(first).toMatchObject({
      status: 201,
      body: { idempotency_key: key, idempotency_outcome: 'Accepted' },
    });
    expect(replay).toMatchObject({
      status: 200,
      body: {
        state: 'retained',
        memory_id: first.body.memory_id,
        idempotency_outcome: 'Replayed',
        text: first.body.text,
        created_at: first.body.created_at,
      },
    });
    expect(conflict).toMatchObject({
      status: 409,
      body: { idempotency_outcome: 'Conflict', details: { code: 'idempotency_conflict' } },
    });
  });

  it('when the key user has not consented, then 200 not_retained with no memory id, and nothing is stored', async () => {
    const tenant = await createTenant({ consent: false });
    const namespace = uniqueNamespace();

    const res = await createMemory(tenant.api_key, {
      marketplace_template_id: 'contact',
      namespace,
      data: { full_name: 'Dana Scully' },
    });
    const recalled = await t.api.recall(tenant.api_key, recallBody(namespace, 'Dana Scully'));

    expect(res).toMatchObject({
      status: 200,
      body: {
        state: 'not_retained',
        memory_id: null,
        created_at: null,
        text: expect.stringContaining('Contact Dana Scully'),
        usage: { billing_state: 'no_data', operation_units: 0 },
        template: { source: 'marketplace', marketplace_template_id: 'contact' },
      },
    });
    expect(recalled.body).toMatchObject({ state: 'no_data', related: [] });
  });

  it('when the memory id is unknown, then 404', async () => {
    const tenant = await createTenant();

    const res = await t.api.get(`/v1/memories/${randomUUID()}`, { key: tenant.api_key });

    expect(res).toMatchObject({
      status: 404,
      body: { error: 'No such memory', details: { code: 'not_found' } },
    });
  });
});

describe('DELETE /api/v1/memory for a namespace holding template memories', () => {
  it('when the namespace is deleted, then its template memories are gone, and the same Idempotency-Key makes a new memory', async () => {
    const tenant = await createTenant();
    const namespace = uniqueNamespace('tasks');
    const key = uniqueKey();
    const body = { marketplace_template_id: 'task', namespace, data: { title: 'File taxes' } };
    const created = await createMemory(tenant.api_key, body, key);
    const elsewhere = await createMemory(tenant.api_key, { ...body, namespace: uniqueNamespace('kept') });

    const deleted = await t.api.deleteNamespace(tenant.api_key, namespace);
    const gone = await t.api.get(`/v1/memories/${created.body.memory_id}`, { key: tenant.api_key });
    const kept = await t.api.get(`/v1/memories/${elsewhere.body.memory_id}`, { key: tenant.api_key });
    const again = await createMemory(tenant.api_key, body, key);

    expect(deleted).toMatchObject({ status: 200, body: { state: 'not_retained', deleted: 1 } });
    expect(gone).toMatchObject({ status: 404, body: { details: { code: 'not_found' } } });
    expect(kept).toMatchObject({ status: 200, body: { data: { title: 'File taxes' } } });
    expect(again).toMatchObject({
      status: 201,
      body: { state: 'retained', idempotency_outcome: 'Accepted' },
    });
    expect(again.body.memory_id).not.toBe(created.body.memory_id);
  });
});

describe('the template service down', () => {
  it('when it does not answer, then template routes and a namespace delete are retryable 503s and nothing is deleted; back up, all works', async () => {
    const tenant = await createTenant();
    const namespace = uniqueNamespace('outage');
    const created = await createMemory(tenant.api_key, {
      marketplace_template_id: 'task',
      namespace,
      data: { title: 'Renew passport' },
    });
    expect(created.status).toBe(201);

    await t.stack.stopTemplate();
    try {
      const list = await t.api.get('/v1/templates', { key: tenant.api_key });
      const memory = await t.api.post('/v1/memories', {
        key: tenant.api_key,
        body: { marketplace_template_id: 'task', namespace, data: { title: 'Another' } },
      });
      const deleted = await t.api.deleteNamespace(tenant.api_key, namespace);

      for (const res of [list, memory, deleted]) {
        expect(res.status).toBe(503);
        expect(res.body).toMatchObject({ retryable: true, details: { code: 'service_unavailable' } });
      }
    } finally {
      await t.stack.startTemplate();
    }
    // The failed delete removed nothing: the memory is still recallable and readable.
    const recall = await t.api.recall(tenant.api_key, recallBody(namespace, 'Renew passport'));
    expect(recall.body.related.map((r: { memory_id: string }) => r.memory_id)).toEqual([
      created.body.memory_id,
    ]);
    await expect
      .poll(
        async () =>
          (await t.api.get(`/v1/memories/${created.body.memory_id}`, { key: tenant.api_key })).status,
      )
      .toBe(200);
  });
});
