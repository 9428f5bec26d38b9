import { ConfigError } from '@tm/kit';
import { describe, expect, it } from 'vitest';
import { loadTelemetryConfig } from '../src/config.js';

const PAIRS = [
  ['ERROR_RATE', '0.3', '0.2'],
  ['P95_LATENCY_MS', '2000', '1999'],
  ['BLOCKED_RATE', '0.6', '0.5'],
  ['DEAD_LETTERS', '10', '9'],
  ['DROPPED_RECORDS', '10', '9'],
  ['RECORD_DEAD_LETTERS', '10', '9'],
] as const;

describe('telemetry configuration', () => {
  it('when nothing is set, then the documented defaults: the anomaly table, 10 requests before a rate is judged, exact percentiles up to 10,000 requests, 30 days kept', () => {
    // Act
    const config = loadTelemetryConfig({});

    // Assert: docs/decisions/telemetry.md, "Anomalies" and "Rollups".
    expect(config).toMatchObject({
      ANOMALY_ERROR_RATE_WARNING: 0.05,
      ANOMALY_ERROR_RATE_CRITICAL: 0.25,
      ANOMALY_P95_LATENCY_MS_WARNING: 1_000,
      ANOMALY_P95_LATENCY_MS_CRITICAL: 5_000,
      ANOMALY_BLOCKED_RATE_WARNING: 0.25,
      ANOMALY_BLOCKED_RATE_CRITICAL: 0.5,
      ANOMALY_DEAD_LETTERS_WARNING: 1,
      ANOMALY_DEAD_LETTERS_CRITICAL: 25,
      ANOMALY_DROPPED_RECORDS_WARNING: 1,
      ANOMALY_DROPPED_RECORDS_CRITICAL: 1_000,
      ANOMALY_RECORD_DEAD_LETTERS_WARNING: 1,
      ANOMALY_RECORD_DEAD_LETTERS_CRITICAL: 100,
      ANOMALY_MIN_REQUESTS: 10,
      ANOMALY_WATCH_WINDOW_MINUTES: 15,
      TELEMETRY_EXACT_PERCENTILES_UP_TO: 10_000,
      TELEMETRY_RETENTION_DAYS: 30,
      TELEMETRY_DATABASE_URL: expect.stringMatching(/\/tm_telemetry$/),
    });
  });

  it.each(PAIRS)(
    'when ANOMALY_%s_CRITICAL is below its warning, then the configuration is refused naming the critical one',
    (name, warning, critical) => {
      // Arrange
      const env = { [`ANOMALY_${name}_WARNING`]: warning, [`ANOMALY_${name}_CRITICAL`]: critical };

      // Act / Assert
      expect(() => loadTelemetryConfig(env)).toThrow(ConfigError);
      expect(() => loadTelemetryConfig(env)).toThrow(
        new RegExp(`ANOMALY_${name}_CRITICAL: must be at least ANOMALY_${name}_WARNING`),
      );
    },
  );

  it.each(PAIRS)(
    'when ANOMALY_%s_CRITICAL equals its warning, then it is taken (one threshold, every anomaly critical)',
    (name, warning) => {
      // Arrange
      const env = { [`ANOMALY_${name}_WARNING`]: warning, [`ANOMALY_${name}_CRITICAL`]: warning };

      // Act
      const config = loadTelemetryConfig(env) as unknown as Record<string, number>;

      // Assert
      expect(config[`ANOMALY_${name}_WARNING`]).toBe(Number(warning));
      expect(config[`ANOMALY_${name}_CRITICAL`]).toBe(Number(warning));
    },
  );

  it('when only a warning is raised above the default critical, then the configuration is refused rather than the critical silently lower', () => {
    // Act / Assert
    expect(() => loadTelemetryConfig({ ANOMALY_ERROR_RATE_WARNING: '0.3' })).toThrow(
      /ANOMALY_ERROR_RATE_CRITICAL/,
    );
  });

  it('when a rate threshold is 0 or 1, then it is taken; above 1, below 0 or not a number, refused naming it', () => {
    // Act / Assert
    expect(
      loadTelemetryConfig({ ANOMALY_BLOCKED_RATE_WARNING: '0', ANOMALY_BLOCKED_RATE_CRITICAL: '1' }),
    ).toMatchObject({ ANOMALY_BLOCKED_RATE_WARNING: 0, ANOMALY_BLOCKED_RATE_CRITICAL: 1 });
    for (const bad of ['1.01', '-0.1', 'half']) {
      expect(() => loadTelemetryConfig({ ANOMALY_ERROR_RATE_CRITICAL: bad })).toThrow(
        /ANOMALY_ERROR_RATE_CRITICAL/,
      );
    }
  });

  it('when a count or latency threshold is negative or not a number, then the configuration is refused naming it', () => {
    // Act / Assert
    expect(() => loadTelemetryConfig({ ANOMALY_DEAD_LETTERS_WARNING: '-1' })).toThrow(
      /ANOMALY_DEAD_LETTERS_WARNING/,
    );
    expect(() => loadTelemetryConfig({ ANOMALY_P95_LATENCY_MS_CRITICAL: '5s' })).toThrow(
      /ANOMALY_P95_LATENCY_MS_CRITICAL/,
    );
  });

  it('when ANOMALY_MIN_REQUESTS is 0 or part of a request, then the configuration is refused naming it', () => {
    // Act / Assert
    for (const bad of ['0', '-1', '2.5']) {
      expect(() => loadTelemetryConfig({ ANOMALY_MIN_REQUESTS: bad })).toThrow(/ANOMALY_MIN_REQUESTS/);
    }
    expect(loadTelemetryConfig({ ANOMALY_MIN_REQUESTS: '1' })).toMatchObject({ ANOMALY_MIN_REQUESTS: 1 });
  });

  it('when the watch window is 1 minute or a day, then it is taken; 0 or past a day, refused naming it', () => {
    // Act / Assert
    expect(loadTelemetryConfig({ ANOMALY_WATCH_WINDOW_MINUTES: '1' })).toMatchObject({
      ANOMALY_WATCH_WINDOW_MINUTES: 1,
    });
    expect(loadTelemetryConfig({ ANOMALY_WATCH_WINDOW_MINUTES: '1440' })).toMatchObject({
      ANOMALY_WATCH_WINDOW_MINUTES: 1_440,
    });
    for (const bad of ['0', '1441', '7.5']) {
      expect(() => loadTelemetryConfig({ ANOMALY_WATCH_WINDOW_MINUTES: bad })).toThrow(
        /ANOMALY_WATCH_WINDOW_MINUTES/,
      );
    }
  });

  it('when TELEMETRY_EXACT_PERCENTILES_UP_TO is 0, then it is taken (every window from the histogram); negative or fractional, refused', () => {
    // Act / Assert
    expect(loadTelemetryConfig({ TELEMETRY_EXACT_PERCENTILES_UP_TO: '0' })).toMatchObject({
      TELEMETRY_EXACT_PERCENTILES_UP_TO: 0,
    });
    for (const bad of ['-1', '10.5']) {
      expect(() => loadTelemetryConfig({ TELEMETRY_EXACT_PERCENTILES_UP_TO: bad })).toThrow(
        /TELEMETRY_EXACT_PERCENTILES_UP_TO/,
      );
    }
  });

  it('when the database URL is malformed, then the refusal names the variable and never echoes its value', () => {
    // Arrange: the value may hold a password.
    const url = 'postgresql://telemetry:s3cret-pass@db-host';

    // Act
    const refusal = (() => {
      try {
        loadTelemetryConfig({ TELEMETRY_DATABASE_URL: url });
      } catch (err) {
        return err as Error;
      }
    })();

    // Assert
    expect(refusal).toBeInstanceOf(ConfigError);
    expect(refusal?.message).toMatch(/TELEMETRY_DATABASE_URL/);
    expect(refusal?.message).not.toContain('s3cret-pass');
  });
});
