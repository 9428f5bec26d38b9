import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  REMEMBER_TOOL,
  type RememberReceipt,
  rememberAnswer,
  rememberReceipt,
  rememberWrite,
} from '@text-memory/sdk/tools';
import { z } from 'zod';
import { eventIdArgument, namespaceArgument, timestampArgument } from './arguments.js';
import type { ToolContext } from './context.js';
import { mirrors } from './mirrors.js';
import { callService, noNamespace, success } from './results.js';
import { type WithoutNulls, withoutNulls } from './without-nulls.js';

const ARGS = REMEMBER_TOOL.arguments;

/**
 * What `remember` answers: the write's receipt (the one every adapter hands to code), with its nulls
 * left out (without-nulls.ts).
 */
const RememberOutput = mirrors<WithoutNulls<RememberReceipt>>()(
  z.object({
    state: z.enum(['retained', 'not_retained']),
    memory_id: z.string().describe('Absent when the text was not retained').optional(),
    event_id: z.string(),
    namespace: z.string(),
    idempotency_outcome: z.enum(['Accepted', 'Replayed']),
    decision: z.enum(['memorized', 'not_retained', 'not_memorized', 'not_evaluated']),
    decision_reason: z
      .string()
      .describe('Why it was not retained; absent when the service gave none')
      .optional(),
    supersession: z.array(
      z.object({ target_event_id: z.string(), status: z.enum(['superseded', 'unresolved']) }),
    ),
    request_id: z.string(),
  }),
);

export function registerRemember(server: McpServer, { tm, defaultNamespace, namespaceHint }: ToolContext) {
  server.registerTool(
    REMEMBER_TOOL.name,
    {
      title: REMEMBER_TOOL.title,
      description: REMEMBER_TOOL.description,
      inputSchema: {
        text: z.string().min(1).max(ARGS.text.maxLength).describe(ARGS.text.description),
        namespace: namespaceArgument(ARGS.namespace).optional(),
        event_id: eventIdArgument(ARGS.event_id).optional(),
        occurred_at: timestampArgument(ARGS.occurred_at).optional(),
        supersedes: z.array(z.string().min(1)).min(1).describe(ARGS.supersedes).optional(),
      },
      outputSchema: RememberOutput,
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      },
    },
    async ({ namespace: named, ...args }) => {
      const namespace = named ?? defaultNamespace;
      if (namespace === undefined) return noNamespace(namespaceHint);
      return callService(async () => {
        const receipt = rememberReceipt(await tm.memory.write(rememberWrite(namespace, args)));
        return success(RememberOutput, rememberAnswer(receipt), withoutNulls(receipt));
      });
    },
  );
}
