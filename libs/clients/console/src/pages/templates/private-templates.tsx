import { useState } from 'react';
import { DataErrorNotice } from '../../components/data-error-notice.js';
import { DataTable, numberColumn } from '../../components/data-table.js';
import { DateTime } from '../../components/date-time.js';
import { Pager } from '../../components/pager.js';
import { useLoad } from '../../hooks/use-load.js';
import { formatCount } from '../../insight/format.js';
import { useDataKey } from '../../session/data-key-context.js';
import { useSession } from '../../session/session-context.js';
import { TemplateDefinition } from './template-definition.js';
import { TemplateEditor } from './template-editor.js';
import { type PrivateTemplate, privateChoice, type TemplateChoice } from './template-types.js';

const PAGE_SIZE = 50;

/** The tenant's private templates (GET /v1/templates): list, view, create, edit. */
export function PrivateTemplates({ onUse }: { onUse: (choice: TemplateChoice) => void }) {
  const { client } = useDataKey();
  const { can } = useSession();
  const [offset, setOffset] = useState(0);
  const [viewing, setViewing] = useState<PrivateTemplate>();
  const [editing, setEditing] = useState<PrivateTemplate | 'new'>();
  const [saved, setSaved] = useState<string>();
  const list = useLoad(
    (signal) =>
      client ? client.templates.list({ limit: PAGE_SIZE, offset }, { signal }) : Promise.resolve(undefined),
    [client, offset],
  );
  const canWrite = can('memory:write');
  const nextOffset = list.data?.paging.next_offset ?? null;

  return (
    <section className="card" aria-labelledby="private-templates-title">
      <div className="row">
        <h2 id="private-templates-title">Private templates</h2>
        {canWrite && !editing && (
          <button type="button" onClick={() => setEditing('new')}>
            New template
          </button>
        )}
      </div>
      <div aria-live="polite">{saved && <p className="notice">{saved}</p>}</div>
      {editing && (
        <TemplateEditor
          key={editing === 'new' ? 'new' : `${editing.id}@${editing.revision}`}
          template={editing === 'new' ? undefined : editing}
          onCancel={() => setEditing(undefined)}
          onSaved={(template) => {
            setSaved(`Saved ${template.template_name}, revision ${template.revision}.`);
            setEditing(undefined);
            setViewing(template);
            list.reload();
          }}
        />
      )}
      <DataErrorNotice error={list.error} />
      {list.loading && !list.data && <p>Loading…</p>}
      {list.data &&
        (list.data.data.length === 0 ? (
          <p>No private template yet.</p>
        ) : (
          <DataTable
            caption="Private templates"
            columns={['Name', 'Version', numberColumn('Fields'), 'Updated', 'Actions']}
            after={
              <>
                <p className="hint">
                  {formatCount(list.data.paging.offset + 1)}–
                  {formatCount(list.data.paging.offset + list.data.paging.returned)} of{' '}
                  {formatCount(list.data.paging.total)}
                </p>
                <Pager
                  onPrevious={offset > 0 ? () => setOffset(Math.max(0, offset - PAGE_SIZE)) : undefined}
                  onNext={nextOffset !== null ? () => setOffset(nextOffset) : undefined}
                />
              </>
            }
          >
            {list.data.data.map((template) => (
              <tr key={template.id}>
                <th scope="row">{template.template_name}</th>
                <td>
                  {template.version} <span className="hint">(revision {template.revision})</span>
                </td>
                <td className="number">{formatCount(template.fields.length)}</td>
                <td>
                  <DateTime value={template.updated_at} />
                </td>
                <td>
                  <div className="row">
                    <button
                      type="button"
                      className="button-secondary"
                      aria-label={`View ${template.template_name}`}
                      onClick={() => setViewing(template)}
                    >
                      View
                    </button>
                    {canWrite && (
                      <button
                        type="button"
                        className="button-secondary"
                        aria-label={`Edit ${template.template_name}`}
                        onClick={() => setEditing(template)}
                      >
                        Edit
                      </button>
                    )}
                  </div>
                </td>
              </tr>
            ))}
          </DataTable>
        ))}
      {viewing && (
        <TemplateDefinition
          template={viewing}
          meta={
            <p className="hint">
              Version {viewing.version}, revision {viewing.revision}, updated{' '}
              <DateTime value={viewing.updated_at} />. Id <code>{viewing.id}</code>
            </p>
          }
          onUse={canWrite ? () => onUse(privateChoice(viewing)) : undefined}
          onClose={() => setViewing(undefined)}
        />
      )}
    </section>
  );
}
