/** A due delivery as the scheduler sees it: whose it is and where it goes, oldest due first. */
export interface DueDelivery {
  id: string;
  tenantId: string;
  endpointId: string;
}

/** What this instance has in flight: attempts sent and not yet recorded, by tenant and by endpoint. */
export interface InFlight {
  byTenant: ReadonlyMap<string, number>;
  byEndpoint: ReadonlyMap<string, number>;
}

export interface SlotLimits {
  /** Send slots of this instance (WEBHOOKS_CONCURRENCY). */
  slots: number;
  /** The most one tenant holds even when no other tenant has anything due (WEBHOOKS_TENANT_CONCURRENCY). */
  perTenant: number;
  /** The most in flight to one endpoint (WEBHOOKS_ENDPOINT_CONCURRENCY). */
  perEndpoint: number;
  /** Endpoints whose breaker is half-open: one probe in flight at most. */
  probing?: ReadonlySet<string>;
}

/**
 * Which due deliveries take the free send slots. A tenant's share is the slots divided among the
 * tenants that hold slots or have something due (rounded up, never above `perTenant`), so one tenant's
 * slow receiver holds at most its share and the rest stay free for the others; within that, at most
 * `perEndpoint` per endpoint (one for a probing endpoint). Tenants take turns, one delivery each per
 * round, in the order of their oldest due delivery; within a tenant, oldest first.
 */
export function pickDeliveries(
  due: readonly DueDelivery[],
  inFlight: InFlight,
  limits: SlotLimits,
): DueDelivery[] {
  const busy = [...inFlight.byTenant.values()].reduce((sum, n) => sum + n, 0);
  let free = limits.slots - busy;
  if (free <= 0 || due.length === 0) return [];

  const queues = new Map<string, DueDelivery[]>();
  for (const delivery of due) {
    const queue = queues.get(delivery.tenantId);
    if (queue) queue.push(delivery);
    else queues.set(delivery.tenantId, [delivery]);
  }
  const wanting = new Set([...queues.keys(), ...inFlight.byTenant.keys()]);
  const share = Math.min(limits.perTenant, Math.ceil(limits.slots / wanting.size));

  const tenantCount = new Map(inFlight.byTenant);
  const endpointCount = new Map(inFlight.byEndpoint);
  const endpointCap = (id: string) => (limits.probing?.has(id) ? 1 : limits.perEndpoint);
  const picked: DueDelivery[] = [];
  let turn = [...queues.keys()];
  while (free > 0 && turn.length > 0) {
    const next: string[] = [];
    for (const tenantId of turn) {
      if (free === 0) break;
      if ((tenantCount.get(tenantId) ?? 0) >= share) continue;
      const queue = queues.get(tenantId) ?? [];
      const at = queue.findIndex((d) => (endpointCount.get(d.endpointId) ?? 0) < endpointCap(d.endpointId));
      if (at === -1) continue;
      const [delivery] = queue.splice(at, 1);
      if (!delivery) continue;
      picked.push(delivery);
      free -= 1;
      tenantCount.set(tenantId, (tenantCount.get(tenantId) ?? 0) + 1);
      endpointCount.set(delivery.endpointId, (endpointCount.get(delivery.endpointId) ?? 0) + 1);
      if (queue.length > 0) next.push(tenantId);
    }
    turn = next;
  }
  return picked;
}
