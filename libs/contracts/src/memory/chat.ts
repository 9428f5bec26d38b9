import { z } from 'zod';
import { ErrorCodeSchema, ErrorDetails } from '../http/envelope.js';
import { CONTRACT_VERSION, RUNTIME } from '../runtime.js';

// Chat completions: the OpenAI chat-completions shape, answered by the deterministic mock from
// a conversation memory the caller names with `memory_id`. See docs/decisions/api.md.

/** The engine kinds the spec names; each model id is one variant of a kind. */
export const ChatModelKind = z.enum(['nano', 'standard', 'research']);
export type ChatModelKind = z.infer<typeof ChatModelKind>;

/** The documented engines. `recall_top_k`: how many retained items a reply may draw on. */
export const CHAT_MODELS = [
  { id: 'tm-nano-1', kind: 'nano', recall_top_k: 1 },
  { id: 'tm-standard-1', kind: 'standard', recall_top_k: 3 },
  { id: 'tm-research-1', kind: 'research', recall_top_k: 5 },
] as const satisfies ReadonlyArray<{ id: string; kind: ChatModelKind; recall_top_k: number }>;
export type ChatModel = (typeof CHAT_MODELS)[number];

/** When the model list was published (seconds since the epoch): `created` of every model entry. */
export const CHAT_MODELS_CREATED = 1_795_000_000;
export const CHAT_MODEL_OWNER = 'text-memory-service';

export const chatModelById = (id: string): ChatModel | undefined => CHAT_MODELS.find((m) => m.id === id);

/** A memory_id is one namespace segment: it becomes the namespace `chat/<memory_id>`. */
export const MEMORY_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]*$/;
export const CHAT_NAMESPACE_PREFIX = 'chat/';
export const chatNamespaceOf = (memoryId: string) => `${CHAT_NAMESPACE_PREFIX}${memoryId}`;

export const ChatMemoryId = z
  .string({ error: 'memory_id is required' })
  .min(1, 'memory_id must not be empty')
  .max(64, 'memory_id must be at most 64 characters')
  .regex(
    MEMORY_ID_PATTERN,
    'memory_id must start with a letter or digit and use only letters, digits and . _ : -',
  )
  .meta({
    description: 'Caller-chosen conversation memory; stored as the namespace `chat/<memory_id>`',
    example: 'support-ticket-42',
  });

const TextPart = z.object({ type: z.literal('text'), text: z.string() });

/** `content` as a string or as text parts (what OpenAI clients may send); blank is refused. */
const MessageContent = z
  .union([z.string(), z.array(TextPart).min(1)], {
    error: 'content must be a string or a list of text parts',
  })
  .refine(
    (c) => (typeof c === 'string' ? c : c.map((p) => p.text).join('')).trim().length > 0,
    'content must not be empty',
  );

export const ChatMessage = z
  .looseObject({
    role: z
      .string({ error: 'role is required' })
      .regex(/^[a-z][a-z0-9_-]{0,63}$/, 'role must be user, assistant, system or a lower-case custom role'),
    content: MessageContent,
    name: z.string().max(64).optional(),
  })
  .meta({
    id: 'ChatMessage',
    description: 'Roles user, assistant, system, or a custom lower-case role token; other fields are ignored',
  });
export type ChatMessage = z.infer<typeof ChatMessage>;

/** The text of a message, text parts joined. */
export const messageText = (m: ChatMessage) =>
  typeof m.content === 'string' ? m.content : m.content.map((p) => p.text).join('');

export const ChatCompletionRequest = z
  .looseObject({
    model: z.string({ error: 'model is required' }).min(1, 'model must not be empty'),
    messages: z
      .array(ChatMessage, { error: 'messages must be a list of messages' })
      .min(1, 'messages must not be empty')
      .max(256, 'messages must hold at most 256 messages')
      .refine((ms) => ms.some((m) => m.role === 'user'), 'messages must include a user message'),
    memory_id: ChatMemoryId,
    stream: z.boolean().optional(),
    stream_options: z.looseObject({ include_usage: z.boolean().optional() }).nullable().optional(),
    n: z.literal(1, { error: 'n must be 1 (one deterministic choice)' }).optional(),
  })
  .meta({
    id: 'ChatCompletionRequest',
    description:
      'OpenAI chat-completions body plus `memory_id`. Sampling parameters (temperature, max_tokens, …) are accepted and ignored: the mock is deterministic.',
  });
export type ChatCompletionRequest = z.infer<typeof ChatCompletionRequest>;

export const ChatProvenance = z
  .object({
    execution_mode: z.literal(RUNTIME.execution_mode),
    provider: z.literal(RUNTIME.provider),
    model_version: z.literal(RUNTIME.model_version),
    model_execution: z.literal(false),
    capability_status: z.literal(RUNTIME.capability_status),
    // The spec's `Unspecified`: no model executed and nothing is billed as model usage, whichever
    // engine name was asked for (this once said the engine's kind, as if it had run).
    model_variant: z.literal(RUNTIME.model_variant),
  })
  .meta({ id: 'ChatProvenance' });

/** The namespaced extension: where the reply came from and what the call retained. */
export const ChatMemoryExtension = z
  .object({
    contract_version: z.literal(CONTRACT_VERSION),
    request_id: z.string(),
    memory_id: z.string(),
    namespace: z.string(),
    provenance: ChatProvenance,
    recalled_memory_ids: z
      .array(z.string())
      .meta({ description: 'Retained items the reply cites, in order' }),
    recall: z.object({
      state: z.enum(['retained', 'no_data']),
      top_k: z.number().int().positive(),
    }),
    retained_turn: z.object({
      state: z.enum(['retained', 'not_retained']),
      memory_id: z.string().nullable(),
      idempotency_key: z.string(),
      idempotency_outcome: z.enum(['Accepted', 'Replayed']),
    }),
    billing: z.object({
      billing_state: z.enum(['billable', 'no_data']),
      operation_units: z.number().int().nonnegative(),
      pricing_version: z.string(),
      sandbox: z.literal(true),
    }),
  })
  .meta({ id: 'ChatMemoryExtension' });
export type ChatMemoryExtension = z.infer<typeof ChatMemoryExtension>;

export const ChatUsage = z
  .object({
    prompt_tokens: z.number().int().nonnegative(),
    completion_tokens: z.number().int().nonnegative(),
    total_tokens: z.number().int().nonnegative(),
  })
  .meta({ id: 'ChatUsage', description: 'Counted with the documented deterministic tokenizer' });

export const ChatCompletion = z
  .object({
    id: z.string(),
    object: z.literal('chat.completion'),
    created: z.number().int(),
    model: z.string(),
    system_fingerprint: z.string(),
    choices: z.array(
      z.object({
        index: z.number().int(),
        message: z.object({
          role: z.literal('assistant'),
          content: z.string(),
          refusal: z.null(),
        }),
        logprobs: z.null(),
        finish_reason: z.literal('stop'),
      }),
    ),
    usage: ChatUsage,
    text_memory: ChatMemoryExtension,
  })
  .meta({ id: 'ChatCompletion' });
export type ChatCompletion = z.infer<typeof ChatCompletion>;

/** One `data:` event of a streamed completion (documented for reference; SSE is not JSON-validated). */
export const ChatCompletionChunk = z
  .object({
    id: z.string(),
    object: z.literal('chat.completion.chunk'),
    created: z.number().int(),
    model: z.string(),
    system_fingerprint: z.string(),
    choices: z.array(
      z.object({
        index: z.number().int(),
        delta: z.object({ role: z.literal('assistant').optional(), content: z.string().optional() }),
        logprobs: z.null(),
        finish_reason: z.literal('stop').nullable(),
      }),
    ),
    usage: ChatUsage.nullable().optional(),
    text_memory: ChatMemoryExtension.optional(),
  })
  .meta({ id: 'ChatCompletionChunk' });
export type ChatCompletionChunk = z.infer<typeof ChatCompletionChunk>;

export const ModelEntry = z
  .object({
    id: z.string(),
    object: z.literal('model'),
    created: z.number().int(),
    owned_by: z.string(),
    text_memory: z.object({
      model_kind: ChatModelKind.meta({
        description: 'The engine kind the name selects (how many memories it recalls); no model runs',
      }),
      recall_top_k: z.number().int().positive(),
    }),
  })
  .meta({ id: 'ModelEntry' });
export type ModelEntry = z.infer<typeof ModelEntry>;

export const ModelList = z
  .object({ object: z.literal('list'), data: z.array(ModelEntry) })
  .meta({ id: 'ModelList' });

/**
 * The error body of the OpenAI-compatible routes: the project envelope with `error` as the object
 * OpenAI clients read (`message`, `type`, `code`, `param`) instead of a string.
 */
export const OpenAiErrorEnvelope = z
  .object({
    error: z.object({
      message: z.string(),
      type: z.enum([
        'invalid_request_error',
        'authentication_error',
        'permission_error',
        'not_found_error',
        'conflict_error',
        'rate_limit_error',
        'server_error',
      ]),
      code: ErrorCodeSchema,
      param: z.string().nullable(),
    }),
    retryable: z.boolean(),
    request_id: z.string(),
    details: ErrorDetails,
  })
  .meta({ id: 'OpenAiErrorEnvelope' });
export type OpenAiErrorEnvelope = z.infer<typeof OpenAiErrorEnvelope>;

/** The OpenAI error `type` for an HTTP status. */
export function openAiErrorType(status: number): OpenAiErrorEnvelope['error']['type'] {
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 404) return 'not_found_error';
  if (status === 409) return 'conflict_error';
  if (status === 429) return 'rate_limit_error';
  if (status >= 500) return 'server_error';
  return 'invalid_request_error';
}

// ---- deterministic tokenizer ---------------------------------------------------------------------

const TOKEN = /[\p{L}\p{N}]+|[^\s\p{L}\p{N}]/gu;

/** Tokens of a text: NFKC, then each run of letters/digits is one token and each other visible character one. */
export function countTokens(text: string): number {
  return text.normalize('NFKC').match(TOKEN)?.length ?? 0;
}
