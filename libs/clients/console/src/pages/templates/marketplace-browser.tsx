import { type FormEvent, useId, useState } from 'react';
import { DataErrorNotice } from '../../components/data-error-notice.js';
import { DataTable } from '../../components/data-table.js';
import { useLoad } from '../../hooks/use-load.js';
import { formatCount } from '../../insight/format.js';
import { useDataKey } from '../../session/data-key-context.js';
import { useSession } from '../../session/session-context.js';
import { TemplateDefinition } from './template-definition.js';
import { type MarketplaceTemplate, marketplaceChoice, type TemplateChoice } from './template-types.js';

/** The marketplace's categories (seeded by the template service's migration; docs/decisions/templates-and-imports.md). */
const CATEGORIES = [
  'meetings',
  'customers',
  'support',
  'product',
  'research',
  'productivity',
  'engineering',
  'personal',
  'hiring',
];

/** Ready-made templates (GET /v1/marketplace/templates): search by category and keyword, view one. */
export function MarketplaceBrowser({ onUse }: { onUse: (choice: TemplateChoice) => void }) {
  const { client } = useDataKey();
  const { can } = useSession();
  const id = useId();
  const [category, setCategory] = useState('');
  const [keyword, setKeyword] = useState('');
  const [query, setQuery] = useState<{ category?: string; keyword?: string }>({});
  const [viewing, setViewing] = useState<MarketplaceTemplate>();
  const results = useLoad(
    (signal) =>
      client ? client.marketplace.search({ ...query, limit: 200 }, { signal }) : Promise.resolve(undefined),
    [client, query],
  );

  const search = (event: FormEvent) => {
    event.preventDefault();
    setQuery({
      ...(category ? { category } : {}),
      ...(keyword.trim() ? { keyword: keyword.trim() } : {}),
    });
  };

  return (
    <section className="card" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Marketplace</h2>
      <form className="row" onSubmit={search} aria-label="Search the marketplace">
        <label htmlFor={`${id}-category`}>Category</label>
        <select id={`${id}-category`} value={category} onChange={(e) => setCategory(e.target.value)}>
          <option value="">Any</option>
          {CATEGORIES.map((c) => (
            <option key={c}>{c}</option>
          ))}
        </select>
        <label htmlFor={`${id}-keyword`}>Keyword</label>
        <input id={`${id}-keyword`} value={keyword} onChange={(e) => setKeyword(e.target.value)} />
        <button type="submit">Search</button>
      </form>
      <DataErrorNotice error={results.error} />
      <div aria-live="polite">
        {results.data && (
          <p className="hint">
            {formatCount(results.data.paging.total)}{' '}
            {results.data.paging.total === 1 ? 'template' : 'templates'} found
          </p>
        )}
      </div>
      {results.data && results.data.data.length > 0 && (
        <DataTable caption="Marketplace templates" columns={['Name', 'Category', 'Keywords', 'Actions']}>
          {results.data.data.map((entry) => (
            <tr key={entry.marketplace_template_id}>
              <th scope="row">
                {entry.template_name}
                <div className="hint">{entry.description}</div>
              </th>
              <td>{entry.category}</td>
              <td>{entry.keywords.join(', ')}</td>
              <td>
                <button
                  type="button"
                  className="button-secondary"
                  aria-label={`View ${entry.template_name}`}
                  onClick={() => setViewing(entry)}
                >
                  View
                </button>
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      {viewing && (
        <TemplateDefinition
          template={viewing}
          meta={
            <p className="hint">
              <code>{viewing.marketplace_template_id}</code> · {viewing.category} · version {viewing.version}
            </p>
          }
          onUse={can('memory:write') ? () => onUse(marketplaceChoice(viewing)) : undefined}
          onClose={() => setViewing(undefined)}
        />
      )}
    </section>
  );
}
