import { type DynamicStructuredTool, tool } from '@langchain/core/tools';
import type { TextMemory } from '@text-memory/sdk';
import { RECALL_TOOL, type RecallReport, recallAnswer, recallReport } from '@text-memory/sdk/tools';
import type { z } from 'zod';
import { RecallInput } from './arguments.js';
import { callService } from './tool-error.js';

/**
 * The recall as the tool's artifact (tm-mcp's structuredContent): context null when nothing matched,
 * where tm-mcp leaves it out.
 */
export type RecallArtifact = RecallReport;

/**
 * `recall` bound to one namespace: its content is tm-mcp's text (the context), its artifact the facts.
 * The type is stated: called with plain arguments it answers its content (a string), with a tool call a
 * ToolMessage. LangChain's inferred type says the content-and-artifact pair for the former, which it
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
            ...(args.explain !== undefined ? { explain: args.explain } : {}),
          },
          // A cancelled run (the agent's AbortSignal) stops the request and the SDK's retries too.
          { signal: config?.signal },
        );
        const report = recallReport(recalled);
        return [recallAnswer(report), report];
      }),
    {
      name: RECALL_TOOL.name,
      description: RECALL_TOOL.description,
      schema: RecallInput,
      responseFormat: 'content_and_artifact',
    },
  ) as unknown as RecallTool;
}
