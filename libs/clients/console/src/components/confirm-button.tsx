import { useEffect, useRef, useState } from 'react';
import { ErrorNotice } from './error-notice.js';

/**
 * A button whose action runs only after a second, explicit "yes" beside it (revoke, rotate, disable):
 * a slip of the mouse does nothing. Deletions of data use TypedConfirmation instead.
 */
export function ConfirmButton({
  label,
  name,
  question,
  confirmLabel = label,
  danger = true,
  onConfirm,
}: {
  /** The button's text (`Revoke`). */
  label: string;
  /** Its accessible name when the text alone is ambiguous in a table: `Revoke ci-key`. */
  name?: string;
  question: string;
  confirmLabel?: string;
  danger?: boolean;
  onConfirm: () => Promise<void>;
}) {
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  /** What a rejected onConfirm threw (callers using useAction never throw; any other is shown here). */
  const [error, setError] = useState<unknown>();
  const yes = useRef<HTMLButtonElement>(null);
  // The question replaces the button the user just pressed: keep the keyboard where they are.
  useEffect(() => {
    if (asking) yes.current?.focus();
  }, [asking]);
  if (!asking) {
    return (
      <>
        <button
          type="button"
          className={danger ? 'button-danger' : 'button-secondary'}
          aria-label={name}
          onClick={() => {
            setError(undefined);
            setAsking(true);
          }}
        >
          {label}
        </button>
        <ErrorNotice error={error} />
      </>
    );
  }
  const confirm = async () => {
    setBusy(true);
    try {
      await onConfirm();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
      setAsking(false);
    }
  };
  return (
    // biome-ignore lint/a11y/useSemanticElements: a group of two buttons, not a form's fieldset
    <span role="group" aria-label={question} className="confirm-inline">
      <span>{question}</span>
      <button
        type="button"
        className={danger ? 'button-danger' : undefined}
        disabled={busy}
        ref={yes}
        onClick={() => void confirm()}
      >
        {busy ? 'Working…' : confirmLabel}
      </button>
      <button type="button" className="button-secondary" disabled={busy} onClick={() => setAsking(false)}>
        Cancel
      </button>
    </span>
  );
}
