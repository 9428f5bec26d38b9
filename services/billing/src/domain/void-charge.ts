import { enqueueOutbox } from '@tm/bus';
import {
  AppError,
  type ChargeView,
  type ChargeVoidedEvent,
  ErrorCode,
  Subjects,
  UUID_PATTERN,
  type VoidChargeMessage,
} from '@tm/contracts';
import { prismaRunner, timeOrderedId } from '@tm/kit';
import { findCharge, transitionCharge } from '../data-access/ledger-repository.js';
import { getPrisma } from '../data-access/prisma-client.js';
import { chargeView, usd } from './charge-view.js';

const notFound = () => new AppError(ErrorCode.NotFound, 'No such charge');

/**
 * recorded or unbilled → void, keeping the usage record and the charge's history. Idempotent: a
 * void charge answers as it is. An invoiced charge cannot be voided in the sandbox (409): it would
 * need a credit note. The void's `charge.voided` event (the webhooks service's) is an outbox
 * row of the same transaction: one per charge, since only the void that moved it writes one.
 */
export async function voidCharge(
  message: VoidChargeMessage,
  deps: { onCommitted?: () => void } = {},
  db = getPrisma(),
): Promise<ChargeView> {
  if (!UUID_PATTERN.test(message.charge_id)) throw notFound();
  let voided = false;
  const charge = await db.$transaction(async (tx) => {
    const current = await findCharge(tx, message.tenant_id, message.charge_id);
    if (!current) throw notFound();
    if (current.state === 'invoiced') {
      throw new AppError(ErrorCode.AlreadyExists, 'An invoiced charge cannot be voided');
    }
    if (current.state !== 'void') {
      const at = await transitionCharge(tx, {
        id: current.id,
        from: current.state,
        to: 'void',
        actorUserId: message.actor_user_id,
        reason: message.reason,
      });
      if (at) {
        const eventId = timeOrderedId();
        await enqueueOutbox(
          prismaRunner(tx),
          Subjects.billing.chargeVoided,
          {
            version: 'v1',
            event_id: eventId,
            tenant_id: current.tenantId,
            charge_id: current.id,
            operation: current.operation,
            units: current.units,
            amount_usd: usd(current.amountMicroUsd),
            previous_state: current.state,
            reason: message.reason,
            actor_user_id: message.actor_user_id,
            request_id: current.usageRecord.requestId,
            occurred_at: at.toISOString(),
          } satisfies ChargeVoidedEvent,
          eventId,
        );
        voided = true;
      }
    }
    return findCharge(tx, message.tenant_id, message.charge_id);
  });
  if (voided) deps.onCommitted?.();
  if (!charge) throw notFound();
  return chargeView(charge);
}
