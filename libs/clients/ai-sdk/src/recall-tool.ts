import type { TextMemory } from '@text-memory/sdk';
import { RECALL_TOOL, type RecallReport, recallAnswer, recallReport } from '@text-memory/sdk/tools';
import { type Tool, tool } from 'ai';
import { z } from 'zod';
import { timestamp } from './arguments.js';
import { callService } from './tool-error.js';

/** tm-mcp's `recall` description: every adapter's comes from @text-memory/sdk/tools. */
export const RECALL_DESCRIPTION: string = RECALL_TOOL.description;

const ARGS = RECALL_TOOL.arguments;

// tm-mcp's arguments less `namespace`, which the app binds; `top_k`'s default is this tool set's `topK`.
const recallInput = (topK: number) =>
  z.object({
    query: z.string().min(1).max(ARGS.query.maxLength).describe(ARGS.query.description),
    top_k: z
      .number()
      .int()
      .min(ARGS.top_k.min)
      .max(ARGS.top_k.max)
      .describe(ARGS.top_k.description(topK))
      .optional(),
    as_of: timestamp(ARGS.as_of).optional(),
    explain: z.boolean().describe(ARGS.explain).optional(),
  });

export type RecallInput = z.infer<ReturnType<typeof recallInput>>;

/**
 * What `recall` returns to the app (`toolResults`): tm-mcp's structuredContent, with the context null
 * when nothing matched (tm-mcp leaves it out). The model reads tm-mcp's text of it.
 */
export type RecallResult = RecallReport;

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
      callService('recall', async () =>
        recallReport(
          await client.memory.recall(
            {
              namespace,
              query: input.query,
              top_k: input.top_k ?? topK,
              ...(input.as_of !== undefined ? { as_of: input.as_of } : {}),
              ...(input.explain !== undefined ? { explain: input.explain } : {}),
            },
            abortSignal ? { signal: abortSignal } : undefined,
          ),
        ),
      ),
    toModelOutput: ({ output }) => ({ type: 'text', value: recallAnswer(output) }),
  });
}
