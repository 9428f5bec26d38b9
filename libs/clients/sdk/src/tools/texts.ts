import { LIMITS } from '../limits.js';

// The texts and bounds of the memory tools `remember` and `recall`, the one definition every adapter
// builds its own schema from: tm-mcp and the gateway's /mcp (@text-memory/mcp), LangChain.js
// (@text-memory/langchain) and the Vercel AI SDK (@text-memory/ai-sdk). Plain strings, numbers and
// patterns, so none of those frameworks (nor zod) comes into the SDK; a model meets the same words on
// every surface, and the packages' parity tests compare what each lists with tm-mcp.

/** The rule and message of every timestamp argument (`occurred_at`, `as_of`). */
export const TIMESTAMP_MESSAGE = 'must be an ISO 8601 timestamp with a zone (Z or ±hh:mm)';

/** The namespace argument's rule (where the caller names one: tm-mcp, /mcp). */
export const NAMESPACE_ARGUMENT = {
  maxLength: LIMITS.namespaceMaxLength,
  pattern: LIMITS.namespacePattern,
  patternMessage: LIMITS.namespacePatternMessage,
} as const;

/** `event_id` is also the write's idempotency key, so it has the key's rule: visible ASCII, no spaces. */
export const EVENT_ID_ARGUMENT = {
  maxLength: LIMITS.idempotencyKeyMaxLength,
  pattern: /^[\x21-\x7E]+$/,
  patternMessage: 'event_id must be visible ASCII without spaces',
} as const;

export const REMEMBER_TOOL = {
  name: 'remember',
  title: 'Remember a fact',
  description:
    'Store one piece of text (a fact, preference or event) in long-term memory so a later `recall` can ' +
    'find it. To make a repeat safe, give `event_id`: the same call again (same text and event_id) ' +
    'is stored once (idempotency_outcome "Replayed"), never twice; the same event_id with other text ' +
    'is refused with code idempotency_conflict, naming what differs. A successful ' +
    'call does not always mean the text was kept: an answer "Not retained" (state "not_retained") ' +
    'means it was not.',
  arguments: {
    text: {
      maxLength: LIMITS.textMaxChars,
      description: 'The text to remember, self-contained (who, what, when): it is returned as written.',
    },
    namespace:
      'Partition to store it in, e.g. a user or project id. Default: the server’s default namespace if it ' +
      'has one (tm-mcp: TM_NAMESPACE).',
    event_id:
      'Your identifier for this memory, and its idempotency key: when the call may be retried (a ' +
      'timeout, a lost answer), make one up (e.g. a UUID) and send it again unchanged on the retry. ' +
      'Generated when absent.',
    occurred_at:
      'When the fact happened or was stated. Default: when the service stores it (a retry without it replays).',
    supersedes: 'event_ids of earlier memories in the same namespace that this one replaces.',
  },
} as const;

export const RECALL_TOOL = {
  name: 'recall',
  title: 'Recall memories',
  description:
    'Find stored memories related to a query and get them as a context text to use in your answer. ' +
    'Ranking is by shared words (lexical overlap; words rare in the namespace weigh more), not by ' +
    'meaning: put the distinctive words you expect in the memory into the query (names, things, places).',
  arguments: {
    query: {
      maxLength: LIMITS.cueMaxChars,
      description: 'Words to look for, e.g. "Alice drink tea allergy".',
    },
    namespace:
      'Partition to search. Default: the server’s default namespace if it has one (tm-mcp: TM_NAMESPACE).',
    top_k: {
      min: LIMITS.topK.min,
      max: LIMITS.topK.max,
      /** `defaultK`: what the tool sends when the model gives none (the service's 10 unless set). */
      description: (defaultK: number = LIMITS.topK.default) =>
        `How many memories at most (default ${defaultK}).`,
    },
    as_of: 'Recall the namespace as it was at this time (ISO 8601).',
    explain:
      'Also show, per memory, each query word’s weight (rarer words in the namespace weigh more) and ' +
      'whether the memory holds it: to see which words to change in a query that found the wrong memories.',
  },
} as const;
