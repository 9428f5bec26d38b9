import type { ReactNode } from 'react';
import { DataTable } from '../../components/data-table.js';
import type { TemplateField } from './template-types.js';

/** A template's fields and format string, as the API gives them (private and marketplace alike). */
export function TemplateDefinition({
  title,
  description,
  fields,
  format,
  meta,
  actions,
}: {
  title: ReactNode;
  description: string;
  fields: TemplateField[];
  format: string | undefined;
  meta?: ReactNode;
  actions?: ReactNode;
}) {
  return (
    <section className="card" aria-label="Template definition">
      <h3>{title}</h3>
      {meta}
      {description && <p>{description}</p>}
      <DataTable caption="Fields" columns={['Field', 'Type', 'Required', 'Description']}>
        {fields.map((field) => (
          <tr key={field.name}>
            <th scope="row">
              <code>{field.name}</code>
            </th>
            <td>{field.type}</td>
            <td>{field.required ? 'yes' : 'no'}</td>
            <td>{field.description}</td>
          </tr>
        ))}
      </DataTable>
      <p>
        Format:{' '}
        {format ? (
          <code>{format}</code>
        ) : (
          <span className="hint">none (one "name: value" line per field)</span>
        )}
      </p>
      {actions && <div className="row">{actions}</div>}
    </section>
  );
}
