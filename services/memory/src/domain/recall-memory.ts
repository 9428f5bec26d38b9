import { enqueueOutbox } from '@tm/bus';
import {
  CONTRACT_VERSION,
  type MemoryRecallMessage,
  RANKING_ORDER,
  type RankingModelVersion,
  type RecallResponse,
  type RelatedResult,
  RUNTIME,
  SCORE_KIND,
} from '@tm/contracts';
import type { SqlRunner } from '@tm/kit';
import { getSql } from '../data-access/prisma-client.js';
import { rankByOverlap } from '../data-access/rank-by-overlap.js';
import { rankWeighted } from '../data-access/rank-weighted.js';
import { type Cue, cueTerms, legacyCueTerms } from './cue-terms.js';
import { explanation } from './explain-ranking.js';
import { renderContext } from './render-context.js';
import { billableUsage, provenance } from './runtime-blocks.js';
import { tokenizeV1 } from './tokenize-v1.js';
import { usageRecord } from './usage-record.js';

/** The order of a namespace that still ranks by its old index, while it is re-indexed. */
const LEGACY_RANKING_ORDER = ['score desc', 'occurred_at desc', 'event_id asc'];

export interface RecallDeps {
  sql?: SqlRunner;
  pricingVersion: string;
  onCommitted?: () => void;
}

interface Ranked {
  related: RelatedResult[];
  cueTerms: number;
  modelVersion: RankingModelVersion;
  order: string[];
}

/** Rank the namespace's retained text against the cue (in PostgreSQL) and render the winners as context. */
export async function recallMemory(
  msg: MemoryRecallMessage,
  deps: RecallDeps,
  // Stemmed once where the admission already weighed it.
  cue: Cue = cueTerms(msg.body.cue.text),
): Promise<RecallResponse> {
  const { scope, request_id: requestId, body } = msg;
  const run = deps.sql ?? getSql();
  const asOf = body.as_of ? new Date(body.as_of) : null;
  const recordWith = usageRecord(
    { operation: 'memory.recall', scope, requestId, namespace: body.namespace },
    deps.pricingVersion,
  );
  const q = { tenantId: scope.tenant_id, namespace: body.namespace, asOf, limit: body.top_k };

  // The usage is recorded with the ranking (in its statement), so only a recall that ranked is billed.
  // A namespace being deleted ranks nothing, billed like a recall of an empty namespace.
  const weighted = await rankWeighted(
    run,
    { ...q, terms: cue.content.map((t) => t.term), tieTerms: cue.function.map((t) => t.term) },
    { recordWith },
  );
  let ranked: Ranked;
  if (weighted.legacy) {
    ranked = await rankLegacy(run, { ...q, cue: body.cue.text, explain: body.explain === true }, recordWith);
  } else {
    const total = weighted.weights.reduce((a, b) => a + b, 0);
    ranked = {
      cueTerms: cue.content.length,
      modelVersion: RUNTIME.model_version,
      order: [...RANKING_ORDER],
      related: weighted.rows.map((row) => ({
        event_id: row.event_id,
        memory_id: row.id,
        occurred_at: row.occurred_at.toISOString(),
        text: row.text,
        score_kind: SCORE_KIND,
        score: round(total > 0 ? row.score / total : 0),
        matched_terms: row.held.filter(Boolean).length,
        ...(row.source ? { source: row.source as RelatedResult['source'] } : {}),
        ...(body.explain
          ? { explanation: explanation(cue, weighted.weights, { terms: row.held, tieTerms: row.tieHeld }) }
          : {}),
      })),
    };
  }

  deps.onCommitted?.();

  const { related } = ranked;
  const context = renderContext(related);
  return {
    contract_version: CONTRACT_VERSION,
    operation: 'memory.recall',
    state: related.length ? 'retained' : 'no_data',
    request_id: requestId,
    retryable: false,
    namespace: body.namespace,
    retrieval_outcome: related.length ? 'matched' : 'no_match',
    proximity: { kind: SCORE_KIND, top_score: related[0]?.score ?? null, cue_terms: ranked.cueTerms },
    ranking: {
      basis: SCORE_KIND,
      semantic: false,
      model_version: ranked.modelVersion,
      order: ranked.order,
      as_of: asOf?.toISOString() ?? null,
    },
    ...(context !== undefined ? { context } : {}),
    related,
    provenance: provenance(),
    usage: billableUsage(deps.pricingVersion),
  };
}

/**
 * A namespace written before the stemmed index, until it is re-indexed: matched terms, newest first,
 * every term weighing the same and none breaking ties.
 */
async function rankLegacy(
  run: SqlRunner,
  q: { tenantId: string; namespace: string; cue: string; asOf: Date | null; limit: number; explain: boolean },
  recordWith: ReturnType<typeof usageRecord>,
): Promise<Ranked> {
  const terms = legacyCueTerms(q.cue);
  const asCue: Cue = { content: terms.map((term) => ({ word: term, term })), function: [] };
  const rows = terms.length
    ? await rankByOverlap(run, { ...q, cueTerms: terms }, { recordWith })
    : await enqueueOutbox(run, recordWith.subject, recordWith.payload, recordWith.id).then(() => []);
  return {
    cueTerms: terms.length,
    modelVersion: 'deterministic-lexical-v1',
    order: LEGACY_RANKING_ORDER,
    related: rows.map((row) => ({
      event_id: row.event_id,
      memory_id: row.id,
      occurred_at: row.occurred_at.toISOString(),
      text: row.text,
      score_kind: SCORE_KIND,
      score: round(row.matched / terms.length),
      matched_terms: row.matched,
      ...(row.source ? { source: row.source as RelatedResult['source'] } : {}),
      ...(q.explain ? { explanation: explainLegacy(asCue, row.text) } : {}),
    })),
  };
}

function explainLegacy(cue: Cue, text: string) {
  const held = new Set(tokenizeV1(text));
  return explanation(
    cue,
    cue.content.map(() => 1),
    { terms: cue.content.map((t) => held.has(t.term)), tieTerms: [] },
  );
}

const round = (n: number) => Math.round(n * 10_000) / 10_000;
