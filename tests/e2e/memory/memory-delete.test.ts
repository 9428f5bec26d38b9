import { describe, expect, it } from 'vitest';
import { followDeletion } from '../support/deletions.js';
import { createTenant, recallBody, uniqueKey, uniqueNamespace, writeBody } from '../support/factories.js';
import { memoryDbCount, recordsInNamespace } from '../support/memory-db.js';
import { useStack } from '../support/stack.js';

const t = useStack();

/** `count` distinct five-letter words: aaaaa, aaaab, … */
function distinctWords(count: number): string[] {
  return Array.from({ length: count }, (_, i) =>
    Array.from({ length: 5 }, (_, place) => String.fromCharCode(97 + (Math.floor(i / 26 ** place) % 26)))
      .reverse()
      .join(''),
  );
}

describe('DELETE /api/v1/memory', () => {
  it('when a namespace is deleted, then exactly that namespace goes, with its relations and idempotency state', async () => {
    const tenant = await createTenant();
    const other = await createTenant();
    const target = uniqueNamespace('target');
    const sibling = uniqueNamespace('sibling');
    const key = uniqueKey();
    await t.api.write(tenant.api_key, writeBody(target, 'first note', { event_id: 'n1' }), key);
    await t.api.write(
      tenant.api_key,
      writeBody(target, 'second note', { event_id: 'n2', supersedes: ['n1'] }),
      uniqueKey(),
    );
    await t.api.write(tenant.api_key, writeBody(sibling, 'sibling note'), uniqueKey());
    await t.api.write(other.api_key, writeBody(target, 'other tenant note'), uniqueKey());

    const res = await t.api.deleteNamespace(tenant.api_key, target);

    expect(res).toMatchObject({
      status: 200,
      body: {
        contract_version: 'v1',
        operation: 'memory.delete',
        state: 'not_retained',
        namespace: target,
        deleted: 2,
        retained: 0,
        removed: { supersession_relations: 1, idempotency_entries: 2 },
        deletion: {
          status: 'completed',
          progress: { records_deleted: 2, records_total: 2 },
          finished_at: expect.any(String),
        },
      },
    });
    expect((await t.api.recall(tenant.api_key, recallBody(target, 'note'))).body.related).toEqual([]);
    expect((await t.api.recall(tenant.api_key, recallBody(sibling, 'note'))).body.related).toHaveLength(1);
    expect((await t.api.recall(other.api_key, recallBody(target, 'note'))).body.related).toHaveLength(1);
    // Idempotency state went with the namespace: the same key is a new write again.
    const again = await t.api.write(tenant.api_key, writeBody(target, 'first note', { event_id: 'n1' }), key);
    expect(again.body.idempotency_outcome).toBe('Accepted');
  });

  it('when another tenant deletes a namespace of the same name, then the owner keeps everything', async () => {
    const owner = await createTenant();
    const intruder = await createTenant();
    const namespace = uniqueNamespace();
    await t.api.write(owner.api_key, writeBody(namespace, 'owner data'), uniqueKey());

    const res = await t.api.deleteNamespace(intruder.api_key, namespace);

    expect(res).toMatchObject({
      status: 200,
      body: { state: 'no_data', deleted: 0, retained: 0, deletion: { status: 'completed' } },
    });
    expect(await recordsInNamespace(owner.tenant_id, namespace)).toBe(1);
  });

  it('when one memory holds 5,400 distinct words (32 KB), then one call deletes it and recall finds nothing', async () => {
    const tenant = await createTenant();
    const namespace = uniqueNamespace('wordy');
    const text = distinctWords(5_400).join(' ');
    expect(text.length).toBeLessThanOrEqual(32_768);
    expect((await t.api.write(tenant.api_key, writeBody(namespace, text), uniqueKey())).status).toBe(200);

    const res = await t.api.deleteNamespace(tenant.api_key, namespace);

    // The deletion went on the server; a 202 is followed to the end, as a client would.
    expect([200, 202]).toContain(res.status);
    const final =
      res.status === 200
        ? res.body
        : (await followDeletion(t.api, tenant.api_key, res.body.deletion.id)).at(-1)?.body;
    expect(final).toMatchObject({
      state: 'not_retained',
      namespace,
      deleted: 1,
      retained: 0,
      deletion: {
        id: res.body.deletion.id,
        status: 'completed',
        progress: { records_deleted: 1, records_total: 1 },
      },
    });
    const recalled = await t.api.recall(tenant.api_key, recallBody(namespace, text.slice(0, 600)));
    expect(recalled).toMatchObject({ status: 200, body: { state: 'no_data', related: [] } });
    expect(await recordsInNamespace(tenant.tenant_id, namespace)).toBe(0);
    expect(
      await memoryDbCount(
        'SELECT count(*) AS n FROM memory_term WHERE scope_key = memory_scope_key($1, $2)',
        [tenant.tenant_id, namespace],
      ),
    ).toBe(0);
  });

  it('when a completed deletion is read by its id, then its owner gets the receipt and another tenant a 404', async () => {
    const tenant = await createTenant();
    const other = await createTenant();
    const namespace = uniqueNamespace();
    await t.api.write(tenant.api_key, writeBody(namespace, 'to be deleted'), uniqueKey());
    const deleted = await t.api.deleteNamespace(tenant.api_key, namespace);

    const own = await t.api.deletion(tenant.api_key, deleted.body.deletion.id);
    const foreign = await t.api.deletion(other.api_key, deleted.body.deletion.id);
    const unknown = await t.api.deletion(tenant.api_key, 'not-a-deletion');

    expect(own).toMatchObject({
      status: 200,
      body: { ...deleted.body, request_id: expect.any(String) },
    });
    expect(own.body.request_id).not.toBe(deleted.body.request_id);
    expect(foreign).toMatchObject({ status: 404, body: { details: { code: 'not_found' } } });
    expect(unknown).toMatchObject({ status: 404, body: { details: { code: 'not_found' } } });
  });

  it('when the namespace is given in a JSON body, then it is used', async () => {
    const tenant = await createTenant();
    const namespace = uniqueNamespace();
    await t.api.write(tenant.api_key, writeBody(namespace, 'body delete'), uniqueKey());

    const res = await t.api.delete('/api/v1/memory', { key: tenant.api_key, body: { namespace } });

    expect(res).toMatchObject({ status: 200, body: { deleted: 1, namespace } });
  });

  const invalid: Array<[string, { query?: Record<string, string | string[]>; body?: unknown }]> = [
    ['no namespace at all', {}],
    ['an empty namespace', { query: { namespace: '' } }],
    ['a wildcard namespace', { query: { namespace: '*' } }],
    ['two namespaces', { query: { namespace: ['a', 'b'] } }],
    ['query and body that differ', { query: { namespace: 'a' }, body: { namespace: 'b' } }],
  ];

  it.each(invalid)('when the request has %s, then 400 and nothing is deleted', async (_label, request) => {
    const tenant = await createTenant();
    const namespace = uniqueNamespace();
    await t.api.write(tenant.api_key, writeBody(namespace, 'must survive'), uniqueKey());

    const res = await t.api.delete('/api/v1/memory', { key: tenant.api_key, ...request });

    expect(res).toMatchObject({
      status: 400,
      body: { details: { code: 'validation_failed', fields: [{ path: 'namespace' }] } },
    });
    expect(await recordsInNamespace(tenant.tenant_id, namespace)).toBe(1);
  });
});
