import { useCallback, useEffect, useState } from 'react';

export interface Loaded<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  /** Load again (after a change the page made). */
  reload: () => void;
}

/**
 * One read through the SDK, started when the component mounts and again when `deps` change. The
 * answer of a superseded load is dropped, so a slow old page never overwrites a newer one.
 */
export function useLoad<T>(load: (signal: AbortSignal) => Promise<T>, deps: readonly unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: unknown; loading: boolean }>({ loading: true });
  const [round, setRound] = useState(0);
  // biome-ignore lint/correctness/useExhaustiveDependencies: the caller's deps decide when to load again
  const run = useCallback(load, deps);

  // biome-ignore lint/correctness/useExhaustiveDependencies: `round` is how reload() asks for another load
  useEffect(() => {
    const controller = new AbortController();
    setState((previous) => ({ ...previous, loading: true }));
    run(controller.signal).then(
      (data) => !controller.signal.aborted && setState({ data, loading: false }),
      (error) =>
        !controller.signal.aborted && setState((previous) => ({ ...previous, error, loading: false })),
    );
    return () => controller.abort();
  }, [run, round]);

  return { ...state, data: state.data, error: state.error, reload: () => setRound((n) => n + 1) };
}
