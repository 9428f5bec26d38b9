import { createHash } from 'node:crypto';

/**
 * Telemetry's stand-in for a namespace: a digest bound to the tenant. It lets a namespace's history
 * be selected for export, and outlive the namespace's deletion, without the name being stored.
 */
export function namespaceRef(tenantId: string, namespace: string): string {
  return createHash('sha256').update(`${tenantId}\n${namespace}`).digest('hex').slice(0, 32);
}
