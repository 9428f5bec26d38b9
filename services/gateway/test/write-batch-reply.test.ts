import { AppError, CONTRACT_VERSION, type WriteResponse } from '@tm/contracts';
import { describe, expect, it } from 'vitest';
import {
  type BatchItemAnswer,
  batchState,
  countItems,
  writeBatchReply,
} from '../src/domain/data-plane/write-batch-reply.js';

describe('countItems and batchState', () => {
  const ok = (state: 'retained' | 'not_retained', outcome: 'Accepted' | 'Replayed') => ({
    ok: { state, idempotency_outcome: outcome } as WriteResponse,
  });
  const failed = (code: ConstructorParameters<typeof AppError>[0]) => ({ error: new AppError(code, 'x') });

  it('when items were answered every way, then each is counted once by its outcome', () => {
    const answers: BatchItemAnswer[] = [
      ok('retained', 'Accepted'),
      ok('retained', 'Replayed'),
      failed('idempotency_conflict'),
      failed('duplicate_event'),
      failed('validation_failed'),
      failed('idempotency_in_flight'),
    ];

    expect(countItems(answers)).toEqual({
      total: 6,
      accepted: 1,
      replayed: 1,
      conflict: 2,
      invalid: 1,
      failed: 1,
    });
    expect(batchState(answers)).toBe('retained');
  });

  it('when nothing was retained, then not_retained if an item was answered 200, else no_data', () => {
    expect(batchState([ok('not_retained', 'Accepted'), failed('validation_failed')])).toBe('not_retained');
    expect(batchState([failed('validation_failed')])).toBe('no_data');
  });
});

describe('writeBatchReply', () => {
  const written = {
    state: 'retained',
    idempotency_outcome: 'Accepted',
    usage: { billing_state: 'billable', operation_units: 2 },
  } as WriteResponse;

  it('when items were written, replayed and refused, then each result is its own /write answer and the written units are summed', () => {
    const replayed = { ...written, idempotency_outcome: 'Replayed' } as WriteResponse;
    const conflict = new AppError('idempotency_conflict', 'taken');
    const inFlight = new AppError('idempotency_in_flight', 'still going', { retryAfter: 1 });

    const reply = writeBatchReply('req-1', 'notes', [
      { ok: written },
      { ok: replayed },
      { error: conflict },
      { error: inFlight },
    ]);

    const envelope = (error: AppError, outcome: 'Conflict' | 'Retryable') => ({
      contract_version: CONTRACT_VERSION,
      error: error.message,
      retryable: error.retryable,
      request_id: 'req-1',
      idempotency_outcome: outcome,
      details: { code: error.code, request_id: 'req-1' },
    });
    expect(reply).toEqual({
      body: {
        contract_version: CONTRACT_VERSION,
        operation: 'memory.write_batch',
        state: 'retained',
        request_id: 'req-1',
        retryable: true,
        namespace: 'notes',
        item_counts: { total: 4, accepted: 1, replayed: 1, conflict: 1, invalid: 0, failed: 1 },
        results: [
          { index: 0, status: 200, body: written },
          { index: 1, status: 200, body: replayed },
          { index: 2, status: 409, body: envelope(conflict, 'Conflict') },
          { index: 3, status: inFlight.status, body: envelope(inFlight, 'Retryable') },
        ],
      },
      chargedUnits: 2,
    });
  });

  it('when no item was charged, then the reply carries no units', () => {
    const free = { ...written, usage: { billing_state: 'no_data', operation_units: 0 } } as WriteResponse;

    const reply = writeBatchReply('req-2', 'notes', [
      { ok: free },
      { error: new AppError('validation_failed', 'x') },
    ]);

    expect(reply.chargedUnits).toBeNull();
    expect(reply.body).toMatchObject({ state: 'retained', retryable: false });
  });
});
