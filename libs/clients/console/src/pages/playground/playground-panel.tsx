import type { FormEvent, ReactNode } from 'react';
import { DataErrorNotice } from '../../components/data-error-notice.js';

/**
 * One playground call: its form (the namespace, the call's own fields, the submit button) and, under
 * it, the error or the answer, announced as they arrive. `id` prefixes the inputs' ids.
 */
export function PlaygroundPanel({
  id,
  title,
  namespace,
  onNamespaceChange,
  fields,
  submitText,
  busyText,
  ready,
  busy,
  error,
  onSubmit,
  answer,
}: {
  id: string;
  title: string;
  namespace: string;
  onNamespaceChange: (namespace: string) => void;
  fields: ReactNode;
  submitText: string;
  busyText: string;
  /** The fields the call needs are filled in. */
  ready: boolean;
  busy: boolean;
  error: unknown;
  onSubmit: (event: FormEvent) => void;
  answer: ReactNode;
}) {
  return (
    <section className="card" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{title}</h2>
      <form className="stack" onSubmit={onSubmit}>
        <label htmlFor={`${id}-ns`}>Namespace</label>
        <input
          id={`${id}-ns`}
          required
          value={namespace}
          onChange={(e) => onNamespaceChange(e.target.value)}
        />
        {fields}
        <button type="submit" disabled={busy || !ready}>
          {busy ? busyText : submitText}
        </button>
      </form>
      <div aria-live="polite">
        <DataErrorNotice error={error} />
        {answer}
      </div>
    </section>
  );
}
