import pg from 'pg';
import { cueTerms } from '../../services/memory/src/domain/cue-terms.js';
import { tokenize } from '../../services/memory/src/domain/tokenize.js';
import { memoryDatabaseUrl } from './baseline-database.js';
import type { TextCorpus } from './text-corpus.js';

interface Target {
  baseUrl: string;
  apiKey: string;
  namespace: string;
}

interface Recalled {
  related: { event_id: string; score: number }[];
}

const TOP_K = 10;

/**
 * A directly seeded namespace must be one the write path could have made: a sample of its records has
 * exactly the postings the tokenizer gives their text, and recall through the API answers a sample of
 * cues exactly as scoring every record does (weighted score, function words held, newer event, then
 * event id). Throws on the first disagreement; returns what it checked.
 */
export async function checkSeededNamespace(
  target: Target,
  corpus: TextCorpus,
  sample = { records: 200, cues: 5 },
  env: NodeJS.ProcessEnv = process.env,
): Promise<string> {
  const client = new pg.Client({ connectionString: memoryDatabaseUrl(env) });
  await client.connect();
  try {
    const tenantId = await tenantOf(client, target.namespace);
    await checkPostings(client, tenantId, target.namespace, sample.records, tokenize(corpus.words.join(' ')));
    for (let i = 0; i < sample.cues; i++) {
      const cue = corpus.cue();
      const expected = await scoreEveryRecord(client, tenantId, target.namespace, cue);
      const actual = await recall(target, cue);
      const got = actual.related.map((r) => `${r.event_id}:${r.score}`).join(' ');
      const want = expected.map((r) => `${r.event_id}:${r.score}`).join(' ');
      if (got !== want)
        throw new Error(
          `Recall of "${cue}" disagrees with scoring every record:\n  got  ${got}\n  want ${want}`,
        );
    }
    return `${sample.records} sampled records' postings match the tokenizer; ${sample.cues} cues recall as scoring every record ranks them`;
  } finally {
    await client.end();
  }
}

async function tenantOf(client: pg.Client, namespace: string): Promise<string> {
  const { rows } = await client.query<{ tenant_id: string }>(
    'SELECT DISTINCT tenant_id FROM memory_record WHERE namespace = $1',
    [namespace],
  );
  if (rows.length !== 1) throw new Error(`Namespace ${namespace} belongs to ${rows.length} tenants`);
  return (rows[0] as { tenant_id: string }).tenant_id;
}

/**
 * Every sampled record has a posting for each of its text's terms, and no other posting of a term the
 * corpus could give (`vocabulary`): looked up by key, as a record's postings are not indexed together.
 */
async function checkPostings(
  client: pg.Client,
  tenantId: string,
  namespace: string,
  records: number,
  vocabulary: string[],
) {
  const { rows } = await client.query<{ id: string; text: string; postings: string[] }>(
    `SELECT r.id, r.text,
            ARRAY(SELECT t.term FROM memory_term t
                   WHERE t.scope_key = memory_scope_key_v2(r.tenant_id, r.namespace) AND t.term = ANY ($4::text[])
                     AND t.occurred_at = r.occurred_at AND t.memory_id = r.id) AS postings
       FROM (SELECT * FROM memory_record WHERE tenant_id = $1 AND namespace = $2 ORDER BY random() LIMIT $3) r`,
    [tenantId, namespace, records, vocabulary],
  );
  for (const row of rows) {
    const want = tokenize(row.text).sort().join(' ');
    const got = [...row.postings].sort().join(' ');
    if (got !== want) throw new Error(`Record ${row.id}: postings [${got}], tokenizer [${want}]`);
  }
}

/** The reference ranking: every record sharing a cue term, scored by the cue's weights, no shortcuts. */
async function scoreEveryRecord(client: pg.Client, tenantId: string, namespace: string, cue: string) {
  const { content, function: tieWords } = cueTerms(cue);
  const { rows } = await client.query<{ event_id: string; score: number }>(
    `WITH w AS (SELECT q.term, st.weights[q.i] AS weight
                  FROM memory_rank_stats(memory_scope_key_v2($1, $2), $3::text[]) AS st
                 CROSS JOIN unnest($3::text[]) WITH ORDINALITY AS q(term, i)),
          s AS (SELECT t.memory_id, sum(w.weight) AS score FROM w
                  JOIN memory_term t ON t.scope_key = memory_scope_key_v2($1, $2) AND t.term = w.term
                 GROUP BY t.memory_id)
     SELECT r.event_id, round(s.score / (SELECT sum(weight) FROM w), 4)::float8 AS score
       FROM s JOIN memory_record r ON r.id = s.memory_id
      WHERE r.superseded_at IS NULL
      ORDER BY s.score DESC,
               (SELECT count(*) FROM memory_term t
                 WHERE t.scope_key = memory_scope_key_v2($1, $2) AND t.term = ANY($4::text[])
                   AND t.occurred_at = r.occurred_at AND t.memory_id = r.id) DESC,
               r.occurred_at DESC, r.event_id ASC
      LIMIT $5`,
    [tenantId, namespace, content.map((t) => t.term), tieWords.map((t) => t.term), TOP_K],
  );
  return rows;
}

async function recall(target: Target, cue: string): Promise<Recalled> {
  const res = await fetch(`${target.baseUrl}/api/v1/memory/recall`, {
    method: 'POST',
    headers: { authorization: `Bearer ${target.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      contract_version: 'v1',
      namespace: target.namespace,
      cue: { text: cue },
      top_k: TOP_K,
    }),
  });
  if (!res.ok) throw new Error(`Recall of "${cue}" answered ${res.status}`);
  return (await res.json()) as Recalled;
}
