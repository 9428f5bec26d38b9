import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { LIMITS, type RecallResponse } from '@text-memory/sdk';
import { z } from 'zod';
import { namespaceArgument, timestampArgument } from './arguments.js';
import type { ToolContext } from './context.js';
import { mirrors } from './mirrors.js';
import { callService, noNamespace, success } from './results.js';

type Related = RecallResponse['related'][number];

/** What `recall` answers: the recall's outcome and context (null when none), each memory's facts. */
const RecallOutput = mirrors<
  Pick<RecallResponse, 'state' | 'retrieval_outcome' | 'namespace' | 'request_id'> & {
    context: string | null;
    related: Pick<Related, 'event_id' | 'memory_id' | 'occurred_at' | 'text' | 'score'>[];
  }
>()(
  z.object({
    state: z.enum(['retained', 'no_data']),
    retrieval_outcome: z.enum(['matched', 'no_match']),
    namespace: z.string(),
    context: z.string().nullable(),
    related: z.array(
      z.object({
        event_id: z.string(),
        memory_id: z.string(),
        occurred_at: z.string(),
        text: z.string(),
        score: z.number(),
      }),
    ),
    request_id: z.string(),
  }),
);

export function registerRecall(server: McpServer, { tm, defaultNamespace, namespaceHint }: ToolContext) {
  server.registerTool(
    'recall',
    {
      title: 'Recall memories',
      description:
        'Find stored memories related to a query and get them as a context text to use in your answer. ' +
        'Ranking is by shared words (lexical overlap), not by meaning: put the distinctive words you ' +
        'expect in the memory into the query (names, things, places).',
      inputSchema: {
        query: z
          .string()
          .min(1)
          .max(LIMITS.cueMaxChars)
          .describe('Words to look for, e.g. "Alice drink tea allergy".'),
        namespace: namespaceArgument(
          'Partition to search. Default: the server’s default namespace if it has one (tm-mcp: TM_NAMESPACE).',
        ).optional(),
        top_k: z
          .number()
          .int()
          .min(LIMITS.topK.min)
          .max(LIMITS.topK.max)
          .describe(`How many memories at most (default ${LIMITS.topK.default}).`)
          .optional(),
        as_of: timestampArgument('Recall the namespace as it was at this time (ISO 8601).').optional(),
      },
      outputSchema: RecallOutput,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (args) => {
      const namespace = args.namespace ?? defaultNamespace;
      if (namespace === undefined) return noNamespace(namespaceHint);
      return callService(async () => {
        const recalled = await tm.memory.recall({
          namespace,
          query: args.query,
          ...(args.top_k !== undefined ? { top_k: args.top_k } : {}),
          ...(args.as_of !== undefined ? { as_of: args.as_of } : {}),
        });
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
        return success(RecallOutput, `${text}\nrequest_id: ${recalled.request_id}`, {
          state: recalled.state,
          retrieval_outcome: recalled.retrieval_outcome,
          namespace: recalled.namespace,
          context: recalled.context ?? null,
          related,
          request_id: recalled.request_id,
        });
      });
    },
  );
}
