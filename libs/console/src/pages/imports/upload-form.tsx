import type { ImportJob, UploadInput } from '@text-memory/sdk';
import { type FormEvent, useId, useState } from 'react';
import { DataErrorNotice } from '../../components/data-error-notice.js';
import { useDataKey } from '../../session/data-key-context.js';

type Mapping = 'format' | 'template_name' | 'marketplace_template_id';

const MAPPING_LABELS: Record<Mapping, string> = {
  format: 'Format string',
  template_name: 'Private template name',
  marketplace_template_id: 'Marketplace template id',
};

/** POST /v1/imports (multipart) through the SDK's `imports.upload`, with the File the user chose. */
export function UploadForm({ onUploaded }: { onUploaded: (job: ImportJob) => void }) {
  const { client } = useDataKey();
  const id = useId();
  const [file, setFile] = useState<File>();
  const [mapping, setMapping] = useState<Mapping>('format');
  const [mappingValue, setMappingValue] = useState('');
  const [namespace, setNamespace] = useState('imports');
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!client || !file) return;
    setBusy(true);
    setError(undefined);
    const input: UploadInput = { file, namespace: namespace.trim() };
    input[mapping] = mapping === 'format' ? mappingValue : mappingValue.trim();
    try {
      onUploaded(await client.imports.upload(input));
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="card" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Upload</h2>
      <form className="stack" onSubmit={submit}>
        <label htmlFor={`${id}-file`}>File (CSV, XLSX, XLS, JSON or NDJSON, up to 20 MiB)</label>
        <input
          id={`${id}-file`}
          type="file"
          required
          accept=".csv,.xlsx,.xls,.json,.ndjson,.jsonl"
          onChange={(e) => setFile(e.target.files?.[0])}
        />
        <fieldset>
          <legend>How a row becomes text</legend>
          {(Object.keys(MAPPING_LABELS) as Mapping[]).map((option) => (
            <label key={option}>
              <input
                type="radio"
                name={`${id}-mapping`}
                checked={mapping === option}
                onChange={() => setMapping(option)}
              />{' '}
              {MAPPING_LABELS[option]}{' '}
            </label>
          ))}
        </fieldset>
        <label htmlFor={`${id}-mapping-value`}>{MAPPING_LABELS[mapping]}</label>
        <input
          id={`${id}-mapping-value`}
          required
          placeholder={mapping === 'format' ? '{name} lives in {city|somewhere}' : ''}
          value={mappingValue}
          onChange={(e) => setMappingValue(e.target.value)}
        />
        {mapping === 'format' && (
          <p className="hint">Placeholders name the file's columns (CSV headers, JSON keys).</p>
        )}
        <label htmlFor={`${id}-ns`}>Namespace</label>
        <input id={`${id}-ns`} required value={namespace} onChange={(e) => setNamespace(e.target.value)} />
        <button type="submit" disabled={busy || !file}>
          {busy ? 'Uploading…' : 'Upload and estimate'}
        </button>
      </form>
      <div aria-live="polite">
        {busy && <p>Uploading and reading the file…</p>}
        <DataErrorNotice error={error} />
      </div>
    </section>
  );
}
