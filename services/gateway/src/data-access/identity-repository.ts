import type { Prisma } from './generated/client.js';
import type { Db } from './prisma-client.js';

/** Everything authentication needs about a key, in one indexed lookup by hash. */
export function findKeyByHash(db: Db, secretHash: string) {
  return db.apiKey.findUnique({
    where: { secretHash },
    select: {
      id: true,
      tenantId: true,
      userId: true,
      revokedAt: true,
      storageConnection: { select: { id: true, kind: true, status: true } },
      user: {
        select: { role: true, consents: { where: { purpose: 'private_memory' }, select: { state: true } } },
      },
    },
  });
}
export type KeyRecord = NonNullable<Awaited<ReturnType<typeof findKeyByHash>>>;

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
  if (data.consent) await db.consent.create({ data: data.consent });
  await db.apiKey.create({ data: data.key });
}
