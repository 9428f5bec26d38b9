import type { Role } from '@tm/contracts';
import type { Db } from './prisma-client.js';

export const findUserByEmail = (db: Db, email: string) =>
  db.user.findUnique({ where: { email }, include: { tenant: true } });

export const findUser = (db: Db, tenantId: string, userId: string) =>
  db.user.findFirst({ where: { id: userId, tenantId } });

export const listUsers = (db: Db, tenantId: string) =>
  db.user.findMany({ where: { tenantId }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });

export const createUser = (
  db: Db,
  data: { id: string; tenantId: string; email: string; passwordHash: string; role: Role },
) => db.user.create({ data });

export const updateUser = (
  db: Db,
  tenantId: string,
  userId: string,
  data: { role?: Role; status?: 'active' | 'disabled'; passwordHash?: string },
) => db.user.updateManyAndReturn({ where: { id: userId, tenantId }, data });

export const countActiveOwners = (db: Db, tenantId: string) =>
  db.user.count({ where: { tenantId, role: 'owner', status: 'active' } });

/**
 * Hold the tenant's row until the transaction ends, so changes to its users happen one at a time:
 * two owners disabling each other at once would otherwise each still count the other as active.
 */
export const lockTenantUsers = (db: Db, tenantId: string) =>
  db.$queryRaw`SELECT id FROM tenant WHERE id = ${tenantId}::uuid FOR UPDATE`;
