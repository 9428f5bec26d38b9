import {
  CONTRACT_VERSION,
  type MemoryRecallMessage,
  type RecallResponse,
  type RelatedResult,
  SCORE_KIND,
  Subjects,
  type UsageRecordedEvent,
} from '@tm/contracts';
import { type SqlRunner, timeOrderedId } from '@tm/kit';
import { isBeingDeleted } from '../data-access/namespace-deletion.js';
import { enqueue } from '../data-access/outbox-repository.js';
import { getSql } from '../data-access/prisma-client.js';
import { rankByOverlap } from '../data-access/rank-by-overlap.js';
import { cueTerms } from './cue-terms.js';
import { renderContext } from './render-context.js';
import { billableUsage, provenance } from './runtime-blocks.js';

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
  const terms = cueTerms(body.cue.text);
  const asOf = body.as_of ? new Date(body.as_of) : null;

  const usageId = timeOrderedId();
  const usage: UsageRecordedEvent = {
    usage_id: usageId,
    tenant_id: scope.tenant_id,
    user_id: scope.user_id,
    key_id: scope.key_id,
    request_id: requestId,
    operation: 'memory.recall',
    namespace: body.namespace,
    units: 1,
    pricing_version: deps.pricingVersion,
    occurred_at: new Date().toISOString(),
  };
  const recordWith = { id: usageId, subject: Subjects.memory.usageRecorded, payload: usage };
  // The usage is recorded with the ranking (in its statement where it can be), so only a recall that ranked is billed.
  // A namespace being deleted recalls nothing from the moment its deletion starts (its records go in
  // batches); asked alongside the ranking, so a recall waits for neither in turn. Billed like a recall
  // of an empty namespace.
  const [ranked, deleting] = await Promise.all([
    terms.length
      ? rankByOverlap(
          run,
          { tenantId: scope.tenant_id, namespace: body.namespace, cueTerms: terms, asOf, limit: body.top_k },
          { recordWith },
        )
      : enqueue(run, recordWith.subject, usage, usageId).then(() => []),
    isBeingDeleted(run, scope.tenant_id, body.namespace),
  ]);
  const rows = deleting ? [] : ranked;

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
