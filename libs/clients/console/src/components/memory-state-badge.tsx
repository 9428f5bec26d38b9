/** A memory's state as a badge: retained is the good news, any other state is worth a look. */
export function MemoryStateBadge({ state }: { state: string }) {
  return <span className={`badge badge-${state === 'retained' ? 'ok' : 'warning'}`}>{state}</span>;
}
