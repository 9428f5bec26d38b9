import { fitRoute, type RequestRecord, ROUTE_MAX } from '@tm/contracts';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sortBatch } from '../src/domain/sort-request-records.js';

const record = (n: number, extra: Record<string, unknown> = {}) => ({
  version: 'v1',
  record_id: `0190a0b0-0000-7000-8000-${String(n).padStart(12, '0')}`,
  request_id: `req-${n}`,
  tenant_id: 'tenant-1',
  key_id: null,
  user_id: null,
  method: 'GET',
  route: '/api/v1/infrastructure/usage',
  operation: null,
  status: 200,
  outcome: 'accepted',
  state: null,
  error_code: null,
  latency_ms: 1.5,
  units: 0,
  billing_state: 'no_data',
  namespace_ref: null,
  deployment_version: '1.0.0',
  occurred_at: '2026-11-25T01:20:03.112Z',
  ...extra,
});

const batch = (records: unknown[]) =>
  JSON.stringify({ version: 'v1', gateway_instance: 'gw-1', dropped: 2, records });

describe('fitRoute', () => {
  it('when a route is at most 200 characters, then it is kept as it is; when longer, then it is cut to 200 ending in …', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 400 }), (route) => {
        const fitted = fitRoute(route);
        if (route.length <= ROUTE_MAX) expect(fitted).toBe(route);
        else {
          expect(fitted.length).toBeLessThanOrEqual(ROUTE_MAX);
          expect(fitted.endsWith('…')).toBe(true);
          expect(route.startsWith(fitted.slice(0, -1))).toBe(true);
          // No half of a surrogate pair left at the cut.
          expect(fitted).toBe(Buffer.from(fitted, 'utf8').toString('utf8'));
        }
      }),
    );
  });
});

describe('sortBatch', () => {
  it('when one record of three breaks its schema, then the other two are kept and it alone is dead-lettered with its place and reason', () => {
    const bad = record(2, { outcome: 'exploded' });

    const sorted = sortBatch('gw-1-7', batch([record(1), bad, record(3)]));

    expect(sorted).toEqual({
      messageId: 'gw-1-7',
      gatewayInstance: 'gw-1',
      dropped: 2,
      records: [
        { index: 0, record: record(1) as RequestRecord },
        { index: 2, record: record(3) as RequestRecord },
      ],
      letters: [
        {
          letterId: 'gw-1-7#1',
          kind: 'invalid_record',
          gatewayInstance: 'gw-1',
          recordIndex: 1,
          reason: expect.stringMatching(/^outcome: /),
          payload: JSON.stringify(bad),
        },
      ],
    });
  });

  it('when a record carries a 300-character route, then it is kept with the route cut to 200', () => {
    const route = `/api/v1/control/api-keys/${'k'.repeat(275)}`;

    const sorted = sortBatch('gw-1-8', batch([record(1, { route })]));

    expect(sorted.letters).toEqual([]);
    expect(sorted.records.map((r) => r.record.route)).toEqual([`${route.slice(0, 199)}…`]);
  });

  it('when a message is not a batch, then the whole message is one dead letter', () => {
    const text = '{"hello":"world"}';

    const sorted = sortBatch('seq-9', text);

    expect(sorted).toEqual({
      messageId: 'seq-9',
      gatewayInstance: null,
      dropped: 0,
      records: [],
      letters: [
        {
          letterId: 'seq-9',
          kind: 'not_a_batch',
          gatewayInstance: null,
          recordIndex: null,
          reason: expect.stringMatching(/^not a request record batch \(/),
          payload: text,
        },
      ],
    });
  });

  it('when a message is not JSON, then it is one dead letter saying so, with a NUL in it written out', () => {
    expect(sortBatch('seq-10', 'not\u0000json').letters).toMatchObject([
      { reason: 'not JSON', payload: 'not\\u0000json' },
    ]);
  });
});
