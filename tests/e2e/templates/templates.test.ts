import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { asListed } from '../support/contract.js';
import { createTenant } from '../support/factories.js';
import { useStack } from '../support/stack.js';
import { eventsFor } from '../support/telemetry.js';
import { bugTemplate, iso, templateSteps, uniqueName } from '../support/templates.js';

const t = useStack();
const { createTemplate, createMemory } = templateSteps(t);

const uuid = expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);

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
        data: [asListed(created.body)],
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
