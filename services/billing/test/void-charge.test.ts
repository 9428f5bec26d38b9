import { randomUUID } from 'node:crypto';
import { AppError, ErrorCode, Subjects, statusOf, type VoidChargeMessage } from '@tm/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getPrisma } from '../src/data-access/prisma-client.js';
import { closeInvoicePeriod } from '../src/domain/close-invoice-period.js';
import { voidCharge } from '../src/domain/void-charge.js';
import { charged, uniqueTenant } from './support/factories.js';
import { ownDatabase } from './support/own-database.js';

const database = ownDatabase('void_charge');
beforeAll(() => database.open());
afterAll(() => database.close());

const at = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
const OCCURRED = '2026-11-25T01:20:03.112Z';

const voiding = (tenantId: string, chargeId: string, extra: Partial<VoidChargeMessage> = {}) => ({
  tenant_id: tenantId,
  charge_id: chargeId,
  actor_user_id: 'user-owner',
  reason: 'duplicate request',
  ...extra,
});

/** The charge as the ledger holds it now, with its history. */
const stored = (chargeId: string) =>
  getPrisma().charge.findUniqueOrThrow({
    where: { id: chargeId },
    include: { events: { orderBy: [{ at: 'asc' }, { id: 'asc' }] }, usageRecord: true },
  });

/** The charge.voided events waiting in the outbox for one charge. */
const voidedEvents = (chargeId: string) =>
  getPrisma().outboxMessage.findMany({ where: { payload: { path: ['charge_id'], equals: chargeId } } });

/** An `onCommitted` that counts its calls: the service's nudges the outbox relay after a void's commit. */
function committedCounter() {
  const counter = { commits: 0, onCommitted: () => void counter.commits++ };
  return counter;
}

const refusalOf = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('the void was not refused');
    },
    (err: unknown) => err,
  );

describe('voidCharge (recorded or unbilled → void, once, with its event)', () => {
  it('when a recorded charge is voided, then it answers void with the actor and reason in its history, keeps its usage record, and one charge.voided event is written', async () => {
    // Arrange
    const tenantId = uniqueTenant();
    const [charge] = await charged(tenantId, [
      { operation: 'memory.write', units: 3, occurred_at: OCCURRED },
    ]);
    const { id, requestId } = charge as { id: string; requestId: string };
    const counter = committedCounter();

    // Act
    const view = await voidCharge(voiding(tenantId, id), counter);

    // Assert
    expect(view).toEqual({
      id,
      state: 'void',
      operation: 'memory.write',
      units: 3,
      amount_usd: 0.3,
      pricing_version: 'priced',
      request_id: requestId,
      idempotency_key: null,
      occurred_at: OCCURRED,
      recorded_at: at,
      history: [
        { from: null, to: 'recorded', at, actor_user_id: null, reason: null },
        { from: 'recorded', to: 'void', at, actor_user_id: 'user-owner', reason: 'duplicate request' },
      ],
    });
    expect(await stored(id)).toMatchObject({ state: 'void', usageRecord: { requestId } });
    const events = await voidedEvents(id);
    expect(events).toEqual([
      {
        id: expect.any(String),
        subject: Subjects.billing.chargeVoided,
        payload: {
          version: 'v1',
          event_id: events[0]?.id,
          tenant_id: tenantId,
          charge_id: id,
          operation: 'memory.write',
          units: 3,
          amount_usd: 0.3,
          previous_state: 'recorded',
          reason: 'duplicate request',
          actor_user_id: 'user-owner',
          request_id: requestId,
          occurred_at: view.history[1]?.at,
        },
        createdAt: expect.any(Date),
        attempts: 0,
      },
    ]);
    expect(counter.commits).toBe(1);
  });

  it('when an unbilled (zero-price) charge is voided, then it becomes void and its event says it was unbilled', async () => {
    // Arrange
    const tenantId = uniqueTenant();
    const [charge] = await charged(tenantId, [
      { operation: 'memory.recall', pricing_version: 'free', occurred_at: OCCURRED },
    ]);
    const { id } = charge as { id: string };

    // Act
    const view = await voidCharge(voiding(tenantId, id));

    // Assert
    expect(view).toMatchObject({ state: 'void', amount_usd: 0 });
    expect(view.history.map((h) => [h.from, h.to])).toEqual([
      [null, 'unbilled'],
      ['unbilled', 'void'],
    ]);
    expect((await voidedEvents(id)).map((e) => e.payload)).toMatchObject([
      { previous_state: 'unbilled', amount_usd: 0, operation: 'memory.recall' },
    ]);
  });

  it('when a charge is voided a second time, then it answers the void charge as it is: no second void event, no second charge.voided, no second nudge of the relay', async () => {
    // Arrange
    const tenantId = uniqueTenant();
    const [charge] = await charged(tenantId, [{ operation: 'memory.write', occurred_at: OCCURRED }]);
    const { id } = charge as { id: string };
    const counter = committedCounter();
    const first = await voidCharge(voiding(tenantId, id), counter);

    // Act
    const second = await voidCharge(
      voiding(tenantId, id, { actor_user_id: 'user-admin', reason: 'changed my mind' }),
      counter,
    );

    // Assert
    expect(second).toEqual(first);
    expect(second.history).toHaveLength(2);
    expect(await voidedEvents(id)).toHaveLength(1);
    expect(counter.commits).toBe(1);
  });

  it('when two voids of one charge race, then both answer it void, and it holds one void event and one charge.voided', async () => {
    // Arrange
    const tenantId = uniqueTenant();
    const [charge] = await charged(tenantId, [{ operation: 'memory.write', occurred_at: OCCURRED }]);
    const { id } = charge as { id: string };
    const counter = committedCounter();

    // Act
    const answers = await Promise.all([
      voidCharge(voiding(tenantId, id, { actor_user_id: 'user-a' }), counter),
      voidCharge(voiding(tenantId, id, { actor_user_id: 'user-b' }), counter),
    ]);

    // Assert
    expect(answers.map((a) => a.state)).toEqual(['void', 'void']);
    const { events } = await stored(id);
    expect(events.filter((e) => e.toState === 'void')).toHaveLength(1);
    expect(await voidedEvents(id)).toHaveLength(1);
    expect(counter.commits).toBe(1);
  });

  it('when another tenant voids the charge, then 404 not_found as for a charge that does not exist, and the charge stays recorded with no event', async () => {
    // Arrange
    const owner = uniqueTenant();
    const [charge] = await charged(owner, [{ operation: 'memory.write', occurred_at: OCCURRED }]);
    const { id } = charge as { id: string };
    const counter = committedCounter();

    // Act
    const refusal = await refusalOf(voidCharge(voiding(uniqueTenant(), id), counter));

    // Assert
    expect(refusal).toBeInstanceOf(AppError);
    expect(refusal).toMatchObject({ code: ErrorCode.NotFound, message: 'No such charge' });
    expect(statusOf(ErrorCode.NotFound)).toBe(404);
    expect(await stored(id)).toMatchObject({ state: 'recorded', events: [{ toState: 'recorded' }] });
    expect(await voidedEvents(id)).toEqual([]);
    expect(counter.commits).toBe(0);
  });

  it('when the charge id is a UUID the ledger does not hold, then 404 not_found', async () => {
    const refusal = await refusalOf(voidCharge(voiding(uniqueTenant(), randomUUID())));

    expect(refusal).toBeInstanceOf(AppError);
    expect(refusal).toMatchObject({ code: ErrorCode.NotFound, message: 'No such charge' });
  });

  it('when the charge id is not a UUID, then 404 not_found before the ledger is read', async () => {
    const unreachable = new Proxy(
      {},
      {
        get: () => {
          throw new Error('the database was used');
        },
      },
    ) as never;

    for (const chargeId of ['not-a-charge', "' OR 1=1 --", `${randomUUID()}x`]) {
      const refusal = await refusalOf(voidCharge(voiding(uniqueTenant(), chargeId), {}, unreachable));

      expect(refusal).toBeInstanceOf(AppError);
      expect(refusal).toMatchObject({ code: ErrorCode.NotFound, message: 'No such charge' });
    }
  });

  it('when the charge has been invoiced, then 409 (it would need a credit note) and it stays invoiced with no event', async () => {
    // Arrange: a November charge rolled up into November's invoice.
    const tenantId = uniqueTenant();
    const [charge] = await charged(tenantId, [{ operation: 'memory.write', occurred_at: OCCURRED }]);
    const { id } = charge as { id: string };
    await closeInvoicePeriod(
      { tenant_id: tenantId, period: '2026-11', actor_user_id: 'user-owner' },
      { now: new Date('2026-12-02T00:00:00.000Z') },
    );
    const counter = committedCounter();

    // Act
    const refusal = await refusalOf(voidCharge(voiding(tenantId, id), counter));

    // Assert
    expect(refusal).toBeInstanceOf(AppError);
    expect(refusal).toMatchObject({
      code: ErrorCode.AlreadyExists,
      message: 'An invoiced charge cannot be voided',
    });
    expect(statusOf(ErrorCode.AlreadyExists)).toBe(409);
    expect(await stored(id)).toMatchObject({ state: 'invoiced' });
    expect((await stored(id)).events.map((e) => e.toState)).toEqual(['recorded', 'invoiced']);
    expect(await voidedEvents(id)).toEqual([]);
    expect(counter.commits).toBe(0);
  });
});
