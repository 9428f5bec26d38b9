import { EVENT_ID_ARGUMENT, RECALL_TOOL, REMEMBER_TOOL, TIMESTAMP_MESSAGE } from '@text-memory/sdk/tools';
import { z } from 'zod';

// The tools' input schemas, from the texts and bounds every adapter shares (@text-memory/sdk/tools), less
// `namespace`: the application binds the tools to one namespace, the model does not choose it. A model
// sees the limits in the tool's schema and a bad call is refused by LangChain before anything is sent.

const timestamp = (description: string) =>
  z.iso.datetime({ offset: true, message: TIMESTAMP_MESSAGE }).describe(description);

const remember = REMEMBER_TOOL.arguments;
export const RememberInput = z.object({
  text: z.string().min(1).max(remember.text.maxLength).describe(remember.text.description),
  event_id: z
    .string()
    .min(1)
    .max(EVENT_ID_ARGUMENT.maxLength)
    .regex(EVENT_ID_ARGUMENT.pattern, EVENT_ID_ARGUMENT.patternMessage)
    .describe(remember.event_id)
    .optional(),
  occurred_at: timestamp(remember.occurred_at).optional(),
  supersedes: z.array(z.string().min(1)).min(1).describe(remember.supersedes).optional(),
});

const recall = RECALL_TOOL.arguments;
export const RecallInput = z.object({
  query: z.string().min(1).max(recall.query.maxLength).describe(recall.query.description),
  top_k: z
    .number()
    .int()
    .min(recall.top_k.min)
    .max(recall.top_k.max)
    .describe(recall.top_k.description())
    .optional(),
  as_of: timestamp(recall.as_of).optional(),
  explain: z.boolean().describe(recall.explain).optional(),
});
