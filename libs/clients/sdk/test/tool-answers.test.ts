import { describe, expect, it } from 'vitest';
import { TextMemoryError } from '../src/errors.js';
import { errorLines, isTextMemoryError, type RememberReceipt, rememberAnswer } from '../src/tools/index.js';

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
