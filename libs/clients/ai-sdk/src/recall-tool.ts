import { LIMITS, type RecallResponse, type TextMemory } from '@text-memory/sdk';
import { type Tool, tool } from 'ai';
import { z } from 'zod';
import { callService } from './tool-error.js';

export const RECALL_DESCRIPTION =
  'Find stored memories related to a query and get them as context to use in your answer. Ranking ' +
  'is by shared words (lexical overlap), not by meaning: put the distinctive words you expect in the ' +
  'memory into the query (names, things, places).';

const recallInput = (topK: number) =>
  z.object({
    query: z
      .string()
      .min(1)
      .max(LIMITS.cueMaxChars)
      .describe('Words to look for, e.g. "Alice drink tea allergy".'),
    top_k: z
      .number()
      .int()
      .min(LIMITS.topK.min)
      .max(LIMITS.topK.max)
      .describe(`How many memories at most (default ${topK}).`)
      .optional(),
    as_of: z.iso
      .datetime({ offset: true, message: 'must be an ISO 8601 timestamp with a zone (Z or ±hh:mm)' })
      .describe('Recall the memory as it was at this time (ISO 8601).')
      .optional(),
  });

export type RecallInput = z.infer<ReturnType<typeof recallInput>>;

type Related = RecallResponse['related'][number];

/** What `recall` returns to the app (`toolResults`); the model reads the context and the ids as text. */
export interface RecallResult {
  state: RecallResponse['state'];
  retrieval_outcome: RecallResponse['retrieval_outcome'];
  namespace: string;
  /** The recalled memories rendered as one context text; null when nothing matched. */
  context: string | null;
  related: Pick<Related, 'event_id' | 'memory_id' | 'occurred_at' | 'text' | 'score'>[];
  request_id: string;
}

export function recallTool(
  client: TextMemory,
  namespace: string,
  topK: number,
  description: string,
): Tool<RecallInput, RecallResult> {
  return tool({
    description,
    inputSchema: recallInput(topK),
    execute: (input, { abortSignal }) =>
      callService('recall', async () => {
        const recalled = await client.memory.recall(
          {
            namespace,
            query: input.query,
            top_k: input.top_k ?? topK,
            ...(input.as_of !== undefined ? { as_of: input.as_of } : {}),
          },
          abortSignal ? { signal: abortSignal } : undefined,
        );
        return {
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
          })),
          request_id: recalled.request_id,
        };
      }),
    toModelOutput: ({ output }) => ({ type: 'text', value: recallText(output) }),
  });
}

export function recallText(result: RecallResult): string {
  const found =
    result.context !== null && result.related.length > 0
      ? [
          `${result.related.length} related memor${result.related.length === 1 ? 'y' : 'ies'}:`,
          '',
          result.context,
          '',
          ...result.related.map(
            (r) => `- event_id ${r.event_id}, occurred_at ${r.occurred_at}, score ${r.score}`,
          ),
        ]
      : ['No stored memory shares words with the query.'];
  return [...found, `request_id: ${result.request_id}`].join('\n');
}
