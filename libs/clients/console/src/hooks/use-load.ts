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
 * answer of a superseded load is dropped, so a slow old page never overwrites a newer one. The data
 * belongs to the deps it was read with: when they change it is gone at once (a failed 30-day read never
 * leaves the 1-hour numbers under the 30-day heading); only `reload()` keeps it shown while reading again.
 */
export function useLoad<T>(load: (signal: AbortSignal) => Promise<T>, deps: readonly unknown[]): Loaded<T> {
  // biome-ignore lint/correctness/useExhaustiveDependencies: the caller's deps decide when to load again
  const run = useCallback(load, deps);
  const [state, setState] = useState<{ data?: T; error?: unknown; loading: boolean; of?: typeof run }>({
    loading: true,
  });
  const [round, setRound] = useState(0);

  // biome-ignore lint/correctness/useExhaustiveDependencies: `round` is how reload() asks for another load
  useEffect(() => {
    const controller = new AbortController();
    const same = (previous: typeof state) => (previous.of === run ? previous : { of: run });
    setState((previous) => ({ ...same(previous), loading: true }));
    run(controller.signal).then(
      (data) => !controller.signal.aborted && setState({ data, loading: false, of: run }),
      (error) =>
        !controller.signal.aborted && setState((previous) => ({ ...same(previous), error, loading: false })),
    );
    return () => controller.abort();
  }, [run, round]);

  // Until the effect has run for new deps, the old answer is not theirs either.
  const current = state.of === run;
  return {
    data: current ? state.data : undefined,
    error: current ? state.error : undefined,
    loading: current ? state.loading : true,
    reload: () => setRound((n) => n + 1),
  };
}
