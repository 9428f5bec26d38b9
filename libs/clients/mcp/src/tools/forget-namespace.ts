import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { DeleteReceipt } from '@text-memory/sdk';
import { z } from 'zod';
import { namespaceArgument } from './arguments.js';
import type { ToolContext } from './context.js';
import { mirrors } from './mirrors.js';
import { callService, refusal, success } from './results.js';

/** What `forget_namespace` answers: the deletion's receipt. */
const ForgetOutput = mirrors<Pick<DeleteReceipt, 'state' | 'namespace' | 'deleted' | 'request_id'>>()(
  z.object({
    state: z.enum(['not_retained', 'no_data']),
    namespace: z.string(),
    deleted: z.number(),
    request_id: z.string(),
  }),
);

/** How long `forget_namespace` follows a deletion job before answering with its progress. */
const FORGET_WAIT_MS = 8_000;

export function registerForgetNamespace(server: McpServer, { tm }: ToolContext) {
  server.registerTool(
    'forget_namespace',
    {
      title: 'Forget a whole namespace',
      description:
        'Permanently delete EVERY memory in one namespace (with its supersession links and idempotency ' +
        'state); it cannot be undone. Only call it when the user explicitly asked to forget that ' +
        'namespace, and pass `confirm: true`; without it nothing is deleted. The namespace is never ' +
        'taken from a default: name it.',
      inputSchema: {
        namespace: namespaceArgument('The namespace to delete entirely.'),
        confirm: z
          .boolean()
          .describe('Must be true: you confirm the user asked to delete everything in this namespace.')
          .optional(),
      },
      outputSchema: ForgetOutput,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    async ({ namespace, confirm }) => {
      if (confirm !== true)
        return refusal(
          `Refused: nothing was deleted. Deleting "${namespace}" removes every memory in it for good; ` +
            'call forget_namespace again with `confirm: true` only if the user asked for exactly that.',
          'confirmation_required',
        );
      return callService(async () => {
        // Well inside the clients' own request timeouts (the MCP TypeScript client gives up at 60 s, the
        // Inspector at 10 s): past this the server goes on alone, and the memories are already hidden.
        const receipt = await tm.memory.delete(namespace, { maxWaitMs: FORGET_WAIT_MS });
        const count = (n: number) => `${n} memor${n === 1 ? 'y' : 'ies'}`;
        return success(
          ForgetOutput,
          receipt.state === 'no_data'
            ? `Nothing to delete: "${receipt.namespace}" holds no memory.\nrequest_id: ${receipt.request_id}`
            : receipt.deletion.status === 'completed'
              ? `Deleted ${count(receipt.deleted)} from "${receipt.namespace}".\nrequest_id: ${receipt.request_id}`
              : `Forgotten: "${receipt.namespace}" is hidden from recall; ${count(receipt.deleted)} of ` +
                `${receipt.deletion.progress.records_total} deleted so far, the rest by the server.\nrequest_id: ${receipt.request_id}`,
          {
            state: receipt.state,
            namespace: receipt.namespace,
            deleted: receipt.deleted,
            request_id: receipt.request_id,
          },
        );
      });
    },
  );
}
