import { credentialProblem, TextMemoryError } from '@text-memory/sdk';
import { type FormEvent, useId, useState } from 'react';
import { Link } from 'react-router';
import { useDataKey } from '../session/data-key-context.js';
import { useSession } from '../session/session-context.js';
import { ErrorNotice } from './error-notice.js';
import { SecretShownOnce } from './secret-shown-once.js';

/**
 * Chooses the API key a data-plane page uses. A role that may create keys is offered the console's own
 * key for this tab first, in one click (its secret is shown once, as on the keys page); pasting a key
 * is the other way, and the only one for the others. Shown by every page that writes, recalls, imports
 * or deletes.
 */
export function DataKeyPicker() {
  const { can } = useSession();
  const { prefix, ownKey, chooseKey, takeOwnKey } = useDataKey();
  const [pasted, setPasted] = useState('');
  const [shown, setShown] = useState<{ name: string; key: string }>();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const id = useId();
  const mayCreate = can('keys:manage');

  const paste = (event: FormEvent) => {
    event.preventDefault();
    // The SDK refuses a key it cannot send (a line break or a space inside it): said here, key unshown.
    const problem = credentialProblem(pasted);
    if (problem !== undefined) {
      setError(
        new TextMemoryError({
          status: 0,
          error: `This API key ${problem}: paste it exactly as issued`,
          code: 'validation_failed',
          retryable: false,
        }),
      );
      return;
    }
    setError(undefined);
    chooseKey(pasted);
    setPasted('');
  };
  const takeTabKey = async () => {
    setError(undefined);
    setBusy(true);
    try {
      const had = ownKey !== undefined;
      const made = await takeOwnKey();
      // A new key's secret is shown once; taking back the tab's key shows nothing new.
      if (!had) setShown(made);
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="card data-key" aria-label="API key in use">
      {prefix ? (
        <p>
          Using API key <code>{prefix}…</code>
          {ownKey && prefix === ownKey.key.slice(0, 12) && <> (this tab's key, {ownKey.name})</>}{' '}
          <button type="button" className="button-link" onClick={() => chooseKey(undefined)}>
            Use another key
          </button>
        </p>
      ) : (
        <>
          {mayCreate && (
            <div className="row">
              <button type="button" onClick={() => void takeTabKey()} disabled={busy}>
                {ownKey ? `Use this tab's key (${ownKey.key.slice(0, 12)}…)` : 'Create a key for the console'}
              </button>
              <span className="hint">
                {ownKey
                  ? 'The key this console created for the tab.'
                  : 'One click: a key for this tab that can write, recall and delete, nothing else.'}
              </span>
            </div>
          )}
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
            <button type="submit" className="button-secondary" disabled={!pasted.trim()}>
              Use key
            </button>
          </form>
        </>
      )}
      {shown && (
        <SecretShownOnce
          title={`New API key ${shown.name}`}
          secret={shown.key}
          usage="This console uses it until you reload the tab; Connect an app shows it in ready-to-copy snippets meanwhile."
          onDismiss={() => setShown(undefined)}
        />
      )}
      <ErrorNotice error={error} />
      <p className="hint">
        Held in this tab's memory only: never stored, gone on reload.
        {mayCreate && (
          <>
            {' '}
            A key created here (named "console (tab)" and the time) is revoked when you log out or leave the
            page; it is listed on the <Link to="/api-keys">API keys</Link> page, where it can be revoked.
          </>
        )}
      </p>
    </section>
  );
}
