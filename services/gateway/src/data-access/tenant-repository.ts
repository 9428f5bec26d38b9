import { randomUUID } from 'node:crypto';
import type { Prisma } from './generated/client.js';
import type { Db } from './prisma-client.js';

export async function createTenantGraph(
  db: Db,
  data: {
    tenant: Prisma.TenantCreateManyInput;
    user: Prisma.UserCreateManyInput;
    storage: Prisma.StorageConnectionCreateManyInput | null;
    consent: Prisma.ConsentCreateManyInput | null;
    key: Prisma.ApiKeyCreateManyInput;
  },
) {
  await db.tenant.create({ data: data.tenant });
  await db.user.create({ data: data.user });
  if (data.storage) await db.storageConnection.create({ data: data.storage });
  if (data.consent) {
    await db.consent.create({ data: data.consent });
    const { tenantId, userId, state } = data.consent;
    await db.consentEvent.create({
      data: { id: randomUUID(), tenantId, userId, state: state ?? 'granted', actorUserId: null },
    });
  }
  await db.apiKey.create({ data: data.key });
}
