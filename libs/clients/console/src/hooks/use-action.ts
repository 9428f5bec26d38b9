import { useCallback, useState } from 'react';

export interface Action {
  /** The last failed action's error, for <ErrorNotice>; cleared when the next one starts. */
  error: unknown;
  busy: boolean;
  /** Runs a change; resolves true when it succeeded (a failure is kept in `error`, never thrown). */
  run: (change: () => Promise<unknown>) => Promise<boolean>;
}

/** One page's changes (create, revoke…): whatever fails is shown, never swallowed. */
export function useAction(): Action {
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const run = useCallback(async (change: () => Promise<unknown>) => {
    setError(undefined);
    setBusy(true);
    try {
      await change();
      return true;
    } catch (e) {
      setError(e);
      return false;
    } finally {
      setBusy(false);
    }
  }, []);
  return { error, busy, run };
}
