import type { TextMemory } from '@text-memory/sdk';
import {
  EVENT_ID_ARGUMENT,
  REMEMBER_TOOL,
  type RememberReceipt,
  rememberAnswer,
  rememberReceipt,
  rememberWrite,
} from '@text-memory/sdk/tools';
import { type Tool, tool } from 'ai';
import { z } from 'zod';
import { timestamp } from './arguments.js';
import { callService } from './tool-error.js';

/** tm-mcp's `remember` description: every adapter's comes from @text-memory/sdk/tools. */
export const REMEMBER_DESCRIPTION: string = REMEMBER_TOOL.description;

const ARGS = REMEMBER_TOOL.arguments;

// tm-mcp's arguments less `namespace`, which the app binds (tests/e2e/clients/ai-sdk.test.ts compares them).
const rememberInput = z.object({
  text: z.string().min(1).max(ARGS.text.maxLength).describe(ARGS.text.description),
  event_id: z
    .string()
    .min(1)
    .max(EVENT_ID_ARGUMENT.maxLength)
    .regex(EVENT_ID_ARGUMENT.pattern, EVENT_ID_ARGUMENT.patternMessage)
    .describe(ARGS.event_id)
    .optional(),
  occurred_at: timestamp(ARGS.occurred_at).optional(),
  supersedes: z.array(z.string().min(1)).min(1).describe(ARGS.supersedes).optional(),
});

export type RememberInput = z.infer<typeof rememberInput>;

/**
 * What `remember` returns to the app (`toolResults`): tm-mcp's structuredContent, the write's receipt.
 * The model reads tm-mcp's text of it.
 */
export type RememberResult = RememberReceipt;

export function rememberTool(
  client: TextMemory,
  namespace: string,
  description: string,
): Tool<RememberInput, RememberResult> {
  return tool({
    description,
    inputSchema: rememberInput,
    execute: (input, { abortSignal }) =>
      callService('remember', async () =>
        rememberReceipt(
          await client.memory.write(
            rememberWrite(namespace, input),
            abortSignal ? { signal: abortSignal } : undefined,
          ),
        ),
      ),
    toModelOutput: ({ output }) => ({ type: 'text', value: rememberAnswer(output) }),
  });
}
