import type { ResponseOf } from '@text-memory/sdk';
import { type FormEvent, Fragment, useId, useState } from 'react';
import { DataErrorNotice } from '../../components/data-error-notice.js';
import { DateTime } from '../../components/date-time.js';
import { FieldList } from '../../components/field-list.js';
import { FormButtons } from '../../components/form-buttons.js';
import { MemoryStateBadge } from '../../components/memory-state-badge.js';
import { useDataKey } from '../../session/data-key-context.js';
import type { TemplateChoice, TemplateField } from './template-types.js';

type Created = ResponseOf<'createTemplateMemory', 201>;

/** A field's input as typed, turned into the JSON value the template takes (undefined: left out). */
function fieldValue(field: TemplateField, raw: string | boolean | undefined): unknown {
  if (field.type === 'boolean') return raw === true;
  const text = typeof raw === 'string' ? raw : '';
  if (text.trim() === '') return undefined;
  if (field.type === 'number') return Number(text);
  if (field.type === 'object' || field.type === 'list') {
    try {
      return JSON.parse(text);
    } catch {
      throw new Error(`${field.name}: not valid JSON`);
    }
  }
  return text;
}

/**
 * POST /v1/memories: the template's data, validated and rendered by the template service, retained
 * as a memory. Shows the memory as created: its text, id and the template version it was made with.
 */
export function TemplateMemoryForm({ choice, onClose }: { choice: TemplateChoice; onClose: () => void }) {
  const { client } = useDataKey();
  const id = useId();
  const [values, setValues] = useState<Record<string, string | boolean>>({});
  const [namespace, setNamespace] = useState('templates');
  const [created, setCreated] = useState<Created>();
  const [error, setError] = useState<unknown>();
  const [invalid, setInvalid] = useState<string>();
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!client) return;
    setError(undefined);
    setInvalid(undefined);
    setCreated(undefined);
    const data: Record<string, unknown> = {};
    try {
      for (const field of choice.fields) {
        const value = fieldValue(field, values[field.name]);
        if (value !== undefined) data[field.name] = value;
      }
    } catch (e) {
      setInvalid(e instanceof Error ? e.message : String(e));
      return;
    }
    setBusy(true);
    try {
      setCreated(
        await client.memories.create({
          ...(choice.source === 'private'
            ? { template_name: choice.name }
            : { marketplace_template_id: choice.id }),
          namespace: namespace.trim(),
          data,
        }),
      );
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="card" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>
        Create a memory from {choice.source === 'marketplace' ? 'marketplace template' : 'template'}{' '}
        {choice.name}
      </h2>
      {choice.format && (
        <p className="hint">
          Format: <code>{choice.format}</code>
        </p>
      )}
      <form className="stack" onSubmit={submit}>
        {choice.fields.map((field) => {
          const inputId = `${id}-${field.name}`;
          const label = `${field.name}${field.required ? ' (required)' : ''}`;
          if (field.type === 'boolean') {
            return (
              <label key={field.name}>
                <input
                  type="checkbox"
                  checked={values[field.name] === true}
                  onChange={(e) => setValues({ ...values, [field.name]: e.target.checked })}
                />{' '}
                {label}
              </label>
            );
          }
          const raw = typeof values[field.name] === 'string' ? (values[field.name] as string) : '';
          const onChange = (value: string) => setValues({ ...values, [field.name]: value });
          return (
            <Fragment key={field.name}>
              <label htmlFor={inputId}>{label}</label>
              {field.type === 'object' || field.type === 'list' ? (
                <textarea
                  id={inputId}
                  placeholder={field.type === 'list' ? '["a", "b"]' : '{"key": "value"}'}
                  value={raw}
                  onChange={(e) => onChange(e.target.value)}
                />
              ) : (
                <input
                  id={inputId}
                  type={field.type === 'number' ? 'number' : 'text'}
                  step="any"
                  value={raw}
                  onChange={(e) => onChange(e.target.value)}
                />
              )}
              {field.description && <span className="hint">{field.description}</span>}
            </Fragment>
          );
        })}
        <label htmlFor={`${id}-ns`}>Namespace</label>
        <input id={`${id}-ns`} required value={namespace} onChange={(e) => setNamespace(e.target.value)} />
        <FormButtons
          text="Create memory"
          busyText="Creating…"
          busy={busy}
          cancelText="Close"
          onCancel={onClose}
        />
      </form>
      <div aria-live="polite">
        {invalid && (
          <p role="alert" className="notice notice-error">
            {invalid}
          </p>
        )}
        <DataErrorNotice error={error} />
        {created && (
          <section aria-label="Created memory">
            <h3>
              Memory <MemoryStateBadge state={created.state} />
            </h3>
            {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a long text scrolls inside: reachable by keyboard */}
            <pre className="answer-text" tabIndex={0}>
              {created.text}
            </pre>
            <FieldList
              items={[
                ['Memory id', created.memory_id ? <code key="m">{created.memory_id}</code> : 'none'],
                ['Namespace', created.namespace],
                [
                  'Template',
                  `${created.template.template_name}, version ${created.template.template_version}`,
                ],
                ['Source', created.template.source],
                ['Idempotency', created.idempotency_outcome],
                ['Created', <DateTime key="t" value={created.created_at} />],
                [
                  'Billing',
                  `${created.usage.billing_state}, ${created.usage.operation_units.toLocaleString()} units`,
                ],
                ['Request id', <code key="r">{created.request_id}</code>],
              ]}
            />
          </section>
        )}
      </div>
    </section>
  );
}
