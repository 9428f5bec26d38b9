import {
  type AnomalyRaisedEvent,
  type ChargeVoidedEvent,
  type ImportCompletedEvent,
  type ImportFailedEvent,
  Subjects,
} from '@tm/contracts';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { anomalyRaisedEvent } from '../src/domain/deliveries/anomaly-raised.js';
import { chargeVoidedEvent } from '../src/domain/deliveries/charge-voided.js';
import { importCompletedEvent } from '../src/domain/deliveries/import-completed.js';
import { importFailedEvent } from '../src/domain/deliveries/import-failed.js';
import { eventSources } from '../src/entry-points/nats/event-sources.js';

const completed: ImportCompletedEvent = {
  version: 'v1',
  event_id: '0193a0a0-0000-7000-8000-000000000001',
  tenant_id: 'tenant-1',
  import_id: '0193a0a0-0000-7000-8000-0000000000aa',
  kind: 'import',
  namespace: 'crm',
  total: 12,
  retained: 10,
  already_present: 0,
  failed: 2,
  request_id: 'req-1',
  occurred_at: '2026-12-12T10:00:00.000Z',
  state: 'completed',
};
const failed: ImportFailedEvent = {
  ...completed,
  event_id: '0193a0a0-0000-7000-8000-000000000002',
  state: 'failed',
  error_code: 'dataset_revision_changed',
};
const anomaly: AnomalyRaisedEvent = {
  version: 'v1',
  event_id: '0193a0a0-0000-7000-8000-000000000003',
  tenant_id: 'tenant-1',
  anomaly_id: '0193a0a0-0000-7000-8000-0000000000bb',
  name: 'error_rate',
  severity: 'critical',
  observed: 0.5,
  threshold: 0.25,
  unit: 'ratio',
  window_minutes: 15,
  occurred_at: '2026-12-12T10:01:00.000Z',
};
const voided: ChargeVoidedEvent = {
  version: 'v1',
  event_id: '0193a0a0-0000-7000-8000-000000000004',
  tenant_id: 'tenant-1',
  charge_id: '0193a0a0-0000-7000-8000-0000000000cc',
  operation: 'memory.write',
  units: 1,
  amount_usd: 0.0001,
  previous_state: 'recorded',
  reason: 'duplicate import',
  actor_user_id: 'user-1',
  request_id: 'req-2',
  occurred_at: '2026-12-12T10:02:00.000Z',
};

describe('import.completed mapping', () => {
  it('when a job completed, then the delivery names the job, its kind, namespace and counts, keyed by the outbox row', () => {
    expect(importCompletedEvent(completed)).toEqual({
      tenantId: 'tenant-1',
      messageId: 'msg_0193a0a0-0000-7000-8000-000000000001',
      payload: {
        type: 'import.completed',
        timestamp: '2026-12-12T10:00:00.000Z',
        data: {
          import_id: completed.import_id,
          kind: 'import',
          namespace: 'crm',
          total: 12,
          retained: 10,
          already_present: 0,
          failed: 2,
          request_id: 'req-1',
          state: 'completed',
        },
      },
    });
  });

  it('when a restore completed, then its kind is restore with the records already present', () => {
    const restore = { ...completed, kind: 'restore', already_present: 3, retained: 7 };

    expect(importCompletedEvent(restore)?.payload.data).toMatchObject({
      kind: 'restore',
      retained: 7,
      already_present: 3,
    });
  });

  it('when the record is a failed job, a version other than v1 or another shape, then it announces nothing', () => {
    expect(importCompletedEvent(failed)).toBeUndefined();
    expect(importCompletedEvent({ ...completed, version: 'v2' })).toBeUndefined();
    expect(importCompletedEvent({ usage_id: 'u-1' })).toBeUndefined();
    expect(importCompletedEvent(null)).toBeUndefined();
  });
});

describe('import.failed mapping', () => {
  it('when a job failed, then the delivery carries the error code, never its message', () => {
    const event = importFailedEvent({ ...failed, error_message: 'Dataset org/secret-name changed' });

    expect(event).toEqual({
      tenantId: 'tenant-1',
      messageId: 'msg_0193a0a0-0000-7000-8000-000000000002',
      payload: {
        type: 'import.failed',
        timestamp: failed.occurred_at,
        data: {
          import_id: failed.import_id,
          kind: 'import',
          namespace: 'crm',
          total: 12,
          retained: 10,
          already_present: 0,
          failed: 2,
          error_code: 'dataset_revision_changed',
          request_id: 'req-1',
          state: 'failed',
        },
      },
    });
    expect(JSON.stringify(event)).not.toContain('secret-name');
  });

  it('when the record is a completed job, then it announces nothing', () => {
    expect(importFailedEvent(completed)).toBeUndefined();
  });
});

describe('anomaly.raised mapping', () => {
  it('when an anomaly was raised, then the delivery names the episode, the signal and the threshold crossed', () => {
    expect(anomalyRaisedEvent(anomaly)).toEqual({
      tenantId: 'tenant-1',
      messageId: 'msg_0193a0a0-0000-7000-8000-000000000003',
      payload: {
        type: 'anomaly.raised',
        timestamp: anomaly.occurred_at,
        data: {
          anomaly_id: anomaly.anomaly_id,
          name: 'error_rate',
          severity: 'critical',
          observed: 0.5,
          threshold: 0.25,
          unit: 'ratio',
          window_minutes: 15,
          state: 'raised',
        },
      },
    });
  });

  it('when the anomaly is not one telemetry knows, then it announces nothing', () => {
    expect(anomalyRaisedEvent({ ...anomaly, name: 'cpu' })).toBeUndefined();
  });
});

describe('charge.voided mapping', () => {
  it('when a charge was voided, then the delivery names the charge, its amount, what it was, who and why', () => {
    expect(chargeVoidedEvent(voided)).toEqual({
      tenantId: 'tenant-1',
      messageId: 'msg_0193a0a0-0000-7000-8000-000000000004',
      payload: {
        type: 'charge.voided',
        timestamp: voided.occurred_at,
        data: {
          charge_id: voided.charge_id,
          operation: 'memory.write',
          units: 1,
          amount_usd: 0.0001,
          previous_state: 'recorded',
          reason: 'duplicate import',
          actor_user_id: 'user-1',
          request_id: 'req-2',
          state: 'void',
        },
      },
    });
  });
});

describe('the mappings together', () => {
  const cases = [
    { map: importCompletedEvent, record: completed },
    { map: importFailedEvent, record: failed },
    { map: anomalyRaisedEvent, record: anomaly },
    { map: chargeVoidedEvent, record: voided },
  ];

  it('when a record carries any field beyond its contract (text, a token), then no delivery shows it', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...cases),
        fc.string({ minLength: 1 }).filter((k) => !['__proto__', 'constructor'].includes(k)),
        fc.string({ minLength: 12 }),
        ({ map, record }, key, secret) => {
          fc.pre(!(key in record));
          const event = map({ ...record, [key]: `leak:${secret}` });

          expect(event).toBeDefined();
          expect(JSON.stringify(event)).not.toContain(`leak:${secret}`);
        },
      ),
    );
  });

  it('when the same record comes twice (a redelivery), then both map to the same message id', () => {
    for (const { map, record } of cases) {
      expect(map(structuredClone(record))?.messageId).toBe(map(record)?.messageId);
    }
  });
});

describe('event sources', () => {
  const source = (subject: string) =>
    eventSources.find((s) =>
      s.stream.subjects.some((p) => p === subject || subject.startsWith(p.replace('>', ''))),
    );

  it('when a record arrives on an owner’s subject, then that subject’s mapping reads it', () => {
    expect(
      source(Subjects.template.importCompleted)?.toEvent(completed, Subjects.template.importCompleted),
    ).toMatchObject({ payload: { type: 'import.completed' } });
    expect(
      source(Subjects.template.importFailed)?.toEvent(failed, Subjects.template.importFailed),
    ).toMatchObject({
      payload: { type: 'import.failed' },
    });
    expect(
      source(Subjects.telemetry.anomalyRaised)?.toEvent(anomaly, Subjects.telemetry.anomalyRaised),
    ).toMatchObject({ payload: { type: 'anomaly.raised' } });
    expect(
      source(Subjects.billing.chargeVoided)?.toEvent(voided, Subjects.billing.chargeVoided),
    ).toMatchObject({
      payload: { type: 'charge.voided' },
    });
  });

  it('when a record arrives on a subject of the stream that nothing maps yet, then it announces nothing', () => {
    const template = source(Subjects.template.importCompleted);

    expect(template?.toEvent(completed, 'template.v1.events.something-new')).toBeUndefined();
    // a record on the other subject's mapping is not read as this one
    expect(template?.toEvent(completed, Subjects.template.importFailed)).toBeUndefined();
  });

  it('when the sources are listed, then each durable is named once and reads one stream', () => {
    const durables = eventSources.map((s) => s.durable);

    expect(new Set(durables).size).toBe(durables.length);
    expect(durables).toEqual([
      'webhooks-memory-usage',
      'webhooks-memory-events',
      'webhooks-template-events',
      'webhooks-telemetry-events',
      'webhooks-billing-events',
    ]);
  });
});
