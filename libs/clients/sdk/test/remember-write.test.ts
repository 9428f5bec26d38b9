import { describe, expect, it } from 'vitest';
import { rememberWrite } from '../src/tools/remember-write.js';

describe('rememberWrite', () => {
  it('when a remember gives no time, then the write carries none, so the service chooses it and a retry replays', () => {
    const write = rememberWrite('notes', { text: 'Bo likes tea', event_id: 'e-1' });

    expect(write).toEqual({
      namespace: 'notes',
      text: 'Bo likes tea',
      idempotency_key: 'e-1',
      event_id: 'e-1',
    });
    expect(rememberWrite('notes', { text: 'Bo likes tea', event_id: 'e-1' })).toEqual(write);
  });

  it('when a remember gives a time and supersedes, then both are sent as given', () => {
    const write = rememberWrite('notes', {
      text: 'Bo likes coffee',
      occurred_at: '2026-01-02T03:04:05Z',
      supersedes: ['e-1'],
    });

    expect(write).toEqual({
      namespace: 'notes',
      text: 'Bo likes coffee',
      occurred_at: '2026-01-02T03:04:05Z',
      supersedes: ['e-1'],
    });
  });
});
