import { describe, expect, it } from 'vitest';
import { createTenant, recallBody, uniqueKey, uniqueNamespace, writeBody } from './support/factories.js';
import { recordsInNamespace } from './support/memory-db.js';
import { useStack } from './support/stack.js';

const t = useStack();

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
        state: 'deleted',
        namespace: target,
        deleted: 2,
        retained: 0,
        removed: { supersession_relations: 1, idempotency_entries: 2 },
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

    expect(res).toMatchObject({ status: 200, body: { state: 'no_data', deleted: 0 } });
    expect(await recordsInNamespace(owner.tenant_id, namespace)).toBe(1);
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
