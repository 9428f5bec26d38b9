import { type DynamicStructuredTool, tool } from '@langchain/core/tools';
import { LIMITS, type TextMemory, type WriteResponse } from '@text-memory/sdk';
import { z } from 'zod';
import { eventIdArgument, timestampArgument } from './arguments.js';
import { callService } from './tool-error.js';

/** The write's receipt as the tool's artifact (tm-mcp's structuredContent): the decision as its value. */
export type RememberArtifact = Pick<
  WriteResponse,
  'state' | 'memory_id' | 'event_id' | 'namespace' | 'idempotency_outcome' | 'supersession' | 'request_id'
> & { decision: WriteResponse['decision']['value'] };

// Name, description and arguments are tm-mcp's `remember` (tests/e2e/langchain.test.ts compares them),
// less `namespace`: the application binds the tools to one namespace, the model does not choose it.
const RememberInput = z.object({
  text: z
    .string()
    .min(1)
    .max(LIMITS.textMaxChars)
    .describe('The text to remember, self-contained (who, what, when): it is returned as written.'),
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
});

export const REMEMBER_DESCRIPTION =
  'Store one piece of text (a fact, preference or event) in long-term memory so a later `recall` can ' +
  'find it. To make a repeat safe, give `event_id` and `occurred_at`: the same call again (same ' +
  'text, event_id and occurred_at) is stored once (idempotency_outcome "Replayed"), never twice; ' +
  'the same event_id with anything else is refused with code idempotency_conflict. A successful ' +
  'call does not always mean the text was kept: read `state` ("retained" or "not_retained").';

/** `remember` bound to one namespace: its content is tm-mcp's text, its artifact the receipt. */
/**
 * The tool's type, stated: called with plain arguments it answers its content (a string), with a tool call
 * a ToolMessage. LangChain's inferred type says the content-and-artifact pair for the former, which it
 * never returns (responseFormat 'content_and_artifact' takes the pair apart).
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
        const written = await client.memory.write(
          {
            namespace,
            text: args.text,
            ...(args.event_id !== undefined
              ? { idempotency_key: args.event_id, event_id: args.event_id }
              : {}),
            ...(args.occurred_at !== undefined ? { occurred_at: args.occurred_at } : {}),
            ...(args.supersedes !== undefined ? { supersedes: args.supersedes } : {}),
          },
          // A cancelled run (the agent's AbortSignal) stops the request and the SDK's retries too.
          { signal: config?.signal },
        );
        const kept =
          written.state === 'retained'
            ? `Remembered in namespace "${written.namespace}" as memory ${written.memory_id}.`
            : `Not retained (decision: ${written.decision.value}${written.decision.reason ? `, ${written.decision.reason}` : ''}).`;
        const text = [
          kept,
          `event_id: ${written.event_id}`,
          `idempotency_outcome: ${written.idempotency_outcome}`,
          ...written.supersession.map((s) => `supersedes ${s.target_event_id}: ${s.status}`),
          `request_id: ${written.request_id}`,
        ].join('\n');
        return [
          text,
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
        ];
      }),
    {
      name: 'remember',
      description: REMEMBER_DESCRIPTION,
      schema: RememberInput,
      responseFormat: 'content_and_artifact',
    },
  ) as unknown as RememberTool;
}
