import { encodeNamespacesCursor, type MemoryNamespacesMessage, type NamespacesList } from '@tm/contracts';
import { countRecordsByNamespace } from '../data-access/namespace-summary-repository.js';
import { getSql } from '../data-access/prisma-client.js';

/**
 * One page of the tenant's namespaces that hold records, by name, with their counts. One namespace past
 * the page is read to say whether there is another, as the events route does in cursor mode.
 */
export async function listNamespaces(m: MemoryNamespacesMessage): Promise<NamespacesList> {
  const rows = await countRecordsByNamespace(getSql(), {
    tenantId: m.tenant_id,
    after: m.after,
    limit: m.limit + 1,
  });
  const data = rows.slice(0, m.limit);
  const more = rows.length > m.limit;
  const last = data.at(-1);
  return {
    data,
    paging: {
      limit: m.limit,
      returned: data.length,
      has_more: more,
      next_cursor: more && last ? encodeNamespacesCursor(last.namespace) : null,
    },
  };
}
