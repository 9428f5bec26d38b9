import { type DynamicStructuredTool, tool } from '@langchain/core/tools';
import { LIMITS, type RecallResponse, type TextMemory } from '@text-memory/sdk';
import { z } from 'zod';
import { timestampArgument } from './arguments.js';
import { callService } from './tool-error.js';

type Related = RecallResponse['related'][number];

/** The recall as the tool's artifact (tm-mcp's structuredContent): context null when nothing matched. */
export type RecallArtifact = Pick<
  RecallResponse,
  'state' | 'retrieval_outcome' | 'namespace' | 'request_id'
> & {
  context: string | null;
  related: Pick<Related, 'event_id' | 'memory_id' | 'occurred_at' | 'text' | 'score'>[];
};

// Name, description and arguments are tm-mcp's `recall` (tests/e2e/langchain.test.ts compares them),
// less `namespace`, which the application binds.
const RecallInput = z.object({
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
    .describe(`How many memories at most (default ${LIMITS.topK.default}).`)
    .optional(),
  as_of: timestampArgument('Recall the namespace as it was at this time (ISO 8601).').optional(),
});

export const RECALL_DESCRIPTION =
  'Find stored memories related to a query and get them as a context text to use in your answer. ' +
  'Ranking is by shared words (lexical overlap), not by meaning: put the distinctive words you ' +
  'expect in the memory into the query (names, things, places).';

/** `recall` bound to one namespace: its content is tm-mcp's text (the context), its artifact the facts. */
/**
 * The tool's type, stated: called with plain arguments it answers its content (a string), with a tool call
 * a ToolMessage. LangChain's inferred type says the content-and-artifact pair for the former, which it
 * never returns (responseFormat 'content_and_artifact' takes the pair apart).
 */
export type RecallTool = DynamicStructuredTool<
  typeof RecallInput,
  z.output<typeof RecallInput>,
  z.input<typeof RecallInput>,
  string,
  unknown,
  'recall'
>;

export function recallTool(client: TextMemory, namespace: string): RecallTool {
  return tool(
    (args, config): Promise<[string, RecallArtifact]> =>
      callService(async () => {
        const recalled = await client.memory.recall(
          {
            namespace,
            query: args.query,
            ...(args.top_k !== undefined ? { top_k: args.top_k } : {}),
            ...(args.as_of !== undefined ? { as_of: args.as_of } : {}),
          },
          // A cancelled run (the agent's AbortSignal) stops the request and the SDK's retries too.
          { signal: config?.signal },
        );
        const related = recalled.related.map((item) => ({
          event_id: item.event_id,
          memory_id: item.memory_id,
          occurred_at: item.occurred_at,
          text: item.text,
          score: item.score,
        }));
        const text =
          recalled.context !== undefined && related.length > 0
            ? [
                `${related.length} related memor${related.length === 1 ? 'y' : 'ies'} in "${recalled.namespace}":`,
                '',
                recalled.context,
                '',
                ...related.map((r) => `- event_id ${r.event_id}, memory_id ${r.memory_id}, score ${r.score}`),
              ].join('\n')
            : `No stored memory in "${recalled.namespace}" shares words with the query.`;
        return [
          `${text}\nrequest_id: ${recalled.request_id}`,
          {
            state: recalled.state,
            retrieval_outcome: recalled.retrieval_outcome,
            namespace: recalled.namespace,
            context: recalled.context ?? null,
            related,
            request_id: recalled.request_id,
          },
        ];
      }),
    {
      name: 'recall',
      description: RECALL_DESCRIPTION,
      schema: RecallInput,
      responseFormat: 'content_and_artifact',
    },
  ) as unknown as RecallTool;
}
