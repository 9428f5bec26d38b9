import { type FormEvent, useId, useState } from 'react';

/** "Open an import by id": an import made elsewhere (the CLI, another tab) followed here. */
export function OpenImportForm({ onOpen }: { onOpen: (importId: string) => void }) {
  const id = useId();
  const [importId, setImportId] = useState('');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (importId.trim()) onOpen(importId.trim());
  };
  return (
    <section className="card" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Open an import by id</h2>
      <form className="row" onSubmit={submit}>
        <label htmlFor={`${id}-id`} className="visually-hidden">
          Import id
        </label>
        <input
          id={`${id}-id`}
          required
          autoComplete="off"
          placeholder="Import id"
          value={importId}
          onChange={(e) => setImportId(e.target.value)}
        />
        <button type="submit" className="button-secondary">
          Open import
        </button>
      </form>
    </section>
  );
}
