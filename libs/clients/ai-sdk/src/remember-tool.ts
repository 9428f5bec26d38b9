import { LIMITS, type TextMemory, type WriteResponse } from '@text-memory/sdk';
import { type Tool, tool } from 'ai';
import { z } from 'zod';
import type { EventTimes } from './event-times.js';
import { callService } from './tool-error.js';

// tm-mcp's `remember` description and arguments (tests/e2e/ai-sdk.test.ts compares the argument names),
// less `namespace`, which the app binds: so the texts never mention a namespace, and the last sentence
// names what this tool's answer text says.
export const REMEMBER_DESCRIPTION =
  'Store one piece of text (a fact, preference or event) in long-term memory so a later `recall` can ' +
  'find it. To make a repeat safe, give `event_id` and `occurred_at`: the same call again (same ' +
  'text, event_id and occurred_at) is stored once (idempotency_outcome "Replayed"), never twice; ' +
  'the same event_id with anything else is refused with code idempotency_conflict. A successful ' +
  'call does not always mean the text was kept: "Not retained" in the answer means it was not.';

const rememberInput = z.object({
  text: z
    .string()
    .min(1)
    .max(LIMITS.textMaxChars)
    .describe('The text to remember, self-contained (who, what, when): it is returned as written.'),
  // Also the write's idempotency key, so it has the key's rule: visible ASCII, no spaces.
  event_id: z
    .string()
    .min(1)
    .max(LIMITS.idempotencyKeyMaxLength)
    .regex(/^[\x21-\x7E]+$/, 'event_id must be visible ASCII without spaces')
    .describe(
      'Your identifier for this memory, and its idempotency key: when the call may be retried (a ' +
        'timeout, a lost answer), make one up (e.g. a UUID) with occurred_at and send both again ' +
        'unchanged on the retry. Generated when absent.',
    )
    .optional(),
  occurred_at: z.iso
    .datetime({ offset: true, message: 'must be an ISO 8601 timestamp with a zone (Z or ±hh:mm)' })
    .describe(
      'When the fact happened or was stated. Default: now (so give it too when you may repeat the call).',
    )
    .optional(),
  supersedes: z
    .array(z.string().min(1))
    .min(1)
    .describe('event_ids (from recall) of earlier memories that this one replaces.')
    .optional(),
});

export type RememberInput = z.infer<typeof rememberInput>;

/** What `remember` returns to the app (`toolResults`); the model reads it as the text below. */
export interface RememberResult {
  state: WriteResponse['state'];
  idempotency_outcome: WriteResponse['idempotency_outcome'];
  memory_id: WriteResponse['memory_id'];
  event_id: string;
  namespace: string;
  decision: WriteResponse['decision']['value'];
  supersession: WriteResponse['supersession'];
  request_id: string;
}

export function rememberTool(
  client: TextMemory,
  namespace: string,
  eventTimes: EventTimes,
  description: string,
): Tool<RememberInput, RememberResult> {
  return tool({
    description,
    inputSchema: rememberInput,
    execute: (input, { abortSignal }) =>
      callService('remember', async () => {
        const eventId = input.event_id;
        const written = await client.memory.write(
          {
            namespace,
            text: input.text,
            ...(eventId !== undefined
              ? {
                  idempotency_key: eventId,
                  event_id: eventId,
                  occurred_at: eventTimes.timeFor(eventId, input.occurred_at),
                }
              : input.occurred_at !== undefined
                ? { occurred_at: input.occurred_at }
                : {}),
            ...(input.supersedes !== undefined ? { supersedes: input.supersedes } : {}),
          },
          abortSignal ? { signal: abortSignal } : undefined,
        );
        return {
          state: written.state,
          idempotency_outcome: written.idempotency_outcome,
          memory_id: written.memory_id,
          event_id: written.event_id,
          namespace: written.namespace,
          decision: written.decision.value,
          supersession: written.supersession,
          request_id: written.request_id,
        };
      }),
    toModelOutput: ({ output }) => ({ type: 'text', value: rememberText(output) }),
  });
}

export function rememberText(result: RememberResult): string {
  return [
    result.state === 'retained'
      ? `Remembered as memory ${result.memory_id}.`
      : `Not retained (decision: ${result.decision}).`,
    `event_id: ${result.event_id}`,
    `idempotency_outcome: ${result.idempotency_outcome}`,
    ...result.supersession.map((s) => `supersedes ${s.target_event_id}: ${s.status}`),
    `request_id: ${result.request_id}`,
  ].join('\n');
}
