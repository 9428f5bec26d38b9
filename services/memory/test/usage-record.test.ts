import { type Scope, Subjects, UsageRecordedEvent } from '@tm/contracts';
import { describe, expect, it } from 'vitest';
import { usageRecord } from '../src/domain/usage-record.js';

const scope: Scope = {
  tenant_id: 'tenant-1',
  user_id: 'user-1',
  key_id: 'key-1',
  storage_connection_id: 'storage-1',
  consent: 'granted',
};
const iso = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

describe('usageRecord (the outbox row of a billable write or recall)', () => {
  it('when a write is billed, then one unit of memory.write with its idempotency key, the row id being the usage id', () => {
    const row = usageRecord(
      { operation: 'memory.write', scope, requestId: 'req-1', namespace: 'notes', idempotencyKey: 'k-1' },
      'sandbox-2026-11',
    );

    expect(row).toEqual({
      id: row.payload.usage_id,
      subject: Subjects.memory.usageRecorded,
      payload: {
        usage_id: expect.any(String),
        tenant_id: 'tenant-1',
        user_id: 'user-1',
        key_id: 'key-1',
        request_id: 'req-1',
        operation: 'memory.write',
        namespace: 'notes',
        units: 1,
        idempotency_key: 'k-1',
        pricing_version: 'sandbox-2026-11',
        occurred_at: iso,
      },
    });
    expect(UsageRecordedEvent.parse(row.payload)).toEqual(row.payload);
  });

  it('when a recall is billed, then one unit of memory.recall without an idempotency key, and each record has its own id', () => {
    const billed = { operation: 'memory.recall', scope, requestId: 'req-2', namespace: 'notes' } as const;

    const [first, second] = [usageRecord(billed, 'sandbox-2026-11'), usageRecord(billed, 'sandbox-2026-11')];

    expect(first.payload).toMatchObject({ operation: 'memory.recall', units: 1, request_id: 'req-2' });
    expect(first.payload).not.toHaveProperty('idempotency_key');
    expect(UsageRecordedEvent.parse(first.payload)).toEqual(first.payload);
    expect(second.id).not.toBe(first.id);
  });
});
