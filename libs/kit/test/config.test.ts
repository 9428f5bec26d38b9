import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConfigError, env, jetstreamEnv, loadConfig } from '../src/config.js';

const Schema = z.object({ PORT: env.port(8080), NATS_URL: env.natsUrl(), DB_URL: env.databaseUrl('tm_x') });

describe('loadConfig', () => {
  it('when nothing is set, then the defaults apply', () => {
    expect(loadConfig(Schema, {})).toEqual({
      PORT: 8080,
      NATS_URL: 'nats://127.0.0.1:4222',
      DB_URL: 'postgresql://postgres@127.0.0.1:5432/tm_x',
    });
  });

  it('when values are bad, then it fails fast naming every bad variable and never echoing a value', () => {
    const secret = 'postgresql://user:s3cr3t-pass@host';
    const attempt = () => loadConfig(Schema, { PORT: 'eighty', NATS_URL: 'http://wrong', DB_URL: secret });
    expect(attempt).toThrow(ConfigError);
    try {
      attempt();
    } catch (err) {
      const message = (err as Error).message;
      expect(message).toMatch(/PORT/);
      expect(message).toMatch(/NATS_URL: must be nats:\/\/host:port/);
      expect(message).toMatch(/DB_URL/);
      expect(message).not.toContain('s3cr3t');
    }
  });

  it('when a variable is set to nothing or to spaces, then it counts as unset and its default applies', () => {
    const Settings = z.object({ PORT: env.port(8080), RATE: z.coerce.number().min(0).max(1).default(0.05) });

    expect(loadConfig(Settings, { PORT: '', RATE: '  ' })).toEqual({ PORT: 8080, RATE: 0.05 });
  });
});

describe('JETSTREAM_REPLICAS', () => {
  const Replicas = z.object({ JETSTREAM_REPLICAS: env.jetstreamReplicas() });

  it('when unset, then streams keep one copy (a single server)', () => {
    expect(loadConfig(Replicas, {})).toEqual({ JETSTREAM_REPLICAS: 1 });
  });

  it('when 3, then 3 (a three-node cluster)', () => {
    expect(loadConfig(Replicas, { JETSTREAM_REPLICAS: '3' })).toEqual({ JETSTREAM_REPLICAS: 3 });
  });

  it.each(['0', '6', '2.5', 'three'])('when %s, then the start fails naming the variable', (value) => {
    expect(() => loadConfig(Replicas, { JETSTREAM_REPLICAS: value })).toThrow(/JETSTREAM_REPLICAS/);
  });
});

describe('JetStream stream limits', () => {
  const Limits = z.object(jetstreamEnv);

  it('when unset, then streams keep a week and at most 1 GiB each, one copy', () => {
    expect(loadConfig(Limits, {})).toEqual({
      JETSTREAM_REPLICAS: 1,
      JETSTREAM_MAX_AGE_HOURS: 168,
      JETSTREAM_MAX_MB_PER_STREAM: 1024,
    });
  });

  it('when set, then those values', () => {
    expect(
      loadConfig(Limits, { JETSTREAM_MAX_AGE_HOURS: '720', JETSTREAM_MAX_MB_PER_STREAM: '4096' }),
    ).toMatchObject({ JETSTREAM_MAX_AGE_HOURS: 720, JETSTREAM_MAX_MB_PER_STREAM: 4096 });
  });

  it.each([
    ['JETSTREAM_MAX_AGE_HOURS', '0'],
    ['JETSTREAM_MAX_AGE_HOURS', '8761'],
    ['JETSTREAM_MAX_AGE_HOURS', '1.5'],
    ['JETSTREAM_MAX_AGE_HOURS', 'forever'],
    ['JETSTREAM_MAX_MB_PER_STREAM', '15'],
    ['JETSTREAM_MAX_MB_PER_STREAM', '-1'],
    ['JETSTREAM_MAX_MB_PER_STREAM', 'lots'],
  ])('when %s is %s, then the start fails naming the variable', (name, value) => {
    expect(() => loadConfig(Limits, { [name]: value })).toThrow(new RegExp(name));
  });
});
