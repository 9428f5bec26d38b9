import { describe, expect, it } from 'vitest';
import {
  CAPABILITIES,
  fieldIssues,
  MemoryRecallMessage,
  RecallRequest,
  RecallResponse,
  RUNTIME,
  tolerantOf,
} from '../src/index.js';

const request = (extra: Record<string, unknown> = {}) => ({
  contract_version: 'v1',
  namespace: 'ns',
  cue: { text: 'what does Alice drink?' },
  ...extra,
});

const term = (word: string, weight: number, matched: boolean) => ({ word, term: word, weight, matched });

const answer = (related: Array<Record<string, unknown>>, modelVersion: string = RUNTIME.model_version) => ({
  contract_version: 'v1',
  operation: 'memory.recall',
  state: 'retained',
  request_id: 'req_1',
  retryable: false,
  namespace: 'ns',
  retrieval_outcome: 'matched',
  proximity: { kind: 'mock_lexical_overlap', top_score: 0.6, cue_terms: 2 },
  ranking: {
    basis: 'mock_lexical_overlap',
    semantic: false,
    model_version: modelVersion,
    order: ['score desc', 'tie_break desc', 'occurred_at desc', 'event_id asc'],
    as_of: null,
  },
  related,
  provenance: { ...RUNTIME },
  usage: { billing_state: 'billable', operation_units: 1, pricing_version: 'p', sandbox: true },
});

const result = (extra: Record<string, unknown> = {}) => ({
  event_id: 'e1',
  memory_id: 'm1',
  occurred_at: '2026-11-22T09:00:00.000Z',
  text: 'Alice prefers green tea',
  score_kind: 'mock_lexical_overlap',
  score: 0.6,
  matched_terms: 1,
  ...extra,
});

describe('RecallRequest.explain', () => {
  it('when explain is true, then the request keeps it; when absent, then it stays absent', () => {
    expect(RecallRequest.parse(request({ explain: true }))).toMatchObject({ explain: true, top_k: 10 });
    expect(RecallRequest.parse(request())).not.toHaveProperty('explain');
  });

  it.each([['yes'], [1], [null]])('when explain is %j, then it is refused at explain', (explain) => {
    const parsed = RecallRequest.safeParse(request({ explain }));

    expect(parsed.success).toBe(false);
    expect(parsed.error && fieldIssues(parsed.error)).toEqual([
      { path: 'explain', message: 'explain must be true or false' },
    ]);
  });

  it('when the gateway forwards it on the bus, then memory’s tolerant reader keeps explain', () => {
    const message = {
      scope: { tenant_id: 't', user_id: 'u', key_id: 'k', storage_connection_id: 's', consent: 'granted' },
      request_id: 'req_1',
      body: request({ explain: true }),
    };

    expect(tolerantOf(MemoryRecallMessage).parse(message).body.explain).toBe(true);
  });
});

describe('RecallResponse with explanations', () => {
  it('when a result carries an explanation, then the gateway’s read of memory’s answer keeps it whole', () => {
    const explanation = {
      terms: [term('alice', 0.6, true), term('drink', 0.4, false)],
      tie_break_terms: [term('what', 0.5, false), term('does', 0.5, false)],
    };

    const parsed = RecallResponse.parse(answer([result({ explanation }), result({ event_id: 'e2' })]));

    expect(parsed.related[0]?.explanation).toEqual(explanation);
    expect(parsed.related[1]).not.toHaveProperty('explanation');
  });

  it('when a namespace still ranks by the old index, then ranking says v1 while provenance names the runtime', () => {
    const parsed = RecallResponse.parse(answer([result()], 'deterministic-lexical-v1'));

    expect(parsed.ranking.model_version).toBe('deterministic-lexical-v1');
    expect(parsed.provenance.model_version).toBe('deterministic-lexical-v2');
  });

  it('when ranking.model_version is missing or unknown, then the answer is outside the contract', () => {
    const { model_version: _, ...unsaid } = answer([]).ranking;

    expect(RecallResponse.safeParse({ ...answer([]), ranking: unsaid }).success).toBe(false);
    expect(RecallResponse.safeParse(answer([], 'deterministic-lexical-v3')).success).toBe(false);
  });

  it('when an explained weight is outside 0..1, then the answer is outside the contract', () => {
    const explanation = { terms: [term('alice', 1.2, true)], tie_break_terms: [] };

    expect(RecallResponse.safeParse(answer([result({ explanation })])).success).toBe(false);
  });
});

describe('the capability manifest of the weighted ranking', () => {
  it('when read, then the runtime is v2, the guarantee states the tie-break and the limitations the weighting', () => {
    expect(CAPABILITIES.runtime.model_version).toBe('deterministic-lexical-v2');
    expect(CAPABILITIES.schema_version).toBe('1.11.0');
    expect(CAPABILITIES.guarantees).toContain(
      'deterministic_ranking: the same retained text and cue always rank in the same order (score desc, tie_break desc, occurred_at desc, event_id asc)',
    );
    expect(CAPABILITIES.limitations.join('\n')).toMatch(
      /English-stemmed[\s\S]*namespace grows[\s\S]*re-indexed/,
    );
    expect(CAPABILITIES.capabilities.find((c) => c.name === 'lexical_retrieval')).toMatchObject({
      status: 'available_mock',
      meaning: expect.stringMatching(/stemmed.*inverse document frequency/),
    });
  });
});
