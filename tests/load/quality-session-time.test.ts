// LoCoMo's session date-times as event times (quality/session-time.ts).
import { describe, expect, it } from 'vitest';
import { parseSessionTime, turnTime } from './quality/session-time.js';

describe('parseSessionTime', () => {
  it('when a session date-time is read, then it is that minute in UTC, 12 am being midnight and 12 pm noon', () => {
    expect(parseSessionTime('1:56 pm on 8 May, 2023').toISOString()).toBe('2023-05-08T13:56:00.000Z');
    expect(parseSessionTime('10:37 am on 27 June, 2023').toISOString()).toBe('2023-06-27T10:37:00.000Z');
    expect(parseSessionTime('12:09 am on 13 September, 2023').toISOString()).toBe('2023-09-13T00:09:00.000Z');
    expect(parseSessionTime('12:30 pm on 1 January, 2024').toISOString()).toBe('2024-01-01T12:30:00.000Z');
  });

  it('when the text is not a date-time, or not a real one, then it throws with the text', () => {
    expect(() => parseSessionTime('yesterday')).toThrow('"yesterday"');
    expect(() => parseSessionTime('1:56 pm on 31 February, 2023')).toThrow('not a valid date-time');
    expect(() => parseSessionTime('13:56 pm on 8 May, 2023')).toThrow('not a valid date-time');
    expect(() => parseSessionTime('1:56 pm on 8 Maytime, 2023')).toThrow('not a LoCoMo session date-time');
  });
});

describe('turnTime', () => {
  it("when turns of a session are timed, then each is the session's time plus its index in seconds", () => {
    const session = parseSessionTime('1:56 pm on 8 May, 2023');

    expect([0, 1, 42].map((i) => turnTime(session, i))).toEqual([
      '2023-05-08T13:56:00.000Z',
      '2023-05-08T13:56:01.000Z',
      '2023-05-08T13:56:42.000Z',
    ]);
  });
});
