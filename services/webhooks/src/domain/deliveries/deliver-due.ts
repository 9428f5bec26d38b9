import type { WebhookPayload } from '@tm/contracts';
import type { Logger } from '@tm/kit';
import { timeOrderedId } from '@tm/kit';
import {
  type ClaimedDelivery,
  claimDue,
  recordAttempt,
  settleDelivery,
} from '../../data-access/delivery-repository.js';
import { updateEndpoint } from '../../data-access/endpoint-repository.js';
import { type Db, getPrisma } from '../../data-access/prisma-client.js';
import { openSigningSecret } from '../endpoints/signing-secret.js';
import { type AttemptOutcome, delivered, postWebhook } from './post-webhook.js';
import { describePeriod, nextAfterFailure } from './retry-schedule.js';
import { signDelivery } from './sign-delivery.js';

export interface DeliverySettings {
  sealingKey: Buffer;
  retrySchedule: readonly number[];
  timeoutMs: number;
  allowLoopback: boolean;
  /** Deliveries claimed and sent at once. */
  concurrency: number;
  /** A record's text from memory, for endpoints that opted in (null: the record is gone). */
  readText: (tenantId: string, memoryId: string) => Promise<string | null>;
  logger: Logger;
  db?: Db;
}

/** Past the attempt's own bound: a lease that expires only when the instance holding it is gone. */
const LEASE_MARGIN_MS = 30_000;

/**
 * Send what is due, `concurrency` at a time, until nothing due is left; returns how many attempts
 * were made. Each attempt is recorded and its delivery settled after the answer, so a process killed
 * in between leaves the lease to expire and the delivery is sent again (at least once).
 */
export async function deliverDue(settings: DeliverySettings): Promise<number> {
  const db = settings.db ?? getPrisma();
  let attempts = 0;
  for (;;) {
    const claimed = await claimDue(db, settings.concurrency, settings.timeoutMs + LEASE_MARGIN_MS);
    await Promise.all(claimed.map((delivery) => attemptOne(db, delivery, settings)));
    attempts += claimed.length;
    if (claimed.length < settings.concurrency) return attempts;
  }
}

async function attemptOne(db: Db, delivery: ClaimedDelivery, settings: DeliverySettings): Promise<void> {
  const attemptedAt = new Date();
  const outcome = await send(delivery, settings, attemptedAt);
  await recordAttempt(db, {
    id: timeOrderedId(),
    deliveryId: delivery.id,
    attemptedAt,
    statusCode: outcome.statusCode,
    latencyMs: outcome.latencyMs,
    error: outcome.error,
  });
  const step = delivery.schedule_step + 1;
  if (delivered(outcome)) {
    await settleDelivery(db, delivery.id, { status: 'succeeded', scheduleStep: step, nextAttemptAt: null });
    return;
  }
  const next = nextAfterFailure(settings.retrySchedule, delivery.schedule_step);
  if (next) {
    await settleDelivery(db, delivery.id, { status: 'pending', scheduleStep: step, nextAttemptAt: next });
    return;
  }
  await settleDelivery(db, delivery.id, { status: 'failed', scheduleStep: step, nextAttemptAt: null });
  const last = outcome.statusCode !== null ? `HTTP ${outcome.statusCode}` : (outcome.error ?? 'no answer');
  const reason = `delivery ${delivery.id} failed ${step} attempts over ${describePeriod(settings.retrySchedule)}; last: ${last}`;
  await disableEndpoint(db, delivery, reason);
  settings.logger.warn(
    { endpoint_id: delivery.endpoint_id, delivery_id: delivery.id },
    'webhook endpoint disabled',
  );
}

/** Read what the payload needs, sign it and POST it; every failure is an outcome, never a throw. */
async function send(
  delivery: ClaimedDelivery,
  settings: DeliverySettings,
  at: Date,
): Promise<AttemptOutcome> {
  let body: string;
  try {
    body = JSON.stringify(await withText(delivery, settings));
  } catch (err) {
    // Memory away: the endpoint asked for the text, so the attempt waits for it rather than going without.
    settings.logger.warn({ err, delivery_id: delivery.id }, 'memory text not read; the attempt is retried');
    return { statusCode: null, error: 'text_unavailable', latencyMs: 0 };
  }
  let headers: Record<string, string>;
  try {
    headers = signDelivery(delivery.message_id, body, secretsOf(delivery, settings.sealingKey), at);
  } catch (err) {
    // A secret that does not open (a changed WEBHOOKS_SECRET_KEY) fails the attempt, not the poller.
    settings.logger.error({ err, delivery_id: delivery.id }, 'webhook delivery could not be signed');
    return { statusCode: null, error: 'signing_failed', latencyMs: 0 };
  }
  return postWebhook(delivery.url, body, headers, settings);
}

/**
 * The stored payload, plus `data.text` for an endpoint that opted in to text: read from memory now,
 * so the webhooks database never holds a copy (null once the record is gone).
 */
async function withText(delivery: ClaimedDelivery, settings: DeliverySettings): Promise<unknown> {
  const payload = delivery.payload as WebhookPayload;
  const memoryId = payload.data?.memory_id;
  if (!delivery.include_text || payload.type !== 'memory.retained' || typeof memoryId !== 'string') {
    return payload;
  }
  const text = await settings.readText(delivery.tenant_id, memoryId);
  return { ...payload, data: { ...payload.data, text } };
}

/** The current secret, and the one before a rotation while its overlap lasts. */
function secretsOf(delivery: ClaimedDelivery, key: Buffer): string[] {
  const secrets = [openSigningSecret(key, delivery.secret_ciphertext, delivery.endpoint_id)];
  const previous = delivery.previous_secret_ciphertext;
  const until = delivery.previous_secret_expires_at;
  if (previous && until && until.getTime() > Date.now()) {
    secrets.push(openSigningSecret(key, previous, delivery.endpoint_id));
  }
  return secrets;
}

const disableEndpoint = (db: Db, delivery: ClaimedDelivery, reason: string) =>
  db.webhookEndpoint
    .findUnique({ where: { id: delivery.endpoint_id }, select: { tenantId: true } })
    .then(
      (e) =>
        e && updateEndpoint(db, e.tenantId, delivery.endpoint_id, { enabled: false, disabledReason: reason }),
    );
