import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { lookback, rate, roundMs } from '../src/domain/time-window.js';

describe('lookback', () => {
  it('when a window is asked for, then it ends now and starts exactly that many minutes before, and reports both', () => {
    // Arrange
    const now = new Date('2026-11-25T10:30:15.250Z');

    // Act
    const window = lookback(60, now);

    // Assert
    expect(window).toEqual({
      from: new Date('2026-11-25T09:30:15.250Z'),
      to: now,
      report: { minutes: 60, from: '2026-11-25T09:30:15.250Z', to: '2026-11-25T10:30:15.250Z' },
    });
  });

  it('when the window crosses midnight UTC, then it starts on the previous day', () => {
    // Arrange
    const now = new Date('2026-12-01T00:05:00.000Z');

    // Act
    const window = lookback(15, now);

    // Assert
    expect(window.report).toEqual({
      minutes: 15,
      from: '2026-11-30T23:50:00.000Z',
      to: '2026-12-01T00:05:00.000Z',
    });
  });

  it('when the window is the largest a route allows (30 days), then it reaches back 30 days to the millisecond', () => {
    // Arrange
    const now = new Date('2026-03-01T12:00:00.000Z');

    // Act
    const window = lookback(43_200, now);

    // Assert
    expect(window.report.from).toBe('2026-01-30T12:00:00.000Z');
  });

  it('when any window of 1 to 43,200 minutes is read at any instant, then it is exactly that long and ends at that instant', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 43_200 }),
        fc.date({
          min: new Date('2000-01-01T00:00:00Z'),
          max: new Date('2100-01-01T00:00:00Z'),
          noInvalidDate: true,
        }),
        (minutes, now) => {
          // Act
          const window = lookback(minutes, now);

          // Assert
          expect(window.to.getTime()).toBe(now.getTime());
          expect(window.to.getTime() - window.from.getTime()).toBe(minutes * 60_000);
          expect(Date.parse(window.report.to) - Date.parse(window.report.from)).toBe(minutes * 60_000);
        },
      ),
    );
  });

  it('when no instant is given, then the window ends at the time of the call', () => {
    // Arrange
    const before = Date.now();

    // Act
    const window = lookback(5);

    // Assert
    expect(window.to.getTime()).toBeGreaterThanOrEqual(before);
    expect(window.to.getTime()).toBeLessThanOrEqual(Date.now());
  });
});

describe('rate', () => {
  it('when a part of a whole is asked for, then it is the fraction to six places', () => {
    // Act / Assert
    expect(rate(1, 3)).toBe(0.333333);
    expect(rate(2, 3)).toBe(0.666667);
    expect(rate(10, 20)).toBe(0.5);
    expect(rate(20, 20)).toBe(1);
  });

  it('when the whole is 0 (an empty window), then the rate is 0, not NaN', () => {
    // Act / Assert
    expect(rate(0, 0)).toBe(0);
  });

  it('when a rate lands exactly on a configured threshold, then it equals that threshold as the configuration reads it', () => {
    // Arrange: thresholds arrive as text and are read as numbers (config.ts); a rate must compare equal.
    const cases = [
      [1, 20, '0.05'],
      [5, 20, '0.25'],
      [1, 2, '0.5'],
      [3, 10, '0.3'],
      [7, 10, '0.7'],
    ] as const;

    // Act / Assert
    for (const [part, whole, threshold] of cases) expect(rate(part, whole)).toBe(Number(threshold));
  });

  it('when any part of any whole is rated, then it lies in [0, 1] and within half a millionth of the fraction', () => {
    fc.assert(
      fc.property(
        fc
          .integer({ min: 1, max: 10_000_000 })
          .chain((whole) => fc.tuple(fc.integer({ min: 0, max: whole }), fc.constant(whole))),
        ([part, whole]) => {
          // Act
          const r = rate(part, whole);

          // Assert
          expect(r).toBeGreaterThanOrEqual(0);
          expect(r).toBeLessThanOrEqual(1);
          expect(Math.abs(r - part / whole)).toBeLessThanOrEqual(5e-7 + Number.EPSILON);
        },
      ),
    );
  });
});

describe('roundMs', () => {
  it('when a latency carries float noise past the microsecond, then it is reported to the microsecond', () => {
    // Act / Assert
    expect(roundMs(100 * 1.1)).toBe(110);
    expect(roundMs(0.1 + 0.2)).toBe(0.3);
    expect(roundMs(12.3456789)).toBe(12.346);
    expect(roundMs(0)).toBe(0);
  });

  it('when any latency is rounded, then it moves by at most half a microsecond', () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 3_600_000, noNaN: true }), (ms) => {
        // Act / Assert
        expect(Math.abs(roundMs(ms) - ms)).toBeLessThanOrEqual(0.0005 + 1e-9);
      }),
    );
  });
});
