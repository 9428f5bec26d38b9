import { describe, expect, it } from 'vitest';
import { TextMemoryError } from '../src/errors.js';
import {
  errorLines,
  isTextMemoryError,
  type RecallReport,
  type RememberReceipt,
  recallAnswer,
  rememberAnswer,
} from '../src/tools/index.js';

// The shared answer texts and error lines of @text-memory/sdk/tools; the e2e files (mcp, langchain,
// ai-sdk) check the same texts through each framework on the real stack.

const receipt: RememberReceipt = {
  state: 'not_retained',
  memory_id: null,
  event_id: 'evt_1',
  namespace: 'notes',
  idempotency_outcome: 'Accepted',
  decision: 'not_retained',
  decision_reason: 'private_memory_consent_missing',
  supersession: [{ target_event_id: 'evt_0', status: 'unresolved' }],
  request_id: 'req_1',
};

describe('rememberAnswer', () => {
  it('when nothing was retained, then the text says so with the decision and its reason', () => {
    expect(rememberAnswer(receipt)).toBe(
      [
        'Not retained (decision: not_retained, private_memory_consent_missing).',
        'event_id: evt_1',
        'idempotency_outcome: Accepted',
        'supersedes evt_0: unresolved',
        'request_id: req_1',
      ].join('\n'),
    );
    expect(rememberAnswer({ ...receipt, decision_reason: null })).toMatch(
      /^Not retained \(decision: not_retained\)\.\n/,
    );
  });
});

describe('recallAnswer', () => {
  const report = (explained: boolean): RecallReport => ({
    state: 'retained',
    retrieval_outcome: 'matched',
    namespace: 'notes',
    context: '[1] Alice drinks green tea',
    related: [
      {
        event_id: 'evt_1',
        memory_id: 'mem_1',
        occurred_at: '2026-11-22T09:00:00.000Z',
        text: 'Alice drinks green tea',
        score: 0.8123,
        ...(explained
          ? {
              explanation: {
                terms: [
                  { word: 'alice', term: 'alic', weight: 0.1877, matched: true },
                  { word: 'drinks', term: 'drink', weight: 0.6246, matched: true },
                  { word: 'coffee', term: 'coffe', weight: 0.1877, matched: false },
                ],
                tie_break_terms: [{ word: 'what', term: 'what', weight: 1, matched: false }],
              },
            }
          : {}),
      },
    ],
    request_id: 'req_1',
  });

  it('when the recall was explained, then each memory’s line is followed by its words, weights and ✓/✗', () => {
    expect(recallAnswer(report(true)).split('\n').slice(4)).toEqual([
      '- event_id evt_1, memory_id mem_1, score 0.8123',
      '  terms: alice 0.1877 ✓, drinks 0.6246 ✓, coffee 0.1877 ✗; tie-break words: what 1 ✗',
      'request_id: req_1',
    ]);
  });

  it('when it was not, then the text is the one line per memory it always was', () => {
    expect(recallAnswer(report(false)).split('\n').slice(4)).toEqual([
      '- event_id evt_1, memory_id mem_1, score 0.8123',
      'request_id: req_1',
    ]);
  });
});

describe('errorLines and isTextMemoryError', () => {
  it('when the SDK refused the input, then the lines name the field, the code and that no answer came', () => {
    const error = TextMemoryError.validation([{ path: 'namespace', message: 'too long' }]);

    expect(errorLines(error)).toEqual([
      'Invalid request: namespace: too long',
      '- namespace: too long',
      'code: validation_failed',
      'status: no answer from the service',
      'retryable: false',
    ]);
  });

  it('when the error comes from another copy of the SDK, then it is recognised by its name', () => {
    const fromOtherCopy = Object.assign(new Error('Conflict'), { name: 'TextMemoryError' });

    expect(isTextMemoryError(fromOtherCopy)).toBe(true);
    expect(isTextMemoryError(new Error('boom'))).toBe(false);
    expect(isTextMemoryError({ name: 'TextMemoryError' })).toBe(false);
  });
});
