import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ForgetReceipt } from '@text-memory/sdk';
import { z } from 'zod';
import type { ToolContext } from './context.js';
import { mirrors } from './mirrors.js';
import { callService, refusal, success } from './results.js';

/** What `forget_memory` answers: the receipt's ids and counts (never text: the memory is gone). */
const ForgetMemoryOutput = mirrors<
  Pick<ForgetReceipt, 'state' | 'memory_id' | 'namespace' | 'reinstated' | 'forgotten_at' | 'request_id'>
>()(
  z.object({
    state: z.literal('not_retained'),
    memory_id: z.string(),
    namespace: z.string(),
    reinstated: z.array(z.string()),
    forgotten_at: z.string(),
    request_id: z.string(),
  }),
);

export function registerForgetMemory(server: McpServer, { tm }: ToolContext) {
  server.registerTool(
    'forget_memory',
    {
      title: 'Forget one memory',
      description:
        'Permanently delete ONE memory by its memory_id (from `recall` or `remember`): its text leaves recall ' +
        'and every read for good, and a memory it had replaced (supersedes) becomes current again. Only call ' +
        'it when the user asked to forget that memory (it is wrong or sensitive), and pass `confirm: true`; ' +
        'without it nothing is deleted.',
      inputSchema: {
        memory_id: z.string().min(1).max(128).describe('The memory_id of the memory to forget.'),
        confirm: z
          .boolean()
          .describe('Must be true: you confirm the user asked to forget this memory.')
          .optional(),
      },
      outputSchema: ForgetMemoryOutput,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    async ({ memory_id: memoryId, confirm }) => {
      if (confirm !== true)
        return refusal(
          `Refused: nothing was deleted. Forgetting memory ${memoryId} removes it for good; call ` +
            'forget_memory again with `confirm: true` only if the user asked for exactly that.',
          'confirmation_required',
        );
      return callService(async () => {
        const receipt = await tm.memories.forget(memoryId);
        const back = receipt.reinstated.length
          ? `\nCurrent again (it had replaced them): ${receipt.reinstated.join(', ')}`
          : '';
        return success(
          ForgetMemoryOutput,
          `Forgotten: memory ${receipt.memory_id} in "${receipt.namespace}".${back}\nrequest_id: ${receipt.request_id}`,
          {
            state: receipt.state,
            memory_id: receipt.memory_id,
            namespace: receipt.namespace,
            reinstated: receipt.reinstated,
            forgotten_at: receipt.forgotten_at,
            request_id: receipt.request_id,
          },
        );
      });
    },
  );
}
