import { TextMemoryError } from '@text-memory/sdk';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { failure, refusal, success } from '../src/tools/results.js';

// What every tool answers is built here: a success whose structuredContent always fits the schema the
// tool listed, and errors as text only (a client checks structuredContent against that schema even
// when isError is set). The e2e file (tests/e2e/clients/mcp.test.ts) runs the same through the real clients.

const Output = z.object({
  state: z.enum(['retained', 'not_retained']),
  services: z.record(z.string(), z.object({ available: z.boolean() })),
});

describe('success', () => {
  it('when the service sends fields the schema does not list, then they are left out of structuredContent', () => {
    const answer = {
      state: 'retained' as const,
      services: {
        memory: { available: true, required: true, dependencies: { database: { available: true } } },
      },
      contract_version: 'v1',
    };

    const result = success(Output, 'Remembered.', answer);

    expect(result).toEqual({
      content: [{ type: 'text', text: 'Remembered.' }],
      structuredContent: { state: 'retained', services: { memory: { available: true } } },
    });
  });

  it('when the service answers in a shape the schema refuses, then a tool error says so, with no structuredContent', () => {
    const result = success(Output, 'Remembered.', {
      state: 'kept' as 'retained',
      services: { memory: { available: 'yes' as unknown as boolean } },
    });

    expect(result).toEqual({
      content: [
        {
          type: 'text',
          text: expect.stringMatching(
            /^The service answered in a shape this tm-mcp does not know; upgrade @text-memory\/mcp\.\n- state: .+\n- services\.memory\.available: .+\ncode: invalid_response$/,
          ),
        },
      ],
      isError: true,
    });
  });
});

describe('errors', () => {
  it('when the service refuses a call, then the tool error is text lines an agent can read, no structuredContent', () => {
    const error = new TextMemoryError({
      status: 400,
      error: 'Invalid request',
      code: 'validation_failed',
      retryable: false,
      request_id: 'req_1',
      details: { code: 'validation_failed', fields: [{ path: 'namespace', message: 'too long' }] },
    });

    expect(failure(error)).toEqual({
      content: [
        {
          type: 'text',
          text: 'Invalid request\n- namespace: too long\ncode: validation_failed\nstatus: 400\nrequest_id: req_1\nretryable: false',
        },
      ],
      isError: true,
    });
  });

  it('when no answer came, then status says so; a refusal by the tool has its code line', () => {
    const lost = new TextMemoryError({
      status: 0,
      error: 'Could not reach',
      code: 'connection_failed',
      retryable: true,
    });

    expect(failure(lost)).toEqual({
      content: [
        {
          type: 'text',
          text: 'Could not reach\ncode: connection_failed\nstatus: no answer from the service\nretryable: true',
        },
      ],
      isError: true,
    });
    expect(refusal('Refused: nothing was deleted.', 'confirmation_required')).toEqual({
      content: [{ type: 'text', text: 'Refused: nothing was deleted.\ncode: confirmation_required' }],
      isError: true,
    });
  });
});
