import { randomUUID } from 'node:crypto';
import { CreateTemplateRequest } from '@tm/contracts';
import { describe, expect, it } from 'vitest';
import { createTenant, recallBody, uniqueKey, uniqueNamespace } from './support/factories.js';
import { useStack } from './support/stack.js';
import { eventsFor } from './support/telemetry.js';

const t = useStack();

const iso = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/);
const uuid = expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
const uniqueName = (label = 'tpl') => `${label}-${randomUUID().slice(0, 8)}`;

const bugTemplate = (name: string) => ({
  template_name: name,
  description: 'A bug as a customer reported it',
  fields: [
    { name: 'title', type: 'string', description: 'Short summary', required: true },
    { name: 'severity', type: 'number', description: '1 (worst) to 4' },
    { name: 'reproducible', type: 'boolean', description: 'Seen twice?' },
    { name: 'steps', type: 'list', description: 'How to reproduce' },
  ],
  format: 'Bug "{title}" severity {severity|unknown}. Steps: {steps|none}.',
});

async function createTemplate(key: string, body: object) {
  const res = await t.api.post('/v1/templates', { key, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; template_name: string; version: string };
}

async function createMemory(key: string, body: object, idempotencyKey?: string) {
  return t.api.post('/v1/memories', {
    key,
    body,
    headers: idempotencyKey ? { 'Idempotency-Key': idempotencyKey } : {},
  });
}

describe('POST /v1/templates, GET /v1/templates', () => {
  it('when a tenant creates a template, then 201 at version "1", readable by name and by id and listed', async () => {
    const tenant = await createTenant();
    const name = uniqueName('bug');

    const created = await t.api.post('/v1/templates', { key: tenant.api_key, body: bugTemplate(name) });
    const byName = await t.api.get(`/v1/templates/${name}`, { key: tenant.api_key });
    const byId = await t.api.get(`/v1/templates/${created.body.id}`, { key: tenant.api_key });
    const list = await t.api.get('/v1/templates', { key: tenant.api_key });

    const template = {
      id: uuid,
      template_name: name,
      description: 'A bug as a customer reported it',
      version: '1',
      revision: 1,
      fields: bugTemplate(name).fields.map((f) => ({ required: false, ...f })),
      format: bugTemplate(name).format,
      created_at: iso,
      updated_at: iso,
    };
    expect(created).toMatchObject({ status: 201, headers: { etag: '"1"' }, body: template });
    expect(byName).toMatchObject({ status: 200, headers: { etag: '"1"' }, body: created.body });
    expect(byId).toMatchObject({ status: 200, body: created.body });
    expect(list).toMatchObject({
      status: 200,
      body: {
        data: [created.body],
        paging: { limit: 50, offset: 0, returned: 1, total: 1, has_more: false, next_offset: null },
      },
    });
  });

  it('when a tenant has several templates, then the list pages by name with limit and offset', async () => {
    const tenant = await createTenant();
    const names = ['alpha', 'bravo', 'charlie'].map((n) => `${n}-${randomUUID().slice(0, 4)}`);
    for (const name of names) await createTemplate(tenant.api_key, bugTemplate(name));

    const first = await t.api.get('/v1/templates', { key: tenant.api_key, query: { limit: '2' } });
    const second = await t.api.get('/v1/templates', {
      key: tenant.api_key,
      query: { limit: '2', offset: '2' },
    });

    expect(first).toMatchObject({
      status: 200,
      body: { paging: { limit: 2, offset: 0, returned: 2, total: 3, has_more: true, next_offset: 2 } },
    });
    expect(second.body.paging).toMatchObject({ returned: 1, total: 3, has_more: false, next_offset: null });
    expect(
      [...first.body.data, ...second.body.data].map((x: { template_name: string }) => x.template_name),
    ).toEqual(names);
  });

  it('when a definition is invalid, then 400 validation_failed names each field at fault', async () => {
    const tenant = await createTenant();

    const badShape = await t.api.post('/v1/templates', {
      key: tenant.api_key,
      body: { template_name: '1-starts-with-digit', fields: [{ name: 'title', type: 'text' }] },
    });
    const badFields = await t.api.post('/v1/templates', {
      key: tenant.api_key,
      body: {
        template_name: uniqueName(),
        fields: [
          { name: 'title', type: 'string' },
          { name: 'title', type: 'number' },
        ],
        format: '{title} in {room}',
      },
    });

    expect(badShape).toMatchObject({
      status: 400,
      body: {
        retryable: false,
        details: {
          code: 'validation_failed',
          fields: [
            { path: 'template_name', message: expect.stringContaining('must start with a letter') },
            { path: 'fields.0.type', message: 'type must be one of string, number, boolean, object, list' },
          ],
        },
      },
    });
    expect(badFields).toMatchObject({
      status: 400,
      body: {
        details: {
          code: 'validation_failed',
          fields: [
            { path: 'fields.1.name', message: 'repeats the field name "title"' },
            { path: 'format', message: 'names the unknown field {room}' },
          ],
        },
      },
    });
    expect((await t.api.get('/v1/templates', { key: tenant.api_key })).body.paging.total).toBe(0);
  });

  it('when a name looks like a UUID, then 400: routes could not tell it from an id', async () => {
    const tenant = await createTenant();

    const res = await t.api.post('/v1/templates', {
      key: tenant.api_key,
      body: { ...bugTemplate('x'), template_name: `a${randomUUID().slice(1)}` },
    });

    expect(res).toMatchObject({
      status: 400,
      body: {
        details: { fields: [{ path: 'template_name', message: 'template_name must not look like a UUID' }] },
      },
    });
  });

  it('when the name is taken in the tenant, then 409 already_exists and the first template stays', async () => {
    const tenant = await createTenant();
    const name = uniqueName();
    const first = await createTemplate(tenant.api_key, bugTemplate(name));

    const again = await t.api.post('/v1/templates', {
      key: tenant.api_key,
      body: { ...bugTemplate(name), description: 'another' },
    });

    expect(again).toMatchObject({ status: 409, body: { details: { code: 'already_exists' } } });
    expect((await t.api.get(`/v1/templates/${name}`, { key: tenant.api_key })).body).toEqual(
      expect.objectContaining({ id: first.id, description: 'A bug as a customer reported it' }),
    );
  });

  it('when the template does not exist, then 404 not_found in the error envelope', async () => {
    const tenant = await createTenant();

    const byName = await t.api.get('/v1/templates/no-such-template', { key: tenant.api_key });
    const byId = await t.api.get(`/v1/templates/${randomUUID()}`, { key: tenant.api_key });

    for (const res of [byName, byId]) {
      expect(res).toMatchObject({
        status: 404,
        body: { error: 'No such template', details: { code: 'not_found' } },
      });
    }
  });

  it('when a key has only memory:recall, then it reads templates but creating one is 403', async () => {
    const tenant = await createTenant();
    const session = await t.api.login(tenant.owner.email, tenant.owner.password);
    const reader = await t.api.post('/api/v1/control/api-keys', {
      key: session,
      body: { name: 'reader', permissions: ['memory:recall'] },
    });

    const create = await t.api.post('/v1/templates', {
      key: reader.body.key,
      body: bugTemplate(uniqueName()),
    });
    const list = await t.api.get('/v1/templates', { key: reader.body.key });

    expect(create).toMatchObject({ status: 403, body: { details: { code: 'permission_denied' } } });
    expect(list).toMatchObject({ status: 200, body: { data: [] } });
  });

  it('when a template route is called, then the request record names the route, not the template', async () => {
    const tenant = await createTenant();
    const name = uniqueName('secret-plan');
    await createTemplate(tenant.api_key, bugTemplate(name));
    const requestId = `tpl-${randomUUID()}`;

    await t.api.get(`/v1/templates/${name}`, { key: tenant.api_key, headers: { 'X-Request-Id': requestId } });
    const events = await eventsFor(t.api, tenant.api_key, [requestId]);

    expect(events.find((e) => e.request_id === requestId)).toMatchObject({
      method: 'GET',
      route: '/v1/templates/{template_name_or_id}',
      operation: 'template.get',
      status: 200,
    });
    expect(JSON.stringify(events)).not.toContain(name);
  });
});

describe('PUT /v1/templates/{template_name_or_id}', () => {
  it('when a template is updated with If-Match, then its revision goes up and a stale ETag is 412', async () => {
    const tenant = await createTenant();
    const name = uniqueName();
    const created = await createTemplate(tenant.api_key, bugTemplate(name));
    const read = await t.api.get(`/v1/templates/${name}`, { key: tenant.api_key });
    const change = {
      description: 'Now with an owner',
      fields: [{ name: 'title', type: 'string', required: true }],
    };

    const second = await t.api.put(`/v1/templates/${name}`, {
      key: tenant.api_key,
      body: change,
      headers: { 'If-Match': String(read.headers.etag) },
    });
    const stale = await t.api.put(`/v1/templates/${created.id}`, {
      key: tenant.api_key,
      body: { ...change, description: 'lost update' },
      headers: { 'If-Match': String(read.headers.etag) },
    });
    const badHeader = await t.api.put(`/v1/templates/${created.id}`, {
      key: tenant.api_key,
      body: change,
      headers: { 'If-Match': 'W/"2"' },
    });
    const third = await t.api.put(`/v1/templates/${created.id}`, { key: tenant.api_key, body: change });

    expect(read.headers.etag).toBe('"1"');
    expect(second).toMatchObject({
      status: 200,
      headers: { etag: '"2"' },
      body: {
        id: created.id,
        template_name: name,
        version: '2',
        revision: 2,
        description: 'Now with an owner',
        fields: [{ name: 'title', type: 'string', description: '', required: true }],
      },
    });
    expect(second.body.format).toBeUndefined();
    expect(stale).toMatchObject({
      status: 412,
      body: {
        retryable: false,
        details: {
          code: 'precondition_failed',
          fields: [{ path: 'If-Match', message: 'must name the current revision "2"' }],
        },
      },
    });
    expect(badHeader).toMatchObject({
      status: 400,
      body: { details: { code: 'validation_failed', fields: [{ path: 'If-Match' }] } },
    });
    expect(third).toMatchObject({
      status: 200,
      body: { version: '3', revision: 3, description: 'Now with an owner' },
    });
  });

  it('when a create and an update send the spec’s version, then it is the template’s label and the revision counts on', async () => {
    const tenant = await createTenant();
    const name = uniqueName();

    const created = await t.api.post('/v1/templates', {
      key: tenant.api_key,
      body: { ...bugTemplate(name), version: '2.1' },
    });
    const relabelled = await t.api.put(`/v1/templates/${name}`, {
      key: tenant.api_key,
      body: { fields: bugTemplate(name).fields, version: '2.2', format: 'v2.2: {title}' },
      headers: { 'If-Match': '"1"' },
    });
    const memory = await createMemory(tenant.api_key, { template_name: name, data: { title: 'Labels' } });
    const unlabelled = await t.api.put(`/v1/templates/${name}`, {
      key: tenant.api_key,
      body: { fields: bugTemplate(name).fields },
    });
    const badLabel = await t.api.post('/v1/templates', {
      key: tenant.api_key,
      body: { ...bugTemplate(uniqueName()), version: 'two words' },
    });

    expect(created).toMatchObject({
      status: 201,
      headers: { etag: '"1"' },
      body: { version: '2.1', revision: 1 },
    });
    expect(relabelled).toMatchObject({ status: 200, body: { version: '2.2', revision: 2 } });
    expect(memory).toMatchObject({
      status: 201,
      body: { text: 'v2.2: Labels', template: { template_version: '2.2', template_revision: 2 } },
    });
    expect(unlabelled).toMatchObject({ status: 200, body: { version: '3', revision: 3 } });
    expect(badLabel).toMatchObject({
      status: 400,
      body: { details: { code: 'validation_failed', fields: [{ path: 'version' }] } },
    });
  });

  it('when an update renames the template or is invalid, then 400 and the version stays', async () => {
    const tenant = await createTenant();
    const name = uniqueName();
    await createTemplate(tenant.api_key, bugTemplate(name));

    const rename = await t.api.put(`/v1/templates/${name}`, {
      key: tenant.api_key,
      body: { ...bugTemplate('other-name'), version: '1' },
    });
    const invalid = await t.api.put(`/v1/templates/${name}`, {
      key: tenant.api_key,
      body: { fields: [{ name: 'x', type: 'string' }], format: '{y}' },
    });

    expect(rename).toMatchObject({ status: 400, body: { details: { fields: [{ path: 'template_name' }] } } });
    expect(invalid).toMatchObject({
      status: 400,
      body: { details: { fields: [{ path: 'format', message: 'names the unknown field {y}' }] } },
    });
    expect((await t.api.get(`/v1/templates/${name}`, { key: tenant.api_key })).body.version).toBe('1');
  });

  it('when a memory was created on version 1, then it keeps version 1 and its text after an update', async () => {
    const tenant = await createTenant();
    const name = uniqueName();
    await createTemplate(tenant.api_key, bugTemplate(name));
    const before = await createMemory(tenant.api_key, {
      template_name: name,
      data: { title: 'Login fails' },
    });

    await t.api.put(`/v1/templates/${name}`, {
      key: tenant.api_key,
      body: { fields: bugTemplate(name).fields, format: 'v2: {title}' },
      headers: { 'If-Match': '"1"' },
    });
    const kept = await t.api.get(`/v1/memories/${before.body.memory_id}`, { key: tenant.api_key });
    const after = await createMemory(tenant.api_key, { template_name: name, data: { title: 'Login fails' } });

    expect(kept).toMatchObject({
      status: 200,
      body: {
        text: 'Bug "Login fails" severity unknown. Steps: none.',
        template: { template_name: name, template_version: '1', template_revision: 1, source: 'private' },
      },
    });
    expect(after).toMatchObject({
      status: 201,
      body: { text: 'v2: Login fails', template: { template_version: '2', template_revision: 2 } },
    });
  });
});

describe('GET /v1/marketplace/templates', () => {
  it('then at least ten seeded entries are listed, each a valid definition', async () => {
    const tenant = await createTenant();

    const res = await t.api.get('/v1/marketplace/templates', {
      key: tenant.api_key,
      query: { limit: '200' },
    });

    expect(res.status).toBe(200);
    expect(res.body.paging.total).toBeGreaterThanOrEqual(10);
    expect(res.body.data).toHaveLength(res.body.paging.total);
    const ids = res.body.data.map((e: { marketplace_template_id: string }) => e.marketplace_template_id);
    expect(ids).toEqual(
      expect.arrayContaining([
        'meeting-notes',
        'customer-profile',
        'support-ticket',
        'product-feedback',
        'research-note',
        'contact',
        'task',
        'decision-record',
        'incident-report',
        'recipe',
      ]),
    );
    expect(new Set(res.body.data.map((e: { category: string }) => e.category)).size).toBeGreaterThanOrEqual(
      5,
    );
    for (const entry of res.body.data) {
      const check = CreateTemplateRequest.safeParse({
        template_name: 'x',
        fields: entry.fields,
        format: entry.format,
      });
      expect(check.success, `${entry.id}: ${JSON.stringify(check.error?.issues)}`).toBe(true);
    }
  });

  it('when filtered by category, then only that category is returned, with its total', async () => {
    const tenant = await createTenant();

    const res = await t.api.get('/v1/marketplace/templates', {
      key: tenant.api_key,
      query: { category: 'meetings' },
    });

    expect(res).toMatchObject({ status: 200, body: { paging: { total: 2, returned: 2, has_more: false } } });
    expect(
      res.body.data.map((e: { marketplace_template_id: string }) => e.marketplace_template_id).sort(),
    ).toEqual(['meeting-notes', 'one-on-one']);
  });

  it('when searched by keyword, then entries matching every word in name, description or keywords are returned', async () => {
    const tenant = await createTenant();
    const search = (query: Record<string, string>) =>
      t.api.get('/v1/marketplace/templates', { key: tenant.api_key, query });
    const ids = (res: { body: { data: Array<{ marketplace_template_id: string }> } }) =>
      res.body.data.map((e) => e.marketplace_template_id);

    const postmortem = await search({ keyword: 'POSTMORTEM' });
    const twoWords = await search({ keyword: 'customer support' });
    const inCategory = await search({ keyword: 'adr', category: 'engineering' });
    const none = await search({ keyword: 'zebra-unicorn' });
    const oldName = await search({ q: 'customer support' });
    const both = await search({ keyword: 'customer', q: 'support' });

    expect(ids(postmortem)).toEqual(['incident-report']);
    expect(ids(twoWords)).toEqual(['support-ticket']);
    expect(ids(inCategory)).toEqual(['decision-record']);
    expect(none).toMatchObject({ status: 200, body: { data: [], paging: { total: 0, returned: 0 } } });
    expect(ids(oldName)).toEqual(['support-ticket']);
    expect(ids(both)).toEqual(['support-ticket']);
  });

  it('when an entry is listed, then it carries the spec’s marketplace_template_id and template_name (and the older id and name)', async () => {
    const tenant = await createTenant();

    const res = await t.api.get('/v1/marketplace/templates', {
      key: tenant.api_key,
      query: { keyword: 'postmortem' },
    });

    expect(res).toMatchObject({
      status: 200,
      body: {
        data: [
          {
            marketplace_template_id: 'incident-report',
            template_name: 'Incident report',
            id: 'incident-report',
            name: 'Incident report',
            category: 'engineering',
            version: '1',
          },
        ],
      },
    });
  });

  it('when paged, then pages do not overlap and together hold every entry', async () => {
    const tenant = await createTenant();
    const page = (offset: number) =>
      t.api.get('/v1/marketplace/templates', {
        key: tenant.api_key,
        query: { limit: '4', offset: String(offset) },
      });

    const first = await page(0);
    const total = first.body.paging.total as number;
    const ids: string[] = [];
    for (let offset = 0; offset < total; offset += 4) {
      ids.push(
        ...(await page(offset)).body.data.map(
          (e: { marketplace_template_id: string }) => e.marketplace_template_id,
        ),
      );
    }

    expect(first.body.paging).toEqual({
      limit: 4,
      offset: 0,
      returned: 4,
      total,
      has_more: true,
      next_offset: 4,
    });
    expect(new Set(ids).size).toBe(total);
  });

  it('when a query is invalid, then 400 names the parameter', async () => {
    const tenant = await createTenant();

    const res = await t.api.get('/v1/marketplace/templates', {
      key: tenant.api_key,
      query: { limit: '0', category: 'Not A Slug' },
    });

    expect(res).toMatchObject({ status: 400, body: { details: { code: 'validation_failed' } } });
    expect(res.body.details.fields.map((f: { path: string }) => f.path).sort()).toEqual([
      'category',
      'limit',
    ]);
  });

  it('when one entry is fetched by id, then its whole definition is returned; an unknown id is 404', async () => {
    const tenant = await createTenant();

    const entry = await t.api.get('/v1/marketplace/templates/meeting-notes', { key: tenant.api_key });
    const missing = await t.api.get('/v1/marketplace/templates/no-such-entry', { key: tenant.api_key });

    expect(entry).toMatchObject({
      status: 200,
      body: {
        marketplace_template_id: 'meeting-notes',
        template_name: 'Meeting notes',
        id: 'meeting-notes',
        name: 'Meeting notes',
        category: 'meetings',
        version: '1',
        keywords: expect.arrayContaining(['minutes']),
        fields: expect.arrayContaining([
          { name: 'title', type: 'string', description: expect.any(String), required: true },
        ]),
        format: expect.stringContaining('{title}'),
      },
    });
    expect(missing).toMatchObject({ status: 404, body: { details: { code: 'not_found' } } });
  });
});

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

    const text = `Meeting "${data.title}" on 2026-11-20 with Ana, Ben. Summary: Agreed to ship search first. Decisions: none. Action items: none.`;
    const metadata = {
      source: 'marketplace',
      template_id: null,
      template_name: 'Meeting notes',
      template_version: '1',
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

  it('when a list value nests 200 levels, then 400 at its field on every try, and nothing is retained or charged', async () => {
    const tenant = await createTenant();
    const session = await t.api.login(tenant.owner.email, tenant.owner.password);
    const namespace = uniqueNamespace('deep');
    const key = uniqueKey();
    let attendees: unknown = 'Ana';
    for (let i = 0; i < 200; i++) attendees = [attendees];
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
    await expect.poll(async () => (await charges()).body.paging.total).toBeGreaterThanOrEqual(1);
    const recalled = await t.api.recall(tenant.api_key, recallBody(namespace, 'deep review nested'));
    const usage = await t.api.get('/api/v1/infrastructure/usage', { key: tenant.api_key });

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
    expect((await charges()).body).toMatchObject({
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

    expect(deleted).toMatchObject({ status: 200, body: { state: 'deleted', deleted: 1 } });
    expect(gone).toMatchObject({ status: 404, body: { details: { code: 'not_found' } } });
    expect(kept).toMatchObject({ status: 200, body: { data: { title: 'File taxes' } } });
    expect(again).toMatchObject({
      status: 201,
      body: { state: 'retained', idempotency_outcome: 'Accepted' },
    });
    expect(again.body.memory_id).not.toBe(created.body.memory_id);
  });
});

describe('another tenant', () => {
  it("when B's key asks for A's template or memory, then 404, and B's lists show nothing of A's", async () => {
    const a = await createTenant();
    const b = await createTenant();
    const name = uniqueName('a-only');
    const template = await createTemplate(a.api_key, bugTemplate(name));
    const memory = await createMemory(a.api_key, { template_name: name, data: { title: 'A private bug' } });

    const byId = await t.api.get(`/v1/templates/${template.id}`, { key: b.api_key });
    const byName = await t.api.get(`/v1/templates/${name}`, { key: b.api_key });
    const update = await t.api.put(`/v1/templates/${template.id}`, {
      key: b.api_key,
      body: { fields: [{ name: 'x', type: 'string' }] },
    });
    const memoryRes = await t.api.get(`/v1/memories/${memory.body.memory_id}`, { key: b.api_key });
    const useIt = await createMemory(b.api_key, { template_name: name, data: { title: 'x' } });
    const list = await t.api.get('/v1/templates', { key: b.api_key });
    const sameName = await t.api.post('/v1/templates', { key: b.api_key, body: bugTemplate(name) });

    for (const res of [byId, byName, update, memoryRes, useIt]) {
      expect(res).toMatchObject({ status: 404, body: { details: { code: 'not_found' } } });
      expect(JSON.stringify(res.body)).not.toContain('A private bug');
    }
    expect(list.body).toMatchObject({ data: [], paging: { total: 0 } });
    expect(sameName).toMatchObject({ status: 201, body: { template_name: name, version: '1' } });
    expect(sameName.body.id).not.toBe(template.id);
    expect((await t.api.get(`/v1/templates/${template.id}`, { key: a.api_key })).body.version).toBe('1');
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
