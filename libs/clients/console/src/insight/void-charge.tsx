import type { ResponseOf } from '@text-memory/sdk';
import { useEffect, useId, useRef, useState } from 'react';
import { ErrorNotice } from '../components/error-notice.js';
import { TypedConfirmation } from '../components/typed-confirmation.js';
import { useSession } from '../session/session-context.js';
import { formatUsd } from './format.js';

type Charge = ResponseOf<'listCharges'>['data'][number];

/**
 * Voiding a charge is final, so it takes a reason (kept in the charge's history) and the word "void"
 * typed out (POST /control/billing/charges/{id}/void, `billing:void`).
 */
export function VoidCharge({
  charge,
  onVoided,
  onCancel,
}: {
  charge: Charge;
  onVoided: (voided: Charge) => void;
  onCancel: () => void;
}) {
  const { client } = useSession();
  const [reason, setReason] = useState('');
  const [error, setError] = useState<unknown>();
  const id = useId();
  // Opened from a row's button: the keyboard goes straight to the reason.
  const reasonInput = useRef<HTMLInputElement>(null);
  useEffect(() => reasonInput.current?.focus(), []);
  const confirm = async () => {
    setError(undefined);
    try {
      onVoided(await client.control.billing.voidCharge(charge.id, { reason: reason.trim() }));
    } catch (e) {
      setError(e);
    }
  };
  return (
    <section className="card" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>
        Void the {charge.operation} charge of {formatUsd(charge.amount_usd)}
      </h2>
      <p className="hint">
        Charge <code>{charge.id}</code>, request <code>{charge.request_id}</code>. A void charge is never
        billed and cannot be restored.
      </p>
      <form className="stack" onSubmit={(e) => e.preventDefault()}>
        <label htmlFor={`${id}-reason`}>Reason (kept in the charge's history)</label>
        <input
          id={`${id}-reason`}
          ref={reasonInput}
          value={reason}
          maxLength={500}
          onChange={(e) => setReason(e.target.value)}
          autoComplete="off"
        />
      </form>
      {reason.trim() ? (
        <TypedConfirmation phrase="void" action="Void charge" onConfirm={confirm} onCancel={onCancel} />
      ) : (
        <p className="row">
          Give a reason first.{' '}
          <button type="button" className="button-secondary" onClick={onCancel}>
            Cancel
          </button>
        </p>
      )}
      <ErrorNotice error={error} />
    </section>
  );
}
