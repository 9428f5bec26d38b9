import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type DueDelivery, type InFlight, pickDeliveries } from '../src/domain/deliveries/send-slots.js';

const limits = { slots: 16, perTenant: 8, perEndpoint: 2 };
const none: InFlight = { byTenant: new Map(), byEndpoint: new Map() };

/** `count` due deliveries of one tenant, spread over `endpoints` endpoints (e.g. a-e0, a-e1, …). */
const dueOf = (tenant: string, endpoints: number, count: number): DueDelivery[] =>
  Array.from({ length: count }, (_, i) => ({
    id: `${tenant}-${i}`,
    tenantId: tenant,
    endpointId: `${tenant}-e${i % endpoints}`,
  }));

const tally = (picked: DueDelivery[], key: 'tenantId' | 'endpointId') =>
  picked.reduce<Record<string, number>>((acc, d) => {
    acc[d[key]] = (acc[d[key]] ?? 0) + 1;
    return acc;
  }, {});

describe('pickDeliveries', () => {
  it('when one tenant alone has 40 due over 20 endpoints, then it takes its cap of 8 and leaves the other slots free', () => {
    const picked = pickDeliveries(dueOf('a', 20, 40), none, limits);

    expect(tally(picked, 'tenantId')).toEqual({ a: 8 });
  });

  it('when a tenant holds its cap and another has one due, then the other gets a slot and the first none', () => {
    const inFlight: InFlight = {
      byTenant: new Map([['a', 8]]),
      byEndpoint: new Map(Array.from({ length: 8 }, (_, i) => [`a-e${i}`, 1])),
    };

    const picked = pickDeliveries([...dueOf('a', 20, 40), ...dueOf('b', 1, 1)], inFlight, limits);

    expect(picked).toEqual([{ id: 'b-0', tenantId: 'b', endpointId: 'b-e0' }]);
  });

  it('when three tenants have plenty due, then tenants take turns and each holds at most its share (16 / 3, rounded up)', () => {
    const due = [...dueOf('a', 20, 40), ...dueOf('b', 20, 40), ...dueOf('c', 20, 40)];

    const picked = pickDeliveries(due, none, limits);

    expect(picked.slice(0, 3).map((d) => d.tenantId)).toEqual(['a', 'b', 'c']);
    expect(tally(picked, 'tenantId')).toEqual({ a: 6, b: 5, c: 5 });
  });

  it('when one endpoint has many due, then at most its cap go to it and the rest wait', () => {
    const picked = pickDeliveries(dueOf('a', 1, 10), none, limits);

    expect(picked.map((d) => d.id)).toEqual(['a-0', 'a-1']);
  });

  it('when an endpoint is being probed (half-open breaker), then it gets one delivery', () => {
    const picked = pickDeliveries(dueOf('a', 1, 10), none, { ...limits, probing: new Set(['a-e0']) });

    expect(picked.map((d) => d.id)).toEqual(['a-0']);
  });

  it('when every slot is taken, then nothing is picked', () => {
    const inFlight: InFlight = {
      byTenant: new Map([
        ['a', 8],
        ['b', 8],
      ]),
      byEndpoint: new Map(),
    };

    expect(pickDeliveries(dueOf('c', 1, 1), inFlight, limits)).toEqual([]);
  });

  it('when deliveries, holdings and limits vary, then no slot, tenant share or endpoint cap is exceeded, a tenant under its share is never left out while a slot is free, and each is picked once', () => {
    const tenants = ['a', 'b', 'c', 'd'];
    const world = fc.record({
      due: fc.array(
        fc.record({ tenant: fc.constantFrom(...tenants), endpoint: fc.integer({ min: 0, max: 3 }) }),
        { maxLength: 60 },
      ),
      held: fc.array(
        fc.record({ tenant: fc.constantFrom(...tenants), endpoint: fc.integer({ min: 0, max: 3 }) }),
        {
          maxLength: 10,
        },
      ),
      slots: fc.integer({ min: 1, max: 20 }),
      perTenant: fc.integer({ min: 1, max: 20 }),
      perEndpoint: fc.integer({ min: 1, max: 5 }),
    });
    fc.assert(
      fc.property(world, ({ due, held, slots, perTenant, perEndpoint }) => {
        const deliveries = due.map((d, i) => ({
          id: String(i),
          tenantId: d.tenant,
          endpointId: `${d.tenant}-e${d.endpoint}`,
        }));
        const byTenant = new Map<string, number>();
        const byEndpoint = new Map<string, number>();
        for (const h of held) {
          byTenant.set(h.tenant, (byTenant.get(h.tenant) ?? 0) + 1);
          const endpoint = `${h.tenant}-e${h.endpoint}`;
          byEndpoint.set(endpoint, (byEndpoint.get(endpoint) ?? 0) + 1);
        }

        const picked = pickDeliveries(
          deliveries,
          { byTenant, byEndpoint },
          { slots, perTenant, perEndpoint },
        );

        const wanting = new Set([...deliveries.map((d) => d.tenantId), ...byTenant.keys()]);
        const share = Math.min(perTenant, Math.ceil(slots / Math.max(wanting.size, 1)));
        const after = (key: 'tenantId' | 'endpointId', before: Map<string, number>) => {
          const counts = new Map(before);
          for (const d of picked) counts.set(d[key], (counts.get(d[key]) ?? 0) + 1);
          return counts;
        };
        const tenantsAfter = after('tenantId', byTenant);
        const endpointsAfter = after('endpointId', byEndpoint);
        expect(new Set(picked.map((d) => d.id)).size).toBe(picked.length);
        expect(held.length + picked.length <= slots || picked.length === 0).toBe(true);
        for (const d of picked) {
          expect(tenantsAfter.get(d.tenantId)).toBeLessThanOrEqual(share);
          expect(endpointsAfter.get(d.endpointId)).toBeLessThanOrEqual(perEndpoint);
        }
        if (held.length + picked.length < slots) {
          // A free slot left: every delivery not picked is held back by its tenant's share or its endpoint's cap.
          const chosen = new Set(picked.map((d) => d.id));
          for (const d of deliveries.filter((x) => !chosen.has(x.id))) {
            const blocked =
              (tenantsAfter.get(d.tenantId) ?? 0) >= share ||
              (endpointsAfter.get(d.endpointId) ?? 0) >= perEndpoint;
            expect(blocked).toBe(true);
          }
        }
      }),
    );
  });
});
