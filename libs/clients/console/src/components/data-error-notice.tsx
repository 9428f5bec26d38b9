import { TextMemoryError } from '@text-memory/sdk';
import { ErrorNotice } from './error-notice.js';

/**
 * A data-plane call's error, with what to do about the two a key itself causes: the API's 401 says the
 * key was not accepted, never why (it never tells a guesser whether a key exists), so the console adds
 * what to do here, choose another key; a 403 names the permission the key or its user lacks.
 */
export function DataErrorNotice({ error }: { error: unknown }) {
  if (!error) return null;
  const status = error instanceof TextMemoryError ? error.status : 0;
  return (
    <>
      <ErrorNotice error={error} />
      {status === 401 && (
        <p className="hint">
          The API key in use is unknown, revoked or belongs to a disabled user: choose another key above.
        </p>
      )}
      {status === 403 && <p className="hint">The key in use, or its user's role, does not allow this.</p>}
    </>
  );
}
