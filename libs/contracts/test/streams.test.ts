import { describe, expect, it } from 'vitest';
import { BusRoles, Streams, Subjects, subjectMatches } from '../src/index.js';

const allSubjects = Object.values(Subjects).flatMap((owner) => Object.values(owner) as string[]);
const durable = new Set(Object.values(BusRoles).flatMap((role) => role.publishesDurable as string[]));
const streamsOf = (subject: string) =>
  Object.values(Streams).filter((s) => s.subjects.some((pattern) => subjectMatches(pattern, subject)));

describe('JetStream streams and the subjects they capture', () => {
  it('when a subject falls in a stream, then some service publishes it durably (no request subject is stored)', () => {
    const captured = allSubjects.filter((subject) => streamsOf(subject).length > 0);

    expect(captured.filter((subject) => !durable.has(subject))).toEqual([]);
  });

  it('when a service publishes a subject durably, then exactly one stream stores it', () => {
    expect(
      [...durable].map((subject) => ({ subject, streams: streamsOf(subject).map((s) => s.name) })),
    ).toEqual([...durable].map((subject) => ({ subject, streams: [expect.any(String)] })));
  });

  it('when telemetry lists its request records, then its events stream does not capture the request', () => {
    expect(streamsOf(Subjects.telemetry.listEvents)).toEqual([]);
    expect(streamsOf(Subjects.telemetry.anomalyRaised).map((s) => s.name)).toEqual(['TELEMETRY_EVENTS']);
  });
});
