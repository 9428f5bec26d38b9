import {
  AppError,
  ErrorCode,
  type WebhookDeliveryList,
  type WebhookDeliveryListMessage,
  type WebhookDeliveryView,
  type WebhookEventType,
  type WebhookRedeliverMessage,
} from '@tm/contracts';
import { findDelivery, listDeliveries, requeueDelivery } from '../../data-access/delivery-repository.js';
import { findEndpoint } from '../../data-access/endpoint-repository.js';
import type { WebhookAttempt, WebhookDelivery } from '../../data-access/generated/client.js';
import { getPrisma } from '../../data-access/prisma-client.js';

const endpointNotFound = () => new AppError(ErrorCode.NotFound, 'No such webhook endpoint');

const deliveryView = (row: WebhookDelivery & { attempts: WebhookAttempt[] }): WebhookDeliveryView => ({
  id: row.id,
  message_id: row.messageId,
  event_type: row.eventType as WebhookEventType,
  status: row.status,
  next_attempt_at: row.status === 'pending' ? (row.nextAttemptAt?.toISOString() ?? null) : null,
  created_at: row.createdAt.toISOString(),
  attempts: row.attempts.map((a) => ({
    attempted_at: a.attemptedAt.toISOString(),
    status_code: a.statusCode,
    latency_ms: a.latencyMs,
    error: a.error,
  })),
});

const encodeCursor = (row: WebhookDelivery) =>
  Buffer.from(`${row.createdAt.toISOString()}|${row.id}`).toString('base64url');

function decodeCursor(cursor: string): { createdAt: Date; id: string } {
  const [at, id] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  const createdAt = new Date(at ?? '');
  if (!id || !/^[0-9a-f-]{36}$/.test(id) || Number.isNaN(createdAt.getTime())) {
    throw new AppError(ErrorCode.ValidationFailed, 'Invalid cursor', {
      fields: [{ path: 'cursor', message: 'must be the next_cursor of a previous page' }],
    });
  }
  return { createdAt, id };
}

/** An endpoint's delivery log, newest first: each delivery with every attempt made for it. */
export async function listEndpointDeliveries(
  { tenant_id, endpoint_id, query }: WebhookDeliveryListMessage,
  db = getPrisma(),
): Promise<WebhookDeliveryList> {
  const after = query.cursor !== undefined ? decodeCursor(query.cursor) : undefined;
  if (!(await findEndpoint(db, tenant_id, endpoint_id))) throw endpointNotFound();
  const rows = await listDeliveries(db, endpoint_id, query.limit + 1, after);
  const page = rows.slice(0, query.limit);
  const last = page.at(-1);
  return {
    data: page.map(deliveryView),
    next_cursor: rows.length > query.limit && last ? encodeCursor(last) : null,
  };
}

/** Send a delivery again, whatever its status, with a fresh retry schedule; 409 while its endpoint is disabled. */
export async function redeliver(
  { tenant_id, endpoint_id, delivery_id }: WebhookRedeliverMessage,
  db = getPrisma(),
): Promise<WebhookDeliveryView> {
  const endpoint = await findEndpoint(db, tenant_id, endpoint_id);
  if (!endpoint) throw endpointNotFound();
  const delivery = await findDelivery(db, tenant_id, endpoint_id, delivery_id);
  if (!delivery) throw deliveryNotFound();
  if (!endpoint.enabled) {
    throw new AppError(
      ErrorCode.PreconditionFailed,
      'The endpoint is disabled; enable it before redelivering',
      {
        retryable: false,
      },
    );
  }
  const requeued = await requeueDelivery(db, delivery.id);
  if (!requeued) throw deliveryNotFound();
  return deliveryView(requeued);
}

const deliveryNotFound = () => new AppError(ErrorCode.NotFound, 'No such webhook delivery');
