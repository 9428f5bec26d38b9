import { type FormEvent, useId, useState } from 'react';
import { ErrorNotice } from '../../components/error-notice.js';
import { useAction } from '../../hooks/use-action.js';
import { useSession } from '../../session/session-context.js';

/** Changes one's own password; the API ends every other session of the user, this one stays. */
export function PasswordChangeForm() {
  const { client } = useSession();
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [repeat, setRepeat] = useState('');
  const [done, setDone] = useState(false);
  const action = useAction();
  const id = useId();
  const mismatch = repeat.length > 0 && next !== repeat;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (next !== repeat) return;
    setDone(false);
    const changed = await action.run(() =>
      // A wrong current password counts like a failed login: a 429 is shown at once, not retried.
      client.control.account.changePassword(
        { current_password: current, new_password: next },
        { maxRetries: 0 },
      ),
    );
    if (changed) {
      setCurrent('');
      setNext('');
      setRepeat('');
      setDone(true);
    }
  };

  return (
    <form className="card stack" onSubmit={submit} aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Change password</h2>
      <label htmlFor={`${id}-current`}>Current password</label>
      <input
        id={`${id}-current`}
        type="password"
        required
        autoComplete="current-password"
        value={current}
        onChange={(e) => setCurrent(e.target.value)}
      />
      <label htmlFor={`${id}-new`}>New password</label>
      <input
        id={`${id}-new`}
        type="password"
        required
        minLength={12}
        maxLength={256}
        autoComplete="new-password"
        aria-describedby={`${id}-hint`}
        value={next}
        onChange={(e) => setNext(e.target.value)}
      />
      <p className="hint" id={`${id}-hint`}>
        12 to 256 characters, not a common password or one made from your email.
      </p>
      <label htmlFor={`${id}-repeat`}>New password again</label>
      <input
        id={`${id}-repeat`}
        type="password"
        required
        autoComplete="new-password"
        aria-invalid={mismatch}
        aria-describedby={mismatch ? `${id}-mismatch` : undefined}
        value={repeat}
        onChange={(e) => setRepeat(e.target.value)}
      />
      {mismatch && (
        <p className="hint" id={`${id}-mismatch`}>
          The two new passwords differ.
        </p>
      )}
      <ErrorNotice error={action.error} />
      <p aria-live="polite">
        {done && 'Password changed. Your other sessions have ended; this one stays signed in.'}
      </p>
      <div className="row">
        <button type="submit" disabled={action.busy || mismatch}>
          {action.busy ? 'Changing…' : 'Change password'}
        </button>
      </div>
    </form>
  );
}
