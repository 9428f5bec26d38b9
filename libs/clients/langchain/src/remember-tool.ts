import { type DynamicStructuredTool, tool } from '@langchain/core/tools';
import type { TextMemory } from '@text-memory/sdk';
import {
  REMEMBER_TOOL,
  type RememberReceipt,
  rememberAnswer,
  rememberReceipt,
  rememberWrite,
} from '@text-memory/sdk/tools';
import type { z } from 'zod';
import { RememberInput } from './arguments.js';
import { callService } from './tool-error.js';

/** The write's receipt as the tool's artifact (tm-mcp's structuredContent): the decision as its value. */
export type RememberArtifact = RememberReceipt;

/**
 * `remember` bound to one namespace: its content is tm-mcp's text, its artifact the receipt. The type is
 * stated: called with plain arguments it answers its content (a string), with a tool call a ToolMessage.
 * LangChain's inferred type says the content-and-artifact pair for the former, which it never returns
 * (responseFormat 'content_and_artifact' takes the pair apart).
 */
export type RememberTool = DynamicStructuredTool<
  typeof RememberInput,
  z.output<typeof RememberInput>,
  z.input<typeof RememberInput>,
  string,
  unknown,
  'remember'
>;

export function rememberTool(client: TextMemory, namespace: string): RememberTool {
  return tool(
    (args, config): Promise<[string, RememberArtifact]> =>
      callService(async () => {
        // A cancelled run (the agent's AbortSignal) stops the request and the SDK's retries too.
        const written = await client.memory.write(rememberWrite(namespace, args), {
          signal: config?.signal,
        });
        const receipt = rememberReceipt(written);
        return [rememberAnswer(receipt), receipt];
      }),
    {
      name: REMEMBER_TOOL.name,
      description: REMEMBER_TOOL.description,
      schema: RememberInput,
      responseFormat: 'content_and_artifact',
    },
  ) as unknown as RememberTool;
}
