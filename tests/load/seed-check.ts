import pg from 'pg';
import { legacyCueTerms as cueTerms } from '../../services/memory/src/domain/cue-terms.js';
import { tokenizeV1 as tokenize } from '../../services/memory/src/domain/tokenize-v1.js';
import { memoryDatabaseUrl } from './baseline-database.js';
import type { TextCorpus } from './text-corpus.js';

interface Target {
  baseUrl: string;
  apiKey: string;
  namespace: string;
}

interface Recalled {
  related: { event_id: string; matched_terms: number }[];
}

const TOP_K = 10;

/**
 * A directly seeded namespace must be one the write path could have made: a sample of its records has
 * exactly the postings the tokenizer gives their text, and recall through the API answers a sample of
 * cues exactly as plain counting over the postings does (score, newer event, then event id). Throws on
 * the first disagreement; returns what it checked.
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
    await checkPostings(client, tenantId, target.namespace, sample.records);
    for (let i = 0; i < sample.cues; i++) {
      const cue = corpus.cue();
      const expected = await countPlainly(client, tenantId, target.namespace, cueTerms(cue));
      const actual = await recall(target, cue);
      const got = actual.related.map((r) => `${r.event_id}:${r.matched_terms}`).join(' ');
      const want = expected.map((r) => `${r.event_id}:${r.matched}`).join(' ');
      if (got !== want)
        throw new Error(`Recall of "${cue}" disagrees with plain counting:\n  got  ${got}\n  want ${want}`);
    }
    return `${sample.records} sampled records' postings match the tokenizer; ${sample.cues} cues recall as plain counting ranks them`;
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

/** Every sampled record has a posting for each of its text's terms, and no other posting. */
async function checkPostings(client: pg.Client, tenantId: string, namespace: string, records: number) {
  const { rows } = await client.query<{ id: string; text: string; postings: string[]; total: number }>(
    `SELECT r.id, r.text,
            ARRAY(SELECT t.term FROM memory_term t
                   WHERE t.scope_key = memory_scope_key(r.tenant_id, r.namespace)
                     AND t.term = ANY(regexp_split_to_array(lower(r.text), '[^a-z0-9]+'))
                     AND t.occurred_at = r.occurred_at AND t.memory_id = r.id) AS postings,
            (SELECT count(*) FROM memory_term t
              WHERE t.scope_key = memory_scope_key(r.tenant_id, r.namespace)
                AND t.occurred_at = r.occurred_at AND t.memory_id = r.id)::int AS total
       FROM (SELECT * FROM memory_record WHERE tenant_id = $1 AND namespace = $2 ORDER BY random() LIMIT $3) r`,
    [tenantId, namespace, records],
  );
  for (const row of rows) {
    const want = tokenize(row.text).sort().join(' ');
    const got = [...row.postings].sort().join(' ');
    if (got !== want || row.total !== row.postings.length)
      throw new Error(`Record ${row.id}: postings [${got}] (${row.total} in all), tokenizer [${want}]`);
  }
}

/** The reference ranking: count each record's postings among the cue terms, no shortcuts. */
async function countPlainly(client: pg.Client, tenantId: string, namespace: string, terms: string[]) {
  const { rows } = await client.query<{ event_id: string; matched: number }>(
    `SELECT r.event_id, p.matched FROM (
        SELECT memory_id, count(*)::int AS matched FROM memory_term
         WHERE scope_key = memory_scope_key($1, $2) AND term = ANY($3::text[])
         GROUP BY memory_id) p
       JOIN memory_record r ON r.id = p.memory_id
      ORDER BY p.matched DESC, r.occurred_at DESC, r.event_id ASC
      LIMIT $4`,
    [tenantId, namespace, terms, TOP_K],
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
