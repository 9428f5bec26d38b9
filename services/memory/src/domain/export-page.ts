import type { MemoryExportPage, MemoryExportPageMessage } from '@tm/contracts';
import { exportRecords, exportRelations } from '../data-access/export-repository.js';
import { getSql } from '../data-access/prisma-client.js';

/**
 * One page of a tenant's export: records or supersession relations, with the cursor of the next page
 * (null on the last). The gateway streams pages one after another, so no side holds the whole export.
 */
export async function exportPage(m: MemoryExportPageMessage): Promise<MemoryExportPage> {
  const query = { tenantId: m.tenant_id, namespaces: m.namespaces, after: m.after, limit: m.limit };
  const rows =
    m.part === 'records' ? await exportRecords(getSql(), query) : await exportRelations(getSql(), query);
  const last = rows.at(-1);
  const next = rows.length === m.limit && last ? { namespace: last.namespace, key: last.key } : null;
  const data = rows.map(({ key: _, ...row }) => row);
  return m.part === 'records'
    ? { records: data as MemoryExportPage['records'], supersession_relations: [], next }
    : { records: [], supersession_relations: data as MemoryExportPage['supersession_relations'], next };
}
