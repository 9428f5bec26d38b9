import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { RECALL_TOOL, type RecallReport, recallAnswer, recallReport } from '@text-memory/sdk/tools';
import { z } from 'zod';
import { namespaceArgument, timestampArgument } from './arguments.js';
import type { ToolContext } from './context.js';
import { mirrors } from './mirrors.js';
import { callService, noNamespace, success } from './results.js';
import { type WithoutNulls, withoutNulls } from './without-nulls.js';

const ARGS = RECALL_TOOL.arguments;

const ExplainedTerm = z.object({
  word: z.string(),
  term: z.string(),
  weight: z.number(),
  matched: z.boolean(),
});

/**
 * What `recall` answers: the recall as every adapter hands it to code, its nulls left out
 * (without-nulls.ts).
 */
const RecallOutput = mirrors<WithoutNulls<RecallReport>>()(
  z.object({
    state: z.enum(['retained', 'no_data']),
    retrieval_outcome: z.enum(['matched', 'no_match']),
    namespace: z.string(),
    context: z.string().describe('The matched texts as one block; absent when nothing matched').optional(),
    related: z.array(
      z.object({
        event_id: z.string(),
        memory_id: z.string(),
        occurred_at: z.string(),
        text: z.string(),
        score: z.number(),
        explanation: z
          .object({ terms: z.array(ExplainedTerm), tie_break_terms: z.array(ExplainedTerm) })
          .optional(),
      }),
    ),
    request_id: z.string(),
  }),
);

export function registerRecall(server: McpServer, { tm, defaultNamespace, namespaceHint }: ToolContext) {
  server.registerTool(
    RECALL_TOOL.name,
    {
      title: RECALL_TOOL.title,
      description: RECALL_TOOL.description,
      inputSchema: {
        query: z.string().min(1).max(ARGS.query.maxLength).describe(ARGS.query.description),
        namespace: namespaceArgument(ARGS.namespace).optional(),
        top_k: z
          .number()
          .int()
          .min(ARGS.top_k.min)
          .max(ARGS.top_k.max)
          .describe(ARGS.top_k.description())
          .optional(),
        as_of: timestampArgument(ARGS.as_of).optional(),
        explain: z.boolean().describe(ARGS.explain).optional(),
      },
      outputSchema: RecallOutput,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (args) => {
      const namespace = args.namespace ?? defaultNamespace;
      if (namespace === undefined) return noNamespace(namespaceHint);
      return callService(async () => {
        const report = recallReport(
          await tm.memory.recall({
            namespace,
            query: args.query,
            ...(args.top_k !== undefined ? { top_k: args.top_k } : {}),
            ...(args.as_of !== undefined ? { as_of: args.as_of } : {}),
            ...(args.explain !== undefined ? { explain: args.explain } : {}),
          }),
        );
        return success(RecallOutput, recallAnswer(report), withoutNulls(report));
      });
    },
  );
}
