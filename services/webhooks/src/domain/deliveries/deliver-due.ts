import type { WebhookPayload } from '@tm/contracts';
import type { Logger } from '@tm/kit';
import { timeOrderedId } from '@tm/kit';
import { type AttemptRecorder, createAttemptRecorder } from '../../data-access/attempt-recorder.js';
import {
  type ClaimedDelivery,
  claimDeliveries,
  deferDelivery,
  findDueDeliveries,
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
 * What an instance holds (sending, plus leased and waiting here for a slot) against what it sends at
 * once, per instance, tenant and endpoint. Waiting here, the next delivery of a busy endpoint starts
 * the moment an answer frees its slot; read from the database only then, an endpoint's throughput was
 * its slots over (its answer time plus a fill's), and fills slow down exactly when the database is busy
 * with another tenant's traffic. Its lease outlasts a wait of one attempt's time-out and its own.
 */
const HELD_PER_SLOT = 2;

/**
 * Send what is due, each delivery in a send slot of its own: a slot freed by an answer (or a
 * time-out) goes at once to the next delivery leased for that endpoint, and a fill leases more; which
 * due delivery is leased is `pickDeliveries`' rule (a share per tenant, a cap per endpoint, tenants in
 * turn). Endpoints that stop answering are backed off by their breaker. Each attempt is recorded and
 * its delivery settled after the answer (the slot is free by then), so a process killed in between
 * leaves the lease to expire and the delivery is sent again (at least once, same webhook-id).
 */
export function createDeliveryDispatcher(settings: DeliverySettings): DeliveryDispatcher {
  const db = settings.db ?? getPrisma();
  const record = createAttemptRecorder(db);
  const breakers = endpointBreakers({
    resetMs: settings.breakerResetMs,
    volume: settings.breakerVolume,
    logger: settings.logger,
  });
  /** Attempts sent and not yet answered: what the send caps count. */
  const sending = new Map<string, ClaimedDelivery>();
  /** Leased deliveries waiting for a send slot of their tenant and endpoint, in the order picked. */
  let waiting: ClaimedDelivery[] = [];
  /** Attempts not yet recorded, sending or answered: the instance's cap counts them, so records cannot pile up. */
  const recording = new Set<Promise<void>>();
  let filling: Promise<void> | undefined;
  let again = false;
  let stopped = false;

  const endpointCap = (id: string, probing: ReadonlySet<string>) =>
    probing.has(id) ? 1 : settings.endpointConcurrency;

  const count = (deliveries: Iterable<ClaimedDelivery>) => {
    const byTenant = new Map<string, number>();
    const byEndpoint = new Map<string, number>();
    for (const { tenant_id, endpoint_id } of deliveries) {
      byTenant.set(tenant_id, (byTenant.get(tenant_id) ?? 0) + 1);
      byEndpoint.set(endpoint_id, (byEndpoint.get(endpoint_id) ?? 0) + 1);
    }
    return { byTenant, byEndpoint };
  };

  /** Start every waiting delivery whose tenant, endpoint and instance have a send slot free. */
  const startWaiting = () => {
    if (stopped || waiting.length === 0) return;
    const { probing } = breakers.states();
    const busy = count(sending.values());
    const later: ClaimedDelivery[] = [];
    for (const delivery of waiting) {
      const tenant = busy.byTenant.get(delivery.tenant_id) ?? 0;
      const endpoint = busy.byEndpoint.get(delivery.endpoint_id) ?? 0;
      if (
        sending.size >= settings.concurrency ||
        tenant >= settings.tenantConcurrency ||
        endpoint >= endpointCap(delivery.endpoint_id, probing)
      ) {
        later.push(delivery);
        continue;
      }
      busy.byTenant.set(delivery.tenant_id, tenant + 1);
      busy.byEndpoint.set(delivery.endpoint_id, endpoint + 1);
      send(delivery);
    }
    waiting = later;
  };

  const send = (delivery: ClaimedDelivery) => {
    sending.set(delivery.id, delivery);
    const done = sendOne(delivery, settings, breakers)
      .finally(() => {
        sending.delete(delivery.id);
        startWaiting();
        fill();
      })
      .then((sent) => recordOutcome(db, record, delivery, sent, settings))
      .catch((err) =>
        settings.logger.warn(
          { err, delivery_id: delivery.id },
          'webhook attempt not recorded; it is sent again when its lease ends',
        ),
      )
      .finally(() => {
        recording.delete(done);
        fill();
      });
    recording.add(done);
  };

  /** One look: pick what may be held, lease it, start what has a slot; false when nothing was taken. */
  const fillOnce = async () => {
    const answered = recording.size - sending.size;
    const held = sending.size + waiting.length;
    if (answered + held >= settings.concurrency * HELD_PER_SLOT) return false;
    const { open, probing } = breakers.states();
    const holding = count([...sending.values(), ...waiting]);
    const full = [...holding.byEndpoint]
      .filter(([id, n]) => n >= (probing.has(id) ? 1 : settings.endpointConcurrency * HELD_PER_SLOT))
      .map(([id]) => id);
    // A tenant that holds its most takes nothing this time, whatever it has due: a tenant whose
    // receivers hang holds it for their whole time-out, and its due rows (up to 32 an endpoint, 20
    // endpoints) were read, sorted and dropped on every fill, most of each fill's candidates.
    const atTenantCap = [...holding.byTenant]
      .filter(([, n]) => n >= settings.tenantConcurrency * HELD_PER_SLOT)
      .map(([id]) => id);
    const due = await findDueDeliveries(db, {
      perEndpoint: settings.endpointConcurrency * HELD_PER_SLOT,
      limit: settings.concurrency * CANDIDATES_PER_SLOT,
      skipEndpoints: [...open, ...full],
      skipTenants: atTenantCap,
    });
    const picked = pickDeliveries(due, count([...sending.values(), ...waiting]), {
      slots: settings.concurrency * HELD_PER_SLOT - answered,
      perTenant: settings.tenantConcurrency * HELD_PER_SLOT,
      perEndpoint: settings.endpointConcurrency * HELD_PER_SLOT,
      probing,
    });
    if (picked.length === 0) return false;
    const claimed = await claimDeliveries(
      db,
      picked.map((d) => d.id),
      settings.timeoutMs * HELD_PER_SLOT + LEASE_MARGIN_MS,
    );
    if (stopped) {
      await releaseAll(claimed);
      return false;
    }
    waiting.push(...claimed);
    startWaiting();
    return claimed.length > 0;
  };

  /** Leased and never sent (the instance stops): due again now, for this instance or another. */
  const releaseAll = (deliveries: readonly ClaimedDelivery[]) =>
    Promise.all(deliveries.map((d) => deferDelivery(db, d.id, new Date())));

  function fill() {
    if (stopped) return;
    if (filling) {
      again = true;
      return;
    }
    breakers.sweep((endpointId) => [...sending.values()].some((d) => d.endpoint_id === endpointId));
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

  // A delivery waits only behind a send in flight (of its endpoint, tenant or the instance), and each
  // answer starts what waits: so once nothing is recorded, nothing waits, unless the instance stopped.
  const idle = async () => {
    while (filling || recording.size > 0) {
      await filling;
      await Promise.all([...recording]);
    }
    const left = waiting;
    waiting = [];
    await releaseAll(left);
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

/** An attempt's answer (or NOT_SENT: its endpoint's breaker is open) and when it was made. */
interface Sent {
  attemptedAt: Date;
  outcome: AttemptOutcome | typeof NOT_SENT;
}

async function sendOne(
  delivery: ClaimedDelivery,
  settings: DeliverySettings,
  breakers: EndpointBreakers,
): Promise<Sent> {
  const attemptedAt = new Date();
  return { attemptedAt, outcome: await send(delivery, settings, attemptedAt, breakers) };
}

/**
 * Record the attempt and settle the delivery: delivered, due again later, or failed for good (its
 * endpoint then disabled).
 */
async function recordOutcome(
  db: Db,
  record: AttemptRecorder,
  delivery: ClaimedDelivery,
  { attemptedAt, outcome }: Sent,
  settings: DeliverySettings,
): Promise<void> {
  if (outcome === NOT_SENT) {
    // Its endpoint was backed off after this was leased: no attempt was made, so none is recorded.
    await deferDelivery(db, delivery.id, new Date(Date.now() + settings.breakerResetMs));
    return;
  }
  const step = delivery.schedule_step + 1;
  const next = delivered(outcome) ? null : nextAfterFailure(settings.retrySchedule, delivery.schedule_step);
  const status = delivered(outcome) ? 'succeeded' : next ? 'pending' : 'failed';
  await record({
    id: timeOrderedId(),
    deliveryId: delivery.id,
    attemptedAt,
    statusCode: outcome.statusCode,
    latencyMs: outcome.latencyMs,
    error: outcome.error,
    status,
    scheduleStep: step,
    nextAttemptAt: next ?? null,
  });
  if (status !== 'failed') return;
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
