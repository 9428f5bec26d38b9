import { type FormEvent, useId, useState } from 'react';

/**
 * A destructive action that runs only once the user has typed `phrase` (a namespace's name, "void"):
 * a slip of the mouse cannot delete data.
 */
export function TypedConfirmation({
  phrase,
  action,
  onConfirm,
  onCancel,
}: {
  phrase: string;
  action: string;
  onConfirm: () => void | Promise<void>;
  onCancel: () => void;
}) {
  const [typed, setTyped] = useState('');
  const [busy, setBusy] = useState(false);
  const id = useId();
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (typed !== phrase) return;
    setBusy(true);
    try {
      await onConfirm();
    } finally {
      setBusy(false);
    }
  };
  return (
    <form className="confirmation" onSubmit={submit} aria-label={`Confirm: ${action}`}>
      <label htmlFor={id}>
        Type <code>{phrase}</code> to {action.toLowerCase()}
      </label>
      <input id={id} value={typed} onChange={(e) => setTyped(e.target.value)} autoComplete="off" />
      <div className="row">
        <button type="submit" className="button-danger" disabled={typed !== phrase || busy}>
          {action}
        </button>
        <button type="button" className="button-secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
