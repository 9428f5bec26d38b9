import { LIMITS, type TextMemory, type WriteResponse } from '@text-memory/sdk';
import { type Tool, tool } from 'ai';
import { z } from 'zod';
import type { EventTimes } from './event-times.js';
import { callService } from './tool-error.js';

export const REMEMBER_DESCRIPTION =
  'Store one piece of text (a fact, preference or event) in long-term memory so a later `recall` can ' +
  'find it. Write it self-contained (who, what, when). To make a repeat safe, give `idempotency_key` ' +
  '(and `occurred_at`): calling again with the same key and text stores it once and answers ' +
  '"Replayed"; the same key with other text is refused with code idempotency_conflict. Read the ' +
  'answer: "Not retained" means the service decided not to keep it.';

const rememberInput = z.object({
  text: z
    .string()
    .min(1)
    .max(LIMITS.textMaxChars)
    .describe('The text to remember, self-contained (who, what, when): it is returned as written.'),
  idempotency_key: z
    .string()
    .min(1)
    .max(LIMITS.idempotencyKeyMaxLength)
    .regex(/^[\x21-\x7E]+$/, 'idempotency_key must be visible ASCII without spaces')
    .describe(
      'Your identifier for this memory, e.g. "alice-drink-preference-1"; also its event_id. Give it to make a retry safe.',
    )
    .optional(),
  occurred_at: z.iso
    .datetime({ offset: true, message: 'must be an ISO 8601 timestamp with a zone (Z or ±hh:mm)' })
    .describe('When the fact happened or was stated (ISO 8601). Default: now.')
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
        const key = input.idempotency_key;
        const written = await client.memory.write(
          {
            namespace,
            text: input.text,
            ...(key !== undefined
              ? { idempotency_key: key, occurred_at: eventTimes.timeFor(key, input.occurred_at) }
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
