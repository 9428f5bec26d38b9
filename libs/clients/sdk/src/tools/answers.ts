import type { RecallExplanation, RecallResponse, WriteResponse } from '../types.js';

// The answer texts a model reads from `remember` and `recall`, the same on every surface (tm-mcp's text
// content, LangChain's ToolMessage content, the AI SDK's model output). Each ends with the request id.

/**
 * A write's receipt as the tools hand it to code: the decision reduced to its value, and its reason
 * (null when the service gave none; it says why a text was not retained).
 */
export type RememberReceipt = Pick<
  WriteResponse,
  'state' | 'memory_id' | 'event_id' | 'namespace' | 'idempotency_outcome' | 'supersession' | 'request_id'
> & { decision: WriteResponse['decision']['value']; decision_reason: string | null };

/** The write's receipt as a tool hands it to code, built from the service's answer. */
export const rememberReceipt = (written: WriteResponse): RememberReceipt => ({
  state: written.state,
  memory_id: written.memory_id,
  event_id: written.event_id,
  namespace: written.namespace,
  idempotency_outcome: written.idempotency_outcome,
  decision: written.decision.value,
  decision_reason: written.decision.reason ?? null,
  supersession: written.supersession,
  request_id: written.request_id,
});

/** What `remember` tells the model: where it was kept, or that it was not and why. */
export function rememberAnswer(receipt: RememberReceipt): string {
  return [
    receipt.state === 'retained'
      ? `Remembered in namespace "${receipt.namespace}" as memory ${receipt.memory_id}.`
      : `Not retained (decision: ${receipt.decision}${receipt.decision_reason ? `, ${receipt.decision_reason}` : ''}).`,
    `event_id: ${receipt.event_id}`,
    `idempotency_outcome: ${receipt.idempotency_outcome}`,
    ...receipt.supersession.map((s) => `supersedes ${s.target_event_id}: ${s.status}`),
    `request_id: ${receipt.request_id}`,
  ].join('\n');
}

type Related = RecallResponse['related'][number];

/** A recall as the tools hand it to code: context null when nothing matched, each memory's facts. */
export type RecallReport = Pick<
  RecallResponse,
  'state' | 'retrieval_outcome' | 'namespace' | 'request_id'
> & {
  context: string | null;
  /** `explanation` only when the recall asked for `explain`. */
  related: Pick<Related, 'event_id' | 'memory_id' | 'occurred_at' | 'text' | 'score' | 'explanation'>[];
};

export const recallReport = (recalled: RecallResponse): RecallReport => ({
  state: recalled.state,
  retrieval_outcome: recalled.retrieval_outcome,
  namespace: recalled.namespace,
  context: recalled.context ?? null,
  related: recalled.related.map((item) => ({
    event_id: item.event_id,
    memory_id: item.memory_id,
    occurred_at: item.occurred_at,
    text: item.text,
    score: item.score,
    ...(item.explanation ? { explanation: item.explanation } : {}),
  })),
  request_id: recalled.request_id,
});

/** What `recall` tells the model: the context first, then one line per memory (and its explanation, if asked). */
export function recallAnswer(report: RecallReport): string {
  const { related } = report;
  const found =
    report.context !== null && related.length > 0
      ? [
          `${related.length} related memor${related.length === 1 ? 'y' : 'ies'} in "${report.namespace}":`,
          '',
          report.context,
          '',
          ...related.flatMap((r) => [
            `- event_id ${r.event_id}, memory_id ${r.memory_id}, score ${r.score}`,
            ...(r.explanation ? [explanationLine(r.explanation)] : []),
          ]),
        ]
      : [`No stored memory in "${report.namespace}" shares words with the query.`];
  return [...found, `request_id: ${report.request_id}`].join('\n');
}

const marked = (terms: RecallExplanation['terms']) =>
  terms.map((t) => `${t.word} ${t.weight} ${t.matched ? '✓' : '✗'}`).join(', ');

/** A memory's explanation in one line: each query word's weight and whether the memory holds it (✓/✗). */
function explanationLine({ terms, tie_break_terms }: RecallExplanation): string {
  const tieBreak = tie_break_terms.length > 0 ? `; tie-break words: ${marked(tie_break_terms)}` : '';
  return `  terms: ${marked(terms)}${tieBreak}`;
}
