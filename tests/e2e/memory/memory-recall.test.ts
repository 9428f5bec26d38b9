import type { RelatedResult } from '@tm/contracts';
import { describe, expect, it } from 'vitest';
import { expectSelfConsistent, markedWords, weightsOf } from '../support/explanations.js';
import { createTenant, recallBody, uniqueKey, uniqueNamespace, writeBody } from '../support/factories.js';
import { useStack } from '../support/stack.js';

const t = useStack();

const eventIds = (res: { body: { related: Array<{ event_id: string }> } }) =>
  res.body.related.map((r) => r.event_id);

async function seed(key: string, namespace: string, events: Array<[string, string, string?]>) {
  for (const [eventId, text, occurredAt] of events) {
    const res = await t.api.write(
      key,
      writeBody(namespace, text, { event_id: eventId, occurred_at: occurredAt }),
      uniqueKey(),
    );
    expect(res.status).toBe(200);
  }
}

describe('POST /api/v1/memory/recall', () => {
  it('when a write has returned 200, then the next recall ranks it first with the full v1 response', async () => {
    const tenant = await createTenant();
    const namespace = uniqueNamespace();
    await seed(tenant.api_key, namespace, [
      ['weather', 'It rained all day in Lisbon'],
      ['tea', 'Alice prefers green tea in the morning'],
    ]);

    const res = await t.api.recall(
      tenant.api_key,
      recallBody(namespace, 'What tea does Alice drink?', { top_k: 5 }),
    );

    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      contract_version: 'v1',
      operation: 'memory.recall',
      state: 'retained',
      retryable: false,
      namespace,
      retrieval_outcome: 'matched',
      proximity: { kind: 'mock_lexical_overlap', cue_terms: 3 },
      ranking: { basis: 'mock_lexical_overlap', semantic: false, as_of: null },
      provenance: { execution_mode: 'mock', model_execution: false, model_variant: 'Unspecified' },
      usage: { billing_state: 'billable', operation_units: 1 },
    });
    // Each cue term weighs ln(1 + (N - df + 0.5) / (df + 0.5)) in this namespace of N = 2: "tea" and
    // "alice" (df 1) ln 2 each, "drink" (in no record) ln 6; the record holds 2 ln 2 / (2 ln 2 + ln 6).
    expect(res.body.related[0]).toMatchObject({
      event_id: 'tea',
      text: 'Alice prefers green tea in the morning',
      score_kind: 'mock_lexical_overlap',
      score: 0.4362,
      matched_terms: 2,
      occurred_at: '2026-11-22T09:00:00.000Z',
    });
    expect(eventIds(res)).toEqual(['tea']);
    expect(res.body.context).toContain('Alice prefers green tea in the morning');
  });

  it('when records tie on overlap, then newer event time wins, then event id, every time', async () => {
    const tenant = await createTenant();
    const namespace = uniqueNamespace();
    await seed(tenant.api_key, namespace, [
      ['b-old', 'blue harbor lights', '2026-01-01T00:00:00Z'],
      ['a-new', 'blue harbor lights', '2026-06-01T00:00:00Z'],
      ['c-new', 'blue harbor lights', '2026-06-01T00:00:00Z'],
      ['best', 'blue harbor lights at night', '2025-01-01T00:00:00Z'],
    ]);

    const first = await t.api.recall(tenant.api_key, recallBody(namespace, 'blue harbor night'));
    const second = await t.api.recall(tenant.api_key, recallBody(namespace, 'blue harbor night'));

    expect(eventIds(first)).toEqual(['best', 'a-new', 'c-new', 'b-old']);
    expect(second.body.related).toEqual(first.body.related);
  });

  it('when top_k cuts through records tied on score and event time, then the lowest event ids are kept', async () => {
    const tenant = await createTenant();
    const namespace = uniqueNamespace();
    const at = '2026-03-01T00:00:00Z';
    await seed(tenant.api_key, namespace, [
      ['zulu', 'quiet harbor', at],
      ['bravo', 'quiet harbor', at],
      ['yankee', 'quiet harbor', at],
      ['alpha', 'quiet harbor', at],
      ['older', 'quiet harbor', '2026-02-01T00:00:00Z'],
    ]);

    const res = await t.api.recall(tenant.api_key, recallBody(namespace, 'quiet harbor', { top_k: 2 }));

    expect(eventIds(res)).toEqual(['alpha', 'bravo']);
  });

  it('when top_k is smaller than the matches, then only the top_k best come back', async () => {
    const tenant = await createTenant();
    const namespace = uniqueNamespace();
    await seed(tenant.api_key, namespace, [
      ['one', 'apple'],
      ['two', 'apple banana'],
      ['three', 'apple banana cherry'],
    ]);

    const res = await t.api.recall(
      tenant.api_key,
      recallBody(namespace, 'apple banana cherry', { top_k: 2 }),
    );

    expect(eventIds(res)).toEqual(['three', 'two']);
    // The rarer the term, the more it weighs: apple (in all 3) ln(1 + 0.5/3.5), banana ln(1 + 1.5/2.5),
    // cherry ln(1 + 2.5/1.5); "two" holds the two lightest, 0.38 of the cue's weight.
    expect(res.body.related.map((r: { score: number }) => r.score)).toEqual([1, 0.3809]);
  });

  it('when a long cue (more terms than the full-match shortcut takes) is recalled, then overlap still ranks exactly', async () => {
    const tenant = await createTenant();
    const namespace = uniqueNamespace();
    await seed(tenant.api_key, namespace, [
      ['two', 'red orange'],
      ['four', 'red orange yellow green'],
      ['none', 'purple'],
      ['three', 'blue indigo violet'],
    ]);

    const res = await t.api.recall(
      tenant.api_key,
      recallBody(namespace, 'red orange yellow green blue indigo violet white black grey'),
    );

    expect(res.body.proximity.cue_terms).toBe(10);
    expect(eventIds(res)).toEqual(['four', 'three', 'two']);
    expect(res.body.related.map((r: { matched_terms: number }) => r.matched_terms)).toEqual([4, 3, 2]);
  });

  it('when the cue has content words, then function words neither match nor count; a cue of only function words matches on all of them', async () => {
    const tenant = await createTenant();
    const namespace = uniqueNamespace();
    await seed(tenant.api_key, namespace, [
      ['function-words', 'what is it that you do'],
      ['hamlet', 'to be or not to be'],
      ['content', 'tulips bloom in spring'],
    ]);

    const content = await t.api.recall(tenant.api_key, recallBody(namespace, 'what do tulips do in spring?'));
    const onlyFunctionWords = await t.api.recall(tenant.api_key, recallBody(namespace, 'Not to be!'));

    expect(eventIds(content)).toEqual(['content']);
    expect(content.body.proximity).toMatchObject({ cue_terms: 2, top_score: 1 });
    // "is" is a form of "be": the record holding one of the cue's three terms comes after the one holding all.
    expect(eventIds(onlyFunctionWords)).toEqual(['hamlet', 'function-words']);
  });

  it('when nothing matches, then 200 no_data with no context', async () => {
    const tenant = await createTenant();
    const namespace = uniqueNamespace();
    await seed(tenant.api_key, namespace, [['x', 'completely unrelated words']]);

    const res = await t.api.recall(tenant.api_key, recallBody(namespace, 'zebra'));

    expect(res).toMatchObject({
      status: 200,
      body: { state: 'no_data', retrieval_outcome: 'no_match', related: [], proximity: { top_score: null } },
    });
    expect(res.body.context).toBeUndefined();
  });

  it('when another namespace or another tenant recalls, then they never see the record', async () => {
    const owner = await createTenant();
    const other = await createTenant();
    const namespace = uniqueNamespace();
    await seed(owner.api_key, namespace, [['secret', 'the vault code is hidden in the library']]);

    const otherNamespace = await t.api.recall(
      owner.api_key,
      recallBody(uniqueNamespace(), 'vault code library'),
    );
    const otherTenant = await t.api.recall(other.api_key, recallBody(namespace, 'vault code library'));

    expect(otherNamespace.body.related).toEqual([]);
    expect(otherTenant).toMatchObject({ status: 200, body: { state: 'no_data', related: [] } });
  });

  describe('supersession and as_of', () => {
    it('when a write supersedes an earlier event, then recall hides the old one and as_of before the change still sees it', async () => {
      const tenant = await createTenant();
      const namespace = uniqueNamespace();
      await seed(tenant.api_key, namespace, [
        ['addr-1', 'Bob lives on Maple Street', '2026-01-01T00:00:00Z'],
      ]);

      const update = await t.api.write(
        tenant.api_key,
        writeBody(namespace, 'Bob lives on Oak Street now', {
          event_id: 'addr-2',
          occurred_at: '2026-03-01T00:00:00Z',
          supersedes: ['addr-1', 'never-written'],
        }),
        uniqueKey(),
      );
      const now = await t.api.recall(tenant.api_key, recallBody(namespace, 'where does Bob live street'));
      const before = await t.api.recall(
        tenant.api_key,
        recallBody(namespace, 'where does Bob live street', { as_of: '2026-02-01T00:00:00Z' }),
      );
      const after = await t.api.recall(
        tenant.api_key,
        recallBody(namespace, 'where does Bob live street', { as_of: '2026-04-01T00:00:00+02:00' }),
      );

      expect(update.body.supersession).toEqual([
        { target_event_id: 'addr-1', status: 'superseded' },
        { target_event_id: 'never-written', status: 'unresolved' },
      ]);
      expect(eventIds(now)).toEqual(['addr-2']);
      expect(eventIds(before)).toEqual(['addr-1']);
      expect(before.body.ranking.as_of).toBe('2026-02-01T00:00:00.000Z');
      expect(eventIds(after)).toEqual(['addr-2']);
    });

    it('when the newest record holding every cue term is superseded, then the next full match takes its place', async () => {
      const tenant = await createTenant();
      const namespace = uniqueNamespace();
      await seed(tenant.api_key, namespace, [
        ['plan-1', 'launch plan draft', '2026-01-01T00:00:00Z'],
        ['plan-2', 'launch plan final', '2026-02-01T00:00:00Z'],
        ['other', 'launch party', '2026-04-01T00:00:00Z'],
      ]);
      await t.api.write(
        tenant.api_key,
        writeBody(namespace, 'budget approved', {
          event_id: 'memo',
          occurred_at: '2026-03-01T00:00:00Z',
          supersedes: ['plan-2'],
        }),
        uniqueKey(),
      );

      const res = await t.api.recall(tenant.api_key, recallBody(namespace, 'launch plan', { top_k: 1 }));

      expect(eventIds(res)).toEqual(['plan-1']);
      expect(res.body.related[0].score).toBe(1);
    });

    it('when as_of is before an event, then that event is not recalled', async () => {
      const tenant = await createTenant();
      const namespace = uniqueNamespace();
      await seed(tenant.api_key, namespace, [
        ['early', 'meeting notes alpha', '2026-01-01T00:00:00Z'],
        ['late', 'meeting notes beta', '2026-05-01T00:00:00Z'],
      ]);

      const res = await t.api.recall(
        tenant.api_key,
        recallBody(namespace, 'meeting notes', { as_of: '2026-02-01T00:00:00Z' }),
      );

      expect(eventIds(res)).toEqual(['early']);
    });
  });

  describe('explain', () => {
    it('when a recall asks for explain, then each result explains its score in the cue’s words and order, rarer words weighing more', async () => {
      const tenant = await createTenant();
      const namespace = uniqueNamespace();
      await seed(tenant.api_key, namespace, [
        ['tea', 'Alice drinks green tea in the morning'],
        ['dog', 'Alice walks her dog'],
        ['coffee', 'Bob drinks coffee'],
      ]);

      const res = await t.api.recall(
        tenant.api_key,
        recallBody(namespace, 'What does Alice drink in the morning?', { explain: true }),
      );

      expect(res.status).toBe(200);
      expect(res.body.ranking).toMatchObject({
        model_version: 'deterministic-lexical-v2',
        order: ['score desc', 'tie_break desc', 'occurred_at desc', 'event_id asc'],
      });
      expect(eventIds(res)[0]).toBe('tea');
      const explained = Object.fromEntries(
        res.body.related.map((r: RelatedResult) => {
          const { terms, tie_break_terms } = expectSelfConsistent(r);
          return [
            r.event_id,
            {
              terms: markedWords(terms),
              tie_break: markedWords(tie_break_terms),
              terms_as_weighed: weightsOf(terms),
            },
          ];
        }),
      );
      const cue = weightsOf(expectSelfConsistent(res.body.related[0]).terms);
      // The weights are the cue's, the same under every result; the words are the cue's, in its order.
      expect(explained).toEqual({
        tea: {
          terms: ['alice ✓', 'drink ✓', 'morning ✓'],
          tie_break: ['what ✗', 'does ✗', 'in ✓', 'the ✓'],
          terms_as_weighed: cue,
        },
        dog: {
          terms: ['alice ✓', 'drink ✗', 'morning ✗'],
          tie_break: ['what ✗', 'does ✗', 'in ✗', 'the ✗'],
          terms_as_weighed: cue,
        },
        coffee: {
          terms: ['alice ✗', 'drink ✓', 'morning ✗'],
          tie_break: ['what ✗', 'does ✗', 'in ✗', 'the ✗'],
          terms_as_weighed: cue,
        },
      });
      // "morning" is in one record of three, "alice" and "drink" in two each.
      expect(cue.morning).toBeGreaterThan(cue.alice ?? 1);
      expect(cue.alice).toBe(cue.drink);
    });

    it('when explain is left out or false, then no result carries an explanation', async () => {
      const tenant = await createTenant();
      const namespace = uniqueNamespace();
      await seed(tenant.api_key, namespace, [['tea', 'Alice prefers green tea']]);

      const unasked = await t.api.recall(tenant.api_key, recallBody(namespace, 'green tea'));
      const declined = await t.api.recall(
        tenant.api_key,
        recallBody(namespace, 'green tea', { explain: false }),
      );

      for (const res of [unasked, declined]) {
        expect(res).toMatchObject({ status: 200, body: { state: 'retained' } });
        expect(eventIds(res)).toEqual(['tea']);
        expect(res.body.related[0]).not.toHaveProperty('explanation');
      }
    });
  });

  describe('validation', () => {
    const invalid: Array<[string, (ns: string) => unknown, string]> = [
      ['top_k 0', (ns) => recallBody(ns, 'cue', { top_k: 0 }), 'top_k'],
      ['top_k 101', (ns) => recallBody(ns, 'cue', { top_k: 101 }), 'top_k'],
      ['fractional top_k', (ns) => recallBody(ns, 'cue', { top_k: 2.5 }), 'top_k'],
      ['string top_k', (ns) => recallBody(ns, 'cue', { top_k: '5' }), 'top_k'],
      ['empty cue', (ns) => recallBody(ns, ''), 'cue.text'],
      ['missing cue', (ns) => ({ contract_version: 'v1', namespace: ns }), 'cue'],
      ['bad namespace', () => recallBody('../etc', 'cue'), 'namespace'],
      ['bad as_of', (ns) => recallBody(ns, 'cue', { as_of: '2026-13-45' }), 'as_of'],
      ['string explain', (ns) => recallBody(ns, 'cue', { explain: 'yes' }), 'explain'],
      [
        'wrong contract_version',
        (ns) => ({ ...recallBody(ns, 'cue'), contract_version: '1' }),
        'contract_version',
      ],
    ];

    it.each(invalid)('when the body has %s, then 400 with field details', async (_label, make, path) => {
      const tenant = await createTenant();

      const res = await t.api.recall(tenant.api_key, make(uniqueNamespace()));

      expect(res).toMatchObject({
        status: 400,
        body: { retryable: false, details: { code: 'validation_failed' } },
      });
      expect(res.body.details.fields.map((f: { path: string }) => f.path)).toContain(path);
    });
  });
});
