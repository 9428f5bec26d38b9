import type { SqlRunner } from '@tm/kit';
import { isBeingDeleted, namespacesBeingDeleted } from '../data-access/namespace-deletion.js';

/**
 * The namespaces being deleted, as this instance knows them: a write to one is answered 409
 * namespace_being_deleted before any work (a batch refused whole). Held in memory and refreshed with
 * the deletion worker's tick, so a write costs no query. Not the fence itself: the write's own
 * statement checks the running jobs (idempotency-ledger.ts), so a deletion started on another instance
 * refuses writes from its commit even before this list knows it. A namespace found in the list is
 * checked in the database before a write is refused, so a deletion that has just finished (here or
 * elsewhere) never refuses one.
 */
export function createDeletingScopes() {
  let scopes = new Set<string>();
  const keyOf = (tenantId: string, namespace: string) => `${tenantId}\u0000${namespace}`;
  return {
    refuses: async (run: SqlRunner, tenantId: string, namespace: string) => {
      const key = keyOf(tenantId, namespace);
      if (!scopes.has(key)) return false;
      if (await isBeingDeleted(run, tenantId, namespace)) return true;
      scopes.delete(key);
      return false;
    },
    add: (tenantId: string, namespace: string) => {
      scopes.add(keyOf(tenantId, namespace));
    },
    refresh: async (run: SqlRunner) => {
      const deleting = await namespacesBeingDeleted(run);
      scopes = new Set(deleting.map((d) => keyOf(d.tenant_id, d.namespace)));
    },
  };
}
export type DeletingScopes = ReturnType<typeof createDeletingScopes>;
