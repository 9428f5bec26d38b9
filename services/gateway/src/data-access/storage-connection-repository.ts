import type { Prisma } from './generated/client.js';
import type { Db } from './prisma-client.js';

export const listStorageConnections = (db: Db, tenantId: string) =>
  db.storageConnection.findMany({ where: { tenantId }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });

export const findStorageConnection = (db: Db, tenantId: string, id: string) =>
  db.storageConnection.findFirst({ where: { tenantId, id } });

/** The connection a new key gets when none is named: the tenant's oldest active managed one. */
export const findDefaultStorageConnection = (db: Db, tenantId: string) =>
  db.storageConnection.findFirst({
    where: { tenantId, kind: 'managed', status: 'active' },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
  });

export const createStorageConnection = (db: Db, data: Prisma.StorageConnectionUncheckedCreateInput) =>
  db.storageConnection.create({ data });

export const updateStorageConnection = (
  db: Db,
  tenantId: string,
  id: string,
  data: Prisma.StorageConnectionUpdateManyMutationInput,
) => db.storageConnection.updateManyAndReturn({ where: { tenantId, id }, data });
