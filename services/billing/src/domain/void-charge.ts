import { AppError, type ChargeView, ErrorCode, UUID_PATTERN, type VoidChargeMessage } from '@tm/contracts';
import { findCharge, transitionCharge } from '../data-access/ledger-repository.js';
import { getPrisma } from '../data-access/prisma-client.js';
import { chargeView } from './charge-view.js';

const notFound = () => new AppError(ErrorCode.NotFound, 'No such charge');

/**
 * recorded or unbilled → void, keeping the usage record and the charge's history. Idempotent: a
 * void charge answers as it is. An invoiced charge cannot be voided in the sandbox (409): it would
 * need a credit note.
 */
export async function voidCharge(message: VoidChargeMessage, db = getPrisma()): Promise<ChargeView> {
  if (!UUID_PATTERN.test(message.charge_id)) throw notFound();
  const charge = await db.$transaction(async (tx) => {
    const current = await findCharge(tx, message.tenant_id, message.charge_id);
    if (!current) throw notFound();
    if (current.state === 'invoiced') {
      throw new AppError(ErrorCode.AlreadyExists, 'An invoiced charge cannot be voided');
    }
    if (current.state !== 'void') {
      await transitionCharge(tx, {
        id: current.id,
        from: current.state,
        to: 'void',
        actorUserId: message.actor_user_id,
        reason: message.reason,
      });
    }
    return findCharge(tx, message.tenant_id, message.charge_id);
  });
  if (!charge) throw notFound();
  return chargeView(charge);
}
