/** A moment from the API, in the reader's time zone and language; `empty` when there is none. */
export function DateTime({ value, empty = '—' }: { value: string | null | undefined; empty?: string }) {
  if (!value) return <>{empty}</>;
  return <time dateTime={value}>{new Date(value).toLocaleString()}</time>;
}
