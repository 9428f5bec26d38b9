import { describe, expect, it } from 'vitest';
import { EventTimes } from '../src/tools/event-times.js';

describe('EventTimes', () => {
  it('when an event_id comes again without a time, then it gets the time it was first sent with', () => {
    const times = new EventTimes();
    const first = times.timeFor('k', undefined);
    expect(times.timeFor('k', undefined)).toBe(first);
    expect(first).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('when a call gives a time, then that time is sent, and it is the one kept for an event_id seen first with it', () => {
    const times = new EventTimes();
    expect(times.timeFor('k', '2026-01-02T03:04:05Z')).toBe('2026-01-02T03:04:05Z');
    expect(times.timeFor('k', undefined)).toBe('2026-01-02T03:04:05Z');
    expect(times.timeFor('k', '2026-05-05T00:00:00Z')).toBe('2026-05-05T00:00:00Z');
  });

  it('when more event_ids come than it keeps, then the oldest is forgotten first', () => {
    const times = new EventTimes(2);
    times.timeFor('a', '2026-01-01T00:00:00Z');
    times.timeFor('b', '2026-01-01T00:00:00Z');
    times.timeFor('c', '2026-01-01T00:00:00Z');
    expect(times.timeFor('b', undefined)).toBe('2026-01-01T00:00:00Z');
    expect(times.timeFor('a', undefined)).not.toBe('2026-01-01T00:00:00Z');
  });
});
