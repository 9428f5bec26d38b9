import { type FormEvent, useId, useState } from 'react';
import { useDataKey } from '../session/data-key-context.js';
import { useSession } from '../session/session-context.js';
import { CopyButton } from './copy-button.js';
import { ErrorNotice } from './error-notice.js';

/**
 * Chooses the API key a data-plane page uses: paste one, or create one for this console (its secret is
 * shown once, as on the keys page). Shown by every page that writes, recalls, imports or deletes.
 */
export function DataKeyPicker() {
  const { client: session, can } = useSession();
  const { prefix, chooseKey } = useDataKey();
  const [pasted, setPasted] = useState('');
  const [created, setCreated] = useState<string>();
  const [error, setError] = useState<unknown>();
  const id = useId();

  const paste = (event: FormEvent) => {
    event.preventDefault();
    chooseKey(pasted);
    setPasted('');
  };
  const create = async () => {
    setError(undefined);
    try {
      const answer = await session.control.apiKeys.create({ name: `console ${new Date().toISOString()}` });
      setCreated(answer.key);
      chooseKey(answer.key);
    } catch (e) {
      setError(e);
    }
  };

  return (
    <section className="card data-key" aria-label="API key in use">
      {prefix ? (
        <p>
          Using API key <code>{prefix}…</code>{' '}
          <button type="button" className="button-link" onClick={() => chooseKey(undefined)}>
            Use another key
          </button>
        </p>
      ) : (
        <form onSubmit={paste} className="row">
          <label htmlFor={id}>API key for data calls</label>
          <input
            id={id}
            type="password"
            autoComplete="off"
            placeholder="tmk_…"
            value={pasted}
            onChange={(e) => setPasted(e.target.value)}
          />
          <button type="submit" disabled={!pasted.trim()}>
            Use key
          </button>
          {can('keys:manage') && (
            <button type="button" className="button-secondary" onClick={create}>
              Create a key for the console
            </button>
          )}
        </form>
      )}
      {created && (
        <p className="notice">
          New key, shown once: <code className="secret">{created}</code> <CopyButton value={created} />
        </p>
      )}
      <ErrorNotice error={error} />
      <p className="hint">Held in this tab's memory only: never stored, gone on reload.</p>
    </section>
  );
}
