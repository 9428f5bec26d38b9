import { prepared, type SqlRunner } from '@tm/kit';

/** Cues of up to this many terms rank by classes: 2^n - 1 term sets at most. */
export const MAX_CLASS_TERMS = 8;
/** Function words a record's bit mask can hold. */
export const MAX_CLASS_TIE_TERMS = 30;
/** The first read of a list, in postings; each further read of it doubles, up to MAX_CHUNK. */
const FIRST_CHUNK = 64;
const MAX_CHUNK = 4_096;

/**
 * The next postings of one list, newest first, after the cursor (event time, record id), each with the
 * record's cue terms and function words as bit masks (one primary-key probe per term), records recall
 * hides left out. Its plan is pinned to the list's index descent and the probes, whatever the values.
 */
const NEXT_POSTINGS = prepared(
  'rank_class_walk',
  `SELECT t.memory_id::text AS id, t.occurred_at,
          (SELECT coalesce(sum(1 << (q.i::int - 1)), 0)::int FROM unnest($5::text[]) WITH ORDINALITY AS q(term, i)
            WHERE q.term = $3 OR EXISTS (SELECT 1 FROM memory_term o
                                          WHERE o.scope_key = t.scope_key AND o.term = q.term
                                            AND o.occurred_at = t.occurred_at AND o.memory_id = t.memory_id
                                         OFFSET 0)) AS mask,
          (SELECT coalesce(sum(1 << (q.i::int - 1)), 0)::int FROM unnest($6::text[]) WITH ORDINALITY AS q(term, i)
            WHERE EXISTS (SELECT 1 FROM memory_term o
                           WHERE o.scope_key = t.scope_key AND o.term = q.term
                             AND o.occurred_at = t.occurred_at AND o.memory_id = t.memory_id
                          OFFSET 0)) AS tie_mask
     FROM memory_term t
    WHERE t.scope_key = memory_scope_key_v2($1, $10) AND t.term = $3
      AND t.occurred_at <= coalesce($4::timestamptz, 'infinity')
      AND (t.occurred_at, t.memory_id) < ($7::timestamptz, $8::uuid)
      AND t.memory_id <> ALL ($2::uuid[])
    ORDER BY t.occurred_at DESC, t.memory_id DESC
    LIMIT $9`,
);

/**
 * The next records holding both of two cue terms, newest first after the cursor, with the same masks:
 * the two lists merged in event order (memory_pair_walk, services/memory/sql/memory_pair_walk.sql), only
 * the records in both probed.
 */
const NEXT_PAIR = prepared(
  'rank_class_pair_walk',
  `SELECT w.memory_id::text AS id, w.occurred_at, w.mask, w.tie_mask
     FROM memory_pair_walk(memory_scope_key_v2($1, $2), $3::text[], $4::text[], $5::text[], $6::timestamptz,
                           $7::uuid[], $8::timestamptz, $9::uuid, $10::int) AS w`,
);

/**
 * A probe by primary key costs about as much as reading this many postings of a merged list (measured
 * at 1M for the count-based walks): a class reads two lists merged unless the second is so much longer
 * than the first that reading it costs more than probing every term for each posting of the first.
 */
const PROBE_COST = 4;

/** A record the class walk ranks: its score (millionths), cue terms and function words held. */
export interface ClassRanked {
  id: string;
  at: Date;
  score: number;
  mask: number;
  tieMask: number;
  tie: number;
}

export interface ClassWalkOptions {
  /** The first read of a list or pair, in postings; each further read doubles, up to MAX_CHUNK. */
  firstChunk?: number;
  /** Read a class's two shortest lists merged where that saves probes (classWalk); off, one list. */
  mergePairs?: boolean;
}

interface Posting {
  id: string;
  occurred_at: Date;
  mask: number;
  tie_mask: number;
}

interface Cursor {
  at: Date;
  id: string;
  done: boolean;
  chunk: number;
}

const START: Omit<Cursor, 'chunk'> = {
  at: new Date(8.64e15),
  id: 'ffffffff-ffff-ffff-ffff-ffffffffffff',
  done: false,
};

/**
 * Exact top-k of the weighted ranking where lists are long, newest first wherever it can be. A record's
 * score is fixed by the set of cue terms it holds (its class), so classes are taken in descending score,
 * those of equal score together as one level. A class's records all lie in its shortest list, and in
 * its next shortest too: the two are read merged (or the shortest alone, see classWalk) newest first
 * from where they were left, and each record found has its class and function words probed. A class is
 * settled once its read reaches the end, or once the k still wanted of its records holding every
 * function word (the most a record of that class can have) are found strictly newer than where the read
 * stopped: nothing older can come before them. A level's best k go to the answer, and the next level
 * starts, until k are found. A cue whose best records hold every term reads the newest few hundred
 * records its two rarest lists share; reads are shared, so lists read for one class serve the next
 * class read from the same lists.
 */
export async function rankByClasses(
  run: SqlRunner,
  q: {
    tenantId: string;
    namespace: string;
    terms: string[];
    tieTerms: string[];
    asOf: Date | null;
    limit: number;
    lengths: number[];
    weights: number[];
    hidden: string[];
  },
  { firstChunk = FIRST_CHUNK, mergePairs = true }: ClassWalkOptions = {},
): Promise<ClassRanked[]> {
  const n = q.terms.length;
  const fullTie = q.tieTerms.length;
  const probes = n - 1 + q.tieTerms.length;
  const cursors = new Map<string, Cursor>();
  const cursorOf = (walk: number[]) => {
    const key = walk.join(',');
    const cursor = cursors.get(key) ?? { ...START, chunk: firstChunk };
    cursors.set(key, cursor);
    return cursor;
  };
  const walkOf = (mask: number) => classWalk(mask, q.lengths, mergePairs ? probes : 0);
  const seen = new Map<string, ClassRanked>();
  const byClass = new Map<number, ClassRanked[]>();

  const read = async (walk: number[]) => {
    const cursor = cursorOf(walk);
    const [first, second] = walk as [number, number | undefined];
    const rows =
      second === undefined
        ? await run<Posting>(NEXT_POSTINGS, [
            q.tenantId,
            q.hidden,
            q.terms[first],
            q.asOf,
            q.terms,
            q.tieTerms,
            cursor.at,
            cursor.id,
            cursor.chunk,
            q.namespace,
          ])
        : await run<Posting>(NEXT_PAIR, [
            q.tenantId,
            q.namespace,
            [q.terms[first], q.terms[second]],
            q.terms,
            q.tieTerms,
            q.asOf,
            q.hidden,
            cursor.at,
            cursor.id,
            cursor.chunk,
          ]);
    for (const row of rows) {
      if (seen.has(row.id)) continue;
      const ranked: ClassRanked = {
        id: row.id,
        at: row.occurred_at,
        mask: row.mask,
        tieMask: row.tie_mask,
        tie: bits(row.tie_mask),
        score: scoreOf(row.mask, q.weights),
      };
      seen.set(row.id, ranked);
      const members = byClass.get(row.mask) ?? [];
      members.push(ranked);
      byClass.set(row.mask, members);
    }
    const last = rows.at(-1);
    if (rows.length < cursor.chunk) cursor.done = true;
    if (last) Object.assign(cursor, { at: last.occurred_at, id: last.id });
    cursor.chunk = Math.min(cursor.chunk * 2, MAX_CHUNK);
  };

  // Within reach of the class's list: read there already (the record's posting in it is not after the cursor).
  const reached = (r: ClassRanked, c: Cursor) =>
    c.done || r.at > c.at || (r.at.getTime() === c.at.getTime() && r.id >= c.id);

  const answer: ClassRanked[] = [];
  for (const level of levels(q.weights, n)) {
    const wanted = q.limit - answer.length;
    for (const mask of level) {
      const walk = walkOf(mask);
      const cursor = cursorOf(walk);
      for (;;) {
        if (cursor.done) break;
        const full = (byClass.get(mask) ?? [])
          .filter((r) => r.tie === fullTie && reached(r, cursor))
          .sort(newestFirst);
        const kth = full[wanted - 1];
        if (kth && kth.at > cursor.at) break;
        await read(walk);
      }
    }
    const members = level
      .flatMap((mask) => {
        const cursor = cursorOf(walkOf(mask));
        return (byClass.get(mask) ?? []).filter((r) => reached(r, cursor));
      })
      .sort((a, b) => b.tie - a.tie || newestFirst(a, b));
    const kth = members[wanted - 1];
    // Everything tied with the k-th on function words and time comes too: the event id decides later.
    answer.push(
      ...(kth ? members.filter((r) => r.tie > kth.tie || (r.tie === kth.tie && r.at >= kth.at)) : members),
    );
    if (answer.length >= q.limit) break;
  }
  return answer;
}

/** Term sets (bit masks) in descending score, those of equal score together. */
function levels(weights: number[], n: number): number[][] {
  const masks = Array.from({ length: (1 << n) - 1 }, (_, i) => i + 1);
  masks.sort((a, b) => scoreOf(b, weights) - scoreOf(a, weights) || a - b);
  const out: number[][] = [];
  for (const mask of masks) {
    const last = out.at(-1);
    if (last && scoreOf(last[0] as number, weights) === scoreOf(mask, weights)) last.push(mask);
    else out.push([mask]);
  }
  return out;
}

/**
 * The lists a class is read from: its shortest (every record of the class is in it), and with it the
 * next shortest, merged, unless that one is longer than the probes it saves (`probes` per posting of
 * the first: none, and it is read alone).
 */
export function classWalk(mask: number, lengths: number[], probes: number): number[] {
  const members = lengths
    .map((length, i) => ({ length, i }))
    .filter(({ i }) => (mask & (1 << i)) !== 0)
    .sort((a, b) => a.length - b.length || a.i - b.i);
  const [first, second] = members;
  if (!first) return [];
  if (!second || second.length > first.length * PROBE_COST * probes) return [first.i];
  return [first.i, second.i];
}

function scoreOf(mask: number, weights: number[]): number {
  let sum = 0;
  for (let i = 0; i < weights.length; i++) if (mask & (1 << i)) sum += weights[i] ?? 0;
  return sum;
}

function bits(mask: number): number {
  let count = 0;
  for (let m = mask; m; m &= m - 1) count++;
  return count;
}

const newestFirst = (a: ClassRanked, b: ClassRanked) =>
  b.at.getTime() - a.at.getTime() || (a.id < b.id ? 1 : -1);
