import type { ReactNode } from 'react';
import { DataTable } from '../../components/data-table.js';
import type { TemplateField } from './template-types.js';

/**
 * A template's fields and format string, as the API gives them (private and marketplace alike), with
 * its two actions: create a memory from it (`onUse`, absent for a role that cannot write) and close.
 */
export function TemplateDefinition({
  template: { template_name: title, description, fields, format },
  meta,
  onUse,
  onClose,
}: {
  template: { template_name: string; description: string; fields: TemplateField[]; format?: string };
  meta: ReactNode;
  onUse?: () => void;
  onClose: () => void;
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
      <div className="row">
        {onUse && (
          <button type="button" onClick={onUse}>
            Create a memory from {title}
          </button>
        )}
        <button type="button" className="button-secondary" onClick={onClose}>
          Close
        </button>
      </div>
    </section>
  );
}
