import type { WebhookPayload } from '@tm/contracts';
import type { Logger } from '@tm/kit';
import { timeOrderedId } from '@tm/kit';
import {
  type ClaimedDelivery,
  claimDeliveries,
  deferDelivery,
  findDueDeliveries,
  recordAttempt,
  settleDelivery,
} from '../../data-access/delivery-repository.js';
import { updateEndpoint } from '../../data-access/endpoint-repository.js';
import { type Db, getPrisma } from '../../data-access/prisma-client.js';
import { openSigningSecret } from '../endpoints/signing-secret.js';
import { type EndpointBreakers, endpointBreakers, NOT_SENT } from './endpoint-breakers.js';
import { type AttemptOutcome, delivered, postWebhook } from './post-webhook.js';
import { describePeriod, nextAfterFailure } from './retry-schedule.js';
import { pickDeliveries } from './send-slots.js';
import { signDelivery } from './sign-delivery.js';

export interface DeliverySettings {
  sealingKey: Buffer;
  retrySchedule: readonly number[];
  timeoutMs: number;
  allowLoopback: boolean;
  /** Send slots of this instance: deliveries in flight at once. */
  concurrency: number;
  /** The most slots one tenant holds, even with nothing else due. */
  tenantConcurrency: number;
  /** The most deliveries in flight to one endpoint. */
  endpointConcurrency: number;
  /** How long an endpoint that stopped answering is left alone before one probe. */
  breakerResetMs: number;
  /** Attempts an endpoint's breaker counts before unanswered ones can open it. */
  breakerVolume: number;
  /** A record's text from memory, for endpoints that opted in (null: the record is gone). */
  readText: (tenantId: string, memoryId: string) => Promise<string | null>;
  logger: Logger;
  db?: Db;
}

export interface DeliveryDispatcher {
  /** Fill the free send slots with due deliveries (a tick, a new event, a slot just freed). */
  fill: () => void;
  /** Resolves once no fill is running and nothing is in flight (tests, and stop). */
  idle: () => Promise<void>;
  /** Stop filling, wait for the attempts in flight to be recorded, drop the breakers. */
  stop: () => Promise<void>;
}

/** Past the attempt's own bound: a lease that expires only when the instance holding it is gone. */
const LEASE_MARGIN_MS = 30_000;
/** Candidates read per fill, per send slot: enough for the scheduler to skip busy tenants and endpoints. */
const CANDIDATES_PER_SLOT = 4;

/**
 * Send what is due, each delivery in a send slot of its own: a slot freed by an answer (or a
 * time-out) is refilled at once, not when a whole batch is done, and which due delivery takes it is
 * `pickDeliveries`' rule (a share per tenant, a cap per endpoint, tenants in turn). Endpoints that
 * stop answering are backed off by their breaker. Each attempt is recorded and its delivery settled
 * after the answer, so a process killed in between leaves the lease to expire and the delivery is
 * sent again (at least once, same webhook-id).
 */
export function createDeliveryDispatcher(settings: DeliverySettings): DeliveryDispatcher {
  const db = settings.db ?? getPrisma();
  const breakers = endpointBreakers({
    resetMs: settings.breakerResetMs,
    volume: settings.breakerVolume,
    logger: settings.logger,
  });
  const inFlight = new Map<string, { tenantId: string; endpointId: string; done: Promise<void> }>();
  let filling: Promise<void> | undefined;
  let again = false;
  let stopped = false;

  const counted = () => {
    const byTenant = new Map<string, number>();
    const byEndpoint = new Map<string, number>();
    for (const { tenantId, endpointId } of inFlight.values()) {
      byTenant.set(tenantId, (byTenant.get(tenantId) ?? 0) + 1);
      byEndpoint.set(endpointId, (byEndpoint.get(endpointId) ?? 0) + 1);
    }
    return { byTenant, byEndpoint };
  };

  const start = (delivery: ClaimedDelivery) => {
    const done = attemptOne(db, delivery, settings, breakers)
      .catch((err) =>
        settings.logger.warn(
          { err, delivery_id: delivery.id },
          'webhook attempt not recorded; it is sent again when its lease ends',
        ),
      )
      .finally(() => {
        inFlight.delete(delivery.id);
        fill();
      });
    inFlight.set(delivery.id, { tenantId: delivery.tenant_id, endpointId: delivery.endpoint_id, done });
  };

  /** One look: pick for the free slots, lease what was picked, send it; false when nothing was taken. */
  const fillOnce = async () => {
    if (inFlight.size >= settings.concurrency) return false;
    const { open, probing } = breakers.states();
    const busy = counted();
    const full = [...busy.byEndpoint]
      .filter(([id, n]) => n >= (probing.has(id) ? 1 : settings.endpointConcurrency))
      .map(([id]) => id);
    // A tenant at its cap takes nothing this time, whatever it has due: a tenant whose receivers hang
    // holds its cap for their whole time-out, and its due rows (up to 16 an endpoint, 20 endpoints)
    // were read, sorted and dropped on every fill, most of each fill's candidates.
    const atTenantCap = [...busy.byTenant]
      .filter(([, n]) => n >= settings.tenantConcurrency)
      .map(([id]) => id);
    const due = await findDueDeliveries(db, {
      perEndpoint: settings.endpointConcurrency,
      limit: settings.concurrency * CANDIDATES_PER_SLOT,
      skipEndpoints: [...open, ...full],
      skipTenants: atTenantCap,
    });
    const picked = pickDeliveries(due, counted(), {
      slots: settings.concurrency,
      perTenant: settings.tenantConcurrency,
      perEndpoint: settings.endpointConcurrency,
      probing,
    });
    if (picked.length === 0) return false;
    const claimed = await claimDeliveries(
      db,
      picked.map((d) => d.id),
      settings.timeoutMs + LEASE_MARGIN_MS,
    );
    for (const delivery of claimed) start(delivery);
    return claimed.length > 0;
  };

  function fill() {
    if (stopped) return;
    if (filling) {
      again = true;
      return;
    }
    breakers.sweep((endpointId) => [...inFlight.values()].some((f) => f.endpointId === endpointId));
    filling = (async () => {
      do {
        again = false;
        while (!stopped && (await fillOnce()));
      } while (again && !stopped);
    })()
      .catch((err) => settings.logger.warn({ err }, 'webhook delivery pass failed; trying again'))
      .finally(() => {
        filling = undefined;
      });
  }

  const idle = async () => {
    while (filling || inFlight.size > 0) {
      await filling;
      await Promise.all([...inFlight.values()].map((f) => f.done));
    }
  };

  return {
    fill,
    idle,
    stop: async () => {
      stopped = true;
      await idle();
      breakers.shutdown();
    },
  };
}

async function attemptOne(
  db: Db,
  delivery: ClaimedDelivery,
  settings: DeliverySettings,
  breakers: EndpointBreakers,
): Promise<void> {
  const attemptedAt = new Date();
  const outcome = await send(delivery, settings, attemptedAt, breakers);
  if (outcome === NOT_SENT) {
    // Its endpoint was backed off after this was leased: no attempt was made, so none is recorded.
    await deferDelivery(db, delivery.id, new Date(Date.now() + settings.breakerResetMs));
    return;
  }
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

/**
 * Read what the payload needs, sign it and POST it through the endpoint's breaker; every failure is an
 * outcome, never a throw (NOT_SENT: the breaker is open).
 */
async function send(
  delivery: ClaimedDelivery,
  settings: DeliverySettings,
  at: Date,
  breakers: EndpointBreakers,
): Promise<AttemptOutcome | typeof NOT_SENT> {
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
  return breakers.send(delivery.endpoint_id, () => postWebhook(delivery.url, body, headers, settings));
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
