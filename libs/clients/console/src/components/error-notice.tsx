import { TextMemoryError } from '@text-memory/sdk';

/** A failed call as the API said it: its message, the code and the request id to quote to support. */
export function ErrorNotice({ error }: { error: unknown }) {
  if (!error) return null;
  const known = error instanceof TextMemoryError;
  return (
    <div role="alert" className="notice notice-error">
      <strong>{known ? error.message : 'Something went wrong.'}</strong>
      {known && (
        <span className="notice-meta">
          {' '}
          {error.status > 0 ? `HTTP ${error.status}` : 'no answer'} · {error.code}
          {error.request_id ? ` · request ${error.request_id}` : ''}
        </span>
      )}
    </div>
  );
}
