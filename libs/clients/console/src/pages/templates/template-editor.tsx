import { type FormEvent, useId, useState } from 'react';
import { DataErrorNotice } from '../../components/data-error-notice.js';
import { FormButtons } from '../../components/form-buttons.js';
import { useAction } from '../../hooks/use-action.js';
import { useDataKey } from '../../session/data-key-context.js';
import { FIELD_TYPES, type FieldType, type PrivateTemplate, type TemplateBody } from './template-types.js';

interface FieldDraft {
  key: number;
  name: string;
  type: FieldType;
  required: boolean;
  description: string;
}

let nextKey = 1;
const draftOf = (field?: Partial<FieldDraft>): FieldDraft => ({
  key: nextKey++,
  name: field?.name ?? '',
  type: field?.type ?? 'string',
  required: field?.required ?? false,
  description: field?.description ?? '',
});

/**
 * Creates a private template (POST /v1/templates) or, given one, writes its next revision (PUT, with
 * If-Match on the revision it was read at, so someone else's change in between is refused, not lost).
 */
export function TemplateEditor({
  template,
  onSaved,
  onCancel,
}: {
  template?: PrivateTemplate;
  onSaved: (saved: PrivateTemplate) => void;
  onCancel: () => void;
}) {
  const { client } = useDataKey();
  const id = useId();
  const [name, setName] = useState(template?.template_name ?? '');
  const [version, setVersion] = useState('');
  const [description, setDescription] = useState(template?.description ?? '');
  const [format, setFormat] = useState(template?.format ?? '');
  const [fields, setFields] = useState<FieldDraft[]>(() =>
    template ? template.fields.map((f) => draftOf(f)) : [draftOf()],
  );
  const { busy, error, run } = useAction();

  const change = (key: number, patch: Partial<FieldDraft>) =>
    setFields((all) => all.map((f) => (f.key === key ? { ...f, ...patch } : f)));

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!client) return;
    const body: TemplateBody = {
      template_name: name.trim(),
      fields: fields.map((f) => ({
        name: f.name.trim(),
        type: f.type,
        required: f.required,
        description: f.description.trim(),
      })),
      description: description.trim(),
      ...(version.trim() ? { version: version.trim() } : {}),
      ...(format.trim() ? { format } : {}),
    };
    await run(async () =>
      onSaved(
        template
          ? await client.templates.update(template.template_name, body, { ifMatch: template.revision })
          : await client.templates.create(body),
      ),
    );
  };

  return (
    <form className="stack card" onSubmit={submit} aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`}>
        {template ? `Edit ${template.template_name} (revision ${template.revision})` : 'New template'}
      </h3>
      <label htmlFor={`${id}-name`}>Template name</label>
      <input
        id={`${id}-name`}
        required
        readOnly={template !== undefined}
        value={name}
        onChange={(e) => setName(e.target.value)}
      />
      <label htmlFor={`${id}-version`}>Version label (optional)</label>
      <input
        id={`${id}-version`}
        placeholder="1.0"
        value={version}
        onChange={(e) => setVersion(e.target.value)}
      />
      <label htmlFor={`${id}-description`}>Description</label>
      <input id={`${id}-description`} value={description} onChange={(e) => setDescription(e.target.value)} />
      <label htmlFor={`${id}-format`}>Format string (optional)</label>
      <input
        id={`${id}-format`}
        placeholder="{name} lives in {city|somewhere}"
        value={format}
        onChange={(e) => setFormat(e.target.value)}
      />
      <p className="hint">
        <code>{'{field}'}</code> is replaced by the value, <code>{'{field|default}'}</code> uses the default
        when the field is absent, <code>{'{{'}</code> and <code>{'}}'}</code> are literal braces.
      </p>
      {fields.map((field, index) => (
        <fieldset key={field.key}>
          <legend>Field {index + 1}</legend>
          <div className="row">
            <label htmlFor={`${id}-f${field.key}-name`}>Field {index + 1} name</label>
            <input
              id={`${id}-f${field.key}-name`}
              required
              value={field.name}
              onChange={(e) => change(field.key, { name: e.target.value })}
            />
            <label htmlFor={`${id}-f${field.key}-type`}>Field {index + 1} type</label>
            <select
              id={`${id}-f${field.key}-type`}
              value={field.type}
              onChange={(e) => change(field.key, { type: e.target.value as FieldType })}
            >
              {FIELD_TYPES.map((type) => (
                <option key={type}>{type}</option>
              ))}
            </select>
            <label>
              <input
                type="checkbox"
                checked={field.required}
                onChange={(e) => change(field.key, { required: e.target.checked })}
              />{' '}
              Field {index + 1} required
            </label>
            {fields.length > 1 && (
              <button
                type="button"
                className="button-secondary"
                onClick={() => setFields((all) => all.filter((f) => f.key !== field.key))}
              >
                Remove field {index + 1}
              </button>
            )}
          </div>
          <label htmlFor={`${id}-f${field.key}-description`}>Field {index + 1} description</label>
          <input
            id={`${id}-f${field.key}-description`}
            value={field.description}
            onChange={(e) => change(field.key, { description: e.target.value })}
          />
        </fieldset>
      ))}
      <div className="row">
        <button
          type="button"
          className="button-secondary"
          onClick={() => setFields((all) => [...all, draftOf()])}
        >
          Add field
        </button>
      </div>
      <DataErrorNotice error={error} />
      <FormButtons text={template ? 'Save revision' : 'Create template'} busy={busy} onCancel={onCancel} />
    </form>
  );
}
