import type { Prisma } from './generated/client.js';
import type { Db } from './prisma-client.js';

export const listEndpoints = (db: Db, tenantId: string) =>
  db.webhookEndpoint.findMany({ where: { tenantId }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });

export const countEndpoints = (db: Db, tenantId: string) => db.webhookEndpoint.count({ where: { tenantId } });

export const findEndpoint = (db: Db, tenantId: string, id: string) =>
  db.webhookEndpoint.findFirst({ where: { tenantId, id } });

export const insertEndpoint = (db: Db, data: Prisma.WebhookEndpointUncheckedCreateInput) =>
  db.webhookEndpoint.create({ data });

export const updateEndpoint = (
  db: Db,
  tenantId: string,
  id: string,
  data: Prisma.WebhookEndpointUpdateManyMutationInput,
) => db.webhookEndpoint.updateManyAndReturn({ where: { tenantId, id }, data });

/** Its deliveries and their attempts go with it (cascade). */
export const deleteEndpoint = (db: Db, tenantId: string, id: string) =>
  db.webhookEndpoint.deleteMany({ where: { tenantId, id } });

/** The tenants' enabled endpoints that asked for one of these event types: where events fan out to. */
export const subscribedEndpoints = (db: Db, tenantIds: string[]) =>
  db.webhookEndpoint.findMany({
    where: { tenantId: { in: tenantIds }, enabled: true },
    select: { id: true, tenantId: true, events: true },
  });
