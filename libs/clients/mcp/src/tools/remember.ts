import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { LIMITS, type WriteResponse } from '@text-memory/sdk';
import { z } from 'zod';
import { eventIdArgument, namespaceArgument, timestampArgument } from './arguments.js';
import type { ToolContext } from './context.js';
import { mirrors } from './mirrors.js';
import { callService, noNamespace, success } from './results.js';

/** What `remember` answers: the write's receipt, its decision reduced to the decision's value. */
const RememberOutput = mirrors<
  Pick<
    WriteResponse,
    'state' | 'memory_id' | 'event_id' | 'namespace' | 'idempotency_outcome' | 'supersession' | 'request_id'
  > & { decision: WriteResponse['decision']['value'] }
>()(
  z.object({
    state: z.enum(['retained', 'not_retained']),
    memory_id: z.string().nullable(),
    event_id: z.string(),
    namespace: z.string(),
    idempotency_outcome: z.enum(['Accepted', 'Replayed']),
    decision: z.enum(['memorized', 'not_retained', 'not_memorized', 'not_evaluated']),
    supersession: z.array(
      z.object({ target_event_id: z.string(), status: z.enum(['superseded', 'unresolved']) }),
    ),
    request_id: z.string(),
  }),
);

export function registerRemember(server: McpServer, { tm, defaultNamespace, namespaceHint }: ToolContext) {
  server.registerTool(
    'remember',
    {
      title: 'Remember a fact',
      description:
        'Store one piece of text (a fact, preference or event) in long-term memory so a later `recall` can ' +
        'find it. To make a repeat safe, give `event_id` and `occurred_at`: the same call again (same ' +
        'text, event_id and occurred_at) is stored once (idempotency_outcome "Replayed"), never twice; ' +
        'the same event_id with anything else is refused with code idempotency_conflict. A successful ' +
        'call does not always mean the text was kept: read `state` ("retained" or "not_retained").',
      inputSchema: {
        text: z
          .string()
          .min(1)
          .max(LIMITS.textMaxChars)
          .describe('The text to remember, self-contained (who, what, when): it is returned as written.'),
        namespace: namespaceArgument(
          'Partition to store it in, e.g. a user or project id. Default: the server’s default namespace if it ' +
            'has one (tm-mcp: TM_NAMESPACE).',
        ).optional(),
        event_id: eventIdArgument(
          'Your identifier for this memory, and its idempotency key: when the call may be retried (a ' +
            'timeout, a lost answer), make one up (e.g. a UUID) with occurred_at and send both again ' +
            'unchanged on the retry. Generated when absent.',
        ).optional(),
        occurred_at: timestampArgument(
          'When the fact happened or was stated. Default: now (so give it too when you may repeat the call).',
        ).optional(),
        supersedes: z
          .array(z.string().min(1))
          .min(1)
          .describe('event_ids of earlier memories in the same namespace that this one replaces.')
          .optional(),
      },
      outputSchema: RememberOutput,
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      },
    },
    async (args) => {
      const namespace = args.namespace ?? defaultNamespace;
      if (namespace === undefined) return noNamespace(namespaceHint);
      return callService(async () => {
        const written = await tm.memory.write({
          namespace,
          text: args.text,
          ...(args.event_id !== undefined ? { idempotency_key: args.event_id, event_id: args.event_id } : {}),
          ...(args.occurred_at !== undefined ? { occurred_at: args.occurred_at } : {}),
          ...(args.supersedes !== undefined ? { supersedes: args.supersedes } : {}),
        });
        const kept =
          written.state === 'retained'
            ? `Remembered in namespace "${written.namespace}" as memory ${written.memory_id}.`
            : `Not retained (decision: ${written.decision.value}${written.decision.reason ? `, ${written.decision.reason}` : ''}).`;
        const superseded = written.supersession.map((s) => `supersedes ${s.target_event_id}: ${s.status}`);
        return success(
          RememberOutput,
          [
            kept,
            `event_id: ${written.event_id}`,
            `idempotency_outcome: ${written.idempotency_outcome}`,
            ...superseded,
            `request_id: ${written.request_id}`,
          ].join('\n'),
          {
            state: written.state,
            memory_id: written.memory_id,
            event_id: written.event_id,
            namespace: written.namespace,
            idempotency_outcome: written.idempotency_outcome,
            decision: written.decision.value,
            supersession: written.supersession,
            request_id: written.request_id,
          },
        );
      });
    },
  );
}
