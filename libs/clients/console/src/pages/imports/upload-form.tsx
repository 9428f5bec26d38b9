import type { DatasetImportInput, ImportJob, UploadInput } from '@text-memory/sdk';
import { type FormEvent, useId, useState } from 'react';
import { DataErrorNotice } from '../../components/data-error-notice.js';
import { useAction } from '../../hooks/use-action.js';
import { useDataKey } from '../../session/data-key-context.js';

type Source = 'file' | 'dataset';
type Mapping = 'format' | 'template_name' | 'marketplace_template_id';

const SOURCE_LABELS: Record<Source, string> = { file: 'A file', dataset: 'A hub dataset' };

const MAPPING_LABELS: Record<Mapping, string> = {
  format: 'Format string',
  template_name: 'Private template name',
  marketplace_template_id: 'Marketplace template id',
};

/**
 * Makes an import job, to estimate: a file the user chose (POST /v1/imports multipart, the SDK's
 * `imports.upload`), or a model-hub dataset split (the same route with a JSON body, `imports.fromDataset`).
 * A hub token is sent with that one call and dropped from the form once it is answered.
 */
export function UploadForm({ onUploaded }: { onUploaded: (job: ImportJob) => void }) {
  const { client } = useDataKey();
  const id = useId();
  const [source, setSource] = useState<Source>('file');
  const [file, setFile] = useState<File>();
  const [dataset, setDataset] = useState('');
  const [config, setConfig] = useState('');
  const [split, setSplit] = useState('train');
  const [revision, setRevision] = useState('');
  const [hubToken, setHubToken] = useState('');
  const [mapping, setMapping] = useState<Mapping>('format');
  const [mappingValue, setMappingValue] = useState('');
  const [namespace, setNamespace] = useState('imports');
  const { busy, error, run } = useAction();

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!client || (source === 'file' && !file)) return;
    const value = mapping === 'format' ? mappingValue : mappingValue.trim();
    await run(async () => {
      if (source === 'file' && file) {
        const input: UploadInput = { file, namespace: namespace.trim(), [mapping]: value };
        onUploaded(await client.imports.upload(input));
      } else {
        const optional = { config: config.trim(), revision: revision.trim(), hub_token: hubToken.trim() };
        const input: DatasetImportInput = {
          dataset: dataset.trim(),
          split: split.trim(),
          namespace: namespace.trim(),
          [mapping]: value,
          ...Object.fromEntries(Object.entries(optional).filter(([, v]) => v !== '')),
        };
        onUploaded(await client.imports.fromDataset(input));
      }
    });
    // The token served this one call: it is not kept for the next.
    setHubToken('');
  };

  return (
    <section className="card" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>New import</h2>
      <form className="stack" onSubmit={submit}>
        <fieldset>
          <legend>Source</legend>
          {(Object.keys(SOURCE_LABELS) as Source[]).map((option) => (
            <label key={option}>
              <input
                type="radio"
                name={`${id}-source`}
                checked={source === option}
                onChange={() => setSource(option)}
              />{' '}
              {SOURCE_LABELS[option]}{' '}
            </label>
          ))}
        </fieldset>
        {source === 'file' ? (
          <>
            <label htmlFor={`${id}-file`}>File (CSV, XLSX, XLS, JSON or NDJSON, up to 20 MiB)</label>
            <input
              id={`${id}-file`}
              type="file"
              required
              accept=".csv,.xlsx,.xls,.json,.ndjson,.jsonl"
              onChange={(e) => setFile(e.target.files?.[0])}
            />
          </>
        ) : (
          <>
            <label htmlFor={`${id}-dataset`}>Dataset id (owner/name)</label>
            <input
              id={`${id}-dataset`}
              required
              maxLength={96}
              placeholder="owner/name"
              value={dataset}
              onChange={(e) => setDataset(e.target.value)}
            />
            <label htmlFor={`${id}-config`}>Config (optional: the only one, or default)</label>
            <input
              id={`${id}-config`}
              maxLength={48}
              value={config}
              onChange={(e) => setConfig(e.target.value)}
            />
            <label htmlFor={`${id}-split`}>Split</label>
            <input
              id={`${id}-split`}
              required
              maxLength={48}
              value={split}
              onChange={(e) => setSplit(e.target.value)}
            />
            <label htmlFor={`${id}-revision`}>Revision (optional: commit sha or branch)</label>
            <input id={`${id}-revision`} value={revision} onChange={(e) => setRevision(e.target.value)} />
            <label htmlFor={`${id}-token`}>Hub token (optional, for a gated or private dataset)</label>
            <input
              id={`${id}-token`}
              type="password"
              autoComplete="off"
              value={hubToken}
              onChange={(e) => setHubToken(e.target.value)}
            />
            <p className="hint">
              The token is sent with this request only and kept, sealed, while the import runs; the console
              does not keep it.
            </p>
          </>
        )}
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
          <p className="hint">
            Placeholders name the{' '}
            {source === 'file' ? "file's columns (CSV headers, JSON keys)" : "dataset's columns"}.
          </p>
        )}
        <label htmlFor={`${id}-ns`}>Namespace</label>
        <input id={`${id}-ns`} required value={namespace} onChange={(e) => setNamespace(e.target.value)} />
        <button type="submit" disabled={busy || (source === 'file' && !file)}>
          {busy
            ? source === 'file'
              ? 'Uploading…'
              : 'Reading the dataset…'
            : source === 'file'
              ? 'Upload and estimate'
              : 'Estimate the dataset'}
        </button>
      </form>
      <div aria-live="polite">
        {busy && (
          <p>{source === 'file' ? 'Uploading and reading the file…' : 'Asking the hub about the split…'}</p>
        )}
        <DataErrorNotice error={error} />
      </div>
    </section>
  );
}
