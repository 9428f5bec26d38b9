import { CreateTemplateRequest } from '@tm/contracts';
import { describe, expect, it } from 'vitest';
import { createTenant, uniqueNamespace } from '../support/factories.js';
import { useStack } from '../support/stack.js';

const t = useStack();

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
            version: '2',
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
        version: '2',
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

describe('POST /v1/memories with a marketplace template’s optional fields', () => {
  it('when the task template’s optional fields are left out or empty, then their phrases are dropped, never a stand-in like "no due date"', async () => {
    const tenant = await createTenant();
    const namespace = uniqueNamespace('market-task');
    const create = (data: Record<string, unknown>) =>
      t.api.post('/v1/memories', {
        key: tenant.api_key,
        body: { marketplace_template_id: 'task', namespace, data },
      });

    const bare = await create({ title: 'File taxes' });
    const blank = await create({ title: 'Book dentist', owner: '  ', due_date: '' });
    const partial = await create({ title: 'Pay rent', due_date: '2026-12-01', priority: 'high' });
    const full = await create({
      title: 'Ship v2',
      owner: 'Ana',
      due_date: '2026-12-24',
      priority: 'low',
      status: 'doing',
      details: 'Behind a flag.',
    });

    const task = { source: 'marketplace', template_name: 'Task', template_version: '2' };
    expect(bare).toMatchObject({ status: 201, body: { text: 'Task "File taxes".', template: task } });
    expect(blank).toMatchObject({ status: 201, body: { text: 'Task "Book dentist".', template: task } });
    expect(partial).toMatchObject({
      status: 201,
      body: { text: 'Task "Pay rent", due 2026-12-01, priority high.', template: task },
    });
    expect(full).toMatchObject({
      status: 201,
      body: {
        text: 'Task "Ship v2" owned by Ana, due 2026-12-24, priority low, status doing. Behind a flag.',
        template: task,
      },
    });
  });

  it('when any marketplace template is used with its required fields only, then no optional field puts a word into the text', async () => {
    const tenant = await createTenant();
    const namespace = uniqueNamespace('market-required');
    const listed = await t.api.get('/v1/marketplace/templates', {
      key: tenant.api_key,
      query: { limit: '200' },
    });
    type Field = { name: string; type: string; required: boolean };
    type Entry = { marketplace_template_id: string; fields: Field[] };
    const sample = (f: Field) =>
      f.type === 'list' ? [`${f.name}-value`] : f.type === 'number' ? 7 : `${f.name}-value`;

    const rendered = await Promise.all(
      (listed.body.data as Entry[]).map(async (entry) => {
        const data = Object.fromEntries(
          entry.fields.filter((f) => f.required).map((f) => [f.name, sample(f)]),
        );
        const res = await t.api.post('/v1/memories', {
          key: tenant.api_key,
          body: { marketplace_template_id: entry.marketplace_template_id, namespace, data },
        });
        return { id: entry.marketplace_template_id, status: res.status, text: res.body.text as string };
      }),
    );

    expect(rendered.length).toBeGreaterThanOrEqual(10);
    for (const { id, status, text } of rendered) {
      expect(status, id).toBe(201);
      // the words version 1 put in for an empty optional field
      expect(text, id).not.toMatch(
        /\b(none|nobody|unknown|not recorded|pending|open|unrated|not listed|unspecified|no due date)\b|\?/i,
      );
    }
  });
});
