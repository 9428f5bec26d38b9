import { credentialProblem, type Schemas, TextMemoryError } from '@text-memory/sdk';
import { type FormEvent, useId, useState } from 'react';
import { Link } from 'react-router';
import { useDataKey } from '../session/data-key-context.js';
import { useSession } from '../session/session-context.js';
import { ErrorNotice } from './error-notice.js';
import { SecretShownOnce } from './secret-shown-once.js';

/**
 * What the data pages do with the key (write, recall, delete a namespace): a console key holds no more,
 * so not telemetry:read nor an owner's export:read, whatever its creator's role would give by default.
 */
const DATA_PAGE_PERMISSIONS: Schemas['ApiKey']['permissions'] = [
  'memory:write',
  'memory:recall',
  'memory:delete',
];

/**
 * Chooses the API key a data-plane page uses: paste one, or create one for this console (its secret is
 * shown once, as on the keys page). Shown by every page that writes, recalls, imports or deletes.
 */
export function DataKeyPicker() {
  const { client: session, can } = useSession();
  const { prefix, chooseKey } = useDataKey();
  const [pasted, setPasted] = useState('');
  const [created, setCreated] = useState<{ name: string; key: string }>();
  const [error, setError] = useState<unknown>();
  const id = useId();

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
  const create = async () => {
    setError(undefined);
    try {
      const answer = await session.control.apiKeys.create({
        name: `console ${new Date().toISOString()}`,
        // Within the role too: the server refuses a permission the role does not hold.
        permissions: DATA_PAGE_PERMISSIONS.filter((permission) => can(permission)),
      });
      setCreated({ name: answer.name, key: answer.key });
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
        <SecretShownOnce
          title={`New API key ${created.name}`}
          secret={created.key}
          usage="This console uses it until you reload the tab."
          onDismiss={() => setCreated(undefined)}
        />
      )}
      <ErrorNotice error={error} />
      <p className="hint">
        Held in this tab's memory only: never stored, gone on reload.
        {can('keys:manage') && (
          <>
            {' '}
            A key created here (named "console" and the time) is listed on the{' '}
            <Link to="/api-keys">API keys</Link> page, where it can be revoked.
          </>
        )}
      </p>
    </section>
  );
}
