import { enqueueOutbox } from '@tm/bus';
import {
  CONTRACT_VERSION,
  type MemoryRecallMessage,
  type RecallResponse,
  type RelatedResult,
  SCORE_KIND,
} from '@tm/contracts';
import type { SqlRunner } from '@tm/kit';
import { getSql } from '../data-access/prisma-client.js';
import { rankByOverlap } from '../data-access/rank-by-overlap.js';
import { legacyCueTerms } from './cue-terms.js';
import { renderContext } from './render-context.js';
import { billableUsage, provenance } from './runtime-blocks.js';
import { usageRecord } from './usage-record.js';

export const RANKING_ORDER = ['score desc', 'occurred_at desc', 'event_id asc'];

export interface RecallDeps {
  sql?: SqlRunner;
  pricingVersion: string;
  onCommitted?: () => void;
}

/** Rank the namespace's retained text against the cue (in PostgreSQL) and render the winners as context. */
export async function recallMemory(msg: MemoryRecallMessage, deps: RecallDeps): Promise<RecallResponse> {
  const { scope, request_id: requestId, body } = msg;
  const run = deps.sql ?? getSql();
  const terms = legacyCueTerms(body.cue.text);
  const asOf = body.as_of ? new Date(body.as_of) : null;

  const recordWith = usageRecord(
    { operation: 'memory.recall', scope, requestId, namespace: body.namespace },
    deps.pricingVersion,
  );
  // The usage is recorded with the ranking (in its statement where it can be), so only a recall that ranked is billed.
  // A namespace being deleted ranks nothing (the ranking's first statement asks), billed like a recall
  // of an empty namespace.
  const rows = terms.length
    ? await rankByOverlap(
        run,
        { tenantId: scope.tenant_id, namespace: body.namespace, cueTerms: terms, asOf, limit: body.top_k },
        { recordWith },
      )
    : await enqueueOutbox(run, recordWith.subject, recordWith.payload, recordWith.id).then(() => []);

  const related: RelatedResult[] = rows.map((row) => ({
    event_id: row.event_id,
    memory_id: row.id,
    occurred_at: row.occurred_at.toISOString(),
    text: row.text,
    score_kind: SCORE_KIND,
    score: round(row.matched / terms.length),
    matched_terms: row.matched,
    ...(row.source ? { source: row.source as RelatedResult['source'] } : {}),
  }));

  deps.onCommitted?.();

  const context = renderContext(related);
  return {
    contract_version: CONTRACT_VERSION,
    operation: 'memory.recall',
    state: related.length ? 'retained' : 'no_data',
    request_id: requestId,
    retryable: false,
    namespace: body.namespace,
    retrieval_outcome: related.length ? 'matched' : 'no_match',
    proximity: { kind: SCORE_KIND, top_score: related[0]?.score ?? null, cue_terms: terms.length },
    ranking: { basis: SCORE_KIND, semantic: false, order: RANKING_ORDER, as_of: asOf?.toISOString() ?? null },
    ...(context !== undefined ? { context } : {}),
    related,
    provenance: provenance(),
    usage: billableUsage(deps.pricingVersion),
  };
}

const round = (n: number) => Math.round(n * 10_000) / 10_000;
