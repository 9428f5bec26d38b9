import { RECALL_PATH, type StackTarget } from '../memory-api.js';
import { postJson } from '../post-json.js';
import { DEPTH } from './recall-metrics.js';

/** What the service said about how it ranked: the report names the ranking it measured. */
export interface RankingDescription {
  ranking: unknown;
  modelVersion: string | undefined;
}

interface RecallAnswer {
  related?: Array<{ event_id: string }>;
  ranking?: unknown;
  provenance?: { model_version?: string };
}

export interface RecallCall {
  namespace: string;
  question: string;
}

/**
 * Recall each question (top_k DEPTH) against its namespace, `concurrency` at a time, and give each its
 * results' event ids (the turns' dia ids) in rank order, in the order of `calls`.
 */
export async function recallQuestions(
  target: StackTarget,
  calls: readonly RecallCall[],
  concurrency: number,
  onProgress: (done: number) => void = () => {},
): Promise<{ ranked: string[][]; description: RankingDescription }> {
  const ranked: string[][] = new Array(calls.length);
  let description: RankingDescription | undefined;
  let next = 0;
  let done = 0;
  const worker = async () => {
    for (let i = next++; i < calls.length; i = next++) {
      const call = calls[i] as RecallCall;
      const body = {
        contract_version: 'v1',
        namespace: call.namespace,
        cue: { text: call.question },
        top_k: DEPTH,
      };
      const answer = await postJson<RecallAnswer>(`${target.baseUrl}${RECALL_PATH}`, target.apiKey, body);
      if (answer.status !== 200 || !answer.body.related)
        throw new Error(
          `Recall of ${JSON.stringify(call.question)} answered ${answer.status}: ${JSON.stringify(answer.body)}`,
        );
      ranked[i] = answer.body.related.map((r) => r.event_id);
      description ??= { ranking: answer.body.ranking, modelVersion: answer.body.provenance?.model_version };
      if (++done % 200 === 0) onProgress(done);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, calls.length) }, worker));
  return { ranked, description: description ?? { ranking: undefined, modelVersion: undefined } };
}
