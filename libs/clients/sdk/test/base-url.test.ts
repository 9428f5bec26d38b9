import { describe, expect, it } from 'vitest';
import { TextMemory, TextMemoryError, type TextMemoryOptions } from '../src/index.js';

// The SDK has no default address and reads no environment variable: a missing base URL must fail at
// construction, saying how to give one, rather than as a TypeError or a call to nowhere.

const MESSAGE =
  "baseUrl is required: pass the deployment's address, e.g. new TextMemory({ baseUrl: 'http://127.0.0.1:8080', apiKey }) " +
  'for the local stack under `npm start`. The SDK reads no environment variable: pass process.env.TM_BASE_URL ' +
  'yourself, the variable tm and tm-mcp read';

function thrownBy(construct: () => unknown): unknown {
  try {
    construct();
  } catch (error) {
    return error;
  }
  throw new Error('construction did not throw');
}

describe('new TextMemory without a base URL', () => {
  it.each([
    ['no options at all, as from JavaScript', undefined],
    ['an API key and no baseUrl', { apiKey: 'tmk_x' }],
    ['baseUrl: process.env.TM_BASE_URL while it is unset', { baseUrl: undefined, apiKey: 'tmk_x' }],
    ['an empty baseUrl', { baseUrl: '', apiKey: 'tmk_x' }],
    ['a blank baseUrl', { baseUrl: '  ', apiKey: 'tmk_x' }],
  ])('when it is given %s, then a validation error names baseUrl and says how to give it', (_, options) => {
    const error = thrownBy(() => new TextMemory(options as unknown as TextMemoryOptions));

    expect(error).toBeInstanceOf(TextMemoryError);
    expect(error).toMatchObject({
      status: 0,
      code: 'validation_failed',
      retryable: false,
      message: MESSAGE,
      details: { code: 'validation_failed', fields: [{ path: 'baseUrl', message: MESSAGE }] },
    });
  });

  it('when a base URL is given, then the client takes it without its trailing slash', () => {
    const tm = new TextMemory({ baseUrl: 'http://127.0.0.1:8080/' });

    expect(tm.baseUrl).toBe('http://127.0.0.1:8080');
  });
});
