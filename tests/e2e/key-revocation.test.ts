import { revokeApiKey } from '@tm/gateway';
import { describe, expect, it } from 'vitest';
import type { Api } from './support/api.js';
import { createTenant, recallBody, uniqueNamespace } from './support/factories.js';
import { useSecondGateway, useStack } from './support/stack.js';

const t = useStack();

describe('API-key revocation across gateway instances', () => {
  const second = useSecondGateway(t);

  it('when a key both instances have verified is revoked through one, then the other refuses its next request', async () => {
    const tenant = await createTenant();
    const other = await createTenant();
    const recall = (api: Api, key: string) => api.recall(key, recallBody(uniqueNamespace(), 'x'));
    const warm = [
      await recall(t.api, tenant.api_key),
      await recall(second.api, tenant.api_key),
      await recall(second.api, other.api_key),
    ];

    await revokeApiKey({ tenantId: tenant.tenant_id, keyId: tenant.key_id }, { nc: t.stack.gateway.nc });
    const onFirst = await recall(t.api, tenant.api_key);
    const onSecond = await recall(second.api, tenant.api_key);
    const otherTenant = await recall(second.api, other.api_key);

    expect(warm.map((r) => r.status)).toEqual([200, 200, 200]);
    for (const res of [onFirst, onSecond]) {
      expect(res).toMatchObject({ status: 401, body: { details: { code: 'authentication_required' } } });
    }
    expect(otherTenant.status).toBe(200);
  });

  it('when another tenant names the key, then nothing is revoked', async () => {
    const owner = await createTenant();
    const intruder = await createTenant();

    const revoked = await revokeApiKey(
      { tenantId: intruder.tenant_id, keyId: owner.key_id },
      { nc: t.stack.gateway.nc },
    );
    const res = await second.api.recall(owner.api_key, recallBody(uniqueNamespace(), 'x'));

    expect(revoked).toBe(false);
    expect(res.status).toBe(200);
  });
});
