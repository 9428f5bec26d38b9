import { z } from 'zod';
import { Scope } from '../control/scope.js';
import { BusErrorBody, ErrorEnvelope } from '../http/envelope.js';
import { AppError, ErrorCode } from '../http/errors.js';
import { LIMITS } from '../http/limits.js';
import { CONTRACT_VERSION, DECISION_VERSION, Provenance, RUNTIME, SCORE_KIND, Usage } from '../runtime.js';

// ---- building blocks -------------------------------------------------------------------------

// Empty is left to min(1), so an empty namespace gets one clear message.
export const NAMESPACE_PATTERN = /^([A-Za-z0-9][A-Za-z0-9._:/-]*)?$/;

export const Namespace = z
  .string()
  .min(1, 'namespace must not be empty')
  .max(LIMITS.namespaceMaxLength, `namespace must be at most ${LIMITS.namespaceMaxLength} characters`)
  .regex(
    NAMESPACE_PATTERN,
    'namespace must start with a letter or digit and use only letters, digits and . _ : / -',
  )
  .meta({
    description: 'Caller-chosen logical partition inside the storage connection',
    example: 'support-bot',
  });

/**
 * Namespaces under this prefix belong to the smoke test; the public routes refuse them, so a smoke
 * test can never touch a tenant's own data, nor a tenant's writes a smoke test's.
 */
export const RESERVED_NAMESPACE_PREFIX = 'tm-smoke-test/';

export const isReservedNamespace = (namespace: string) => namespace.startsWith(RESERVED_NAMESPACE_PREFIX);

export const IdempotencyKey = z
  .string()
  .min(1)
  .max(LIMITS.idempotencyKeyMaxLength)
  .regex(/^[\x21-\x7E]+$/, 'idempotency key must be visible ASCII without spaces');

export const Timestamp = z.iso
  .datetime({ offset: true, message: 'must be an ISO 8601 timestamp with a time zone (Z or ±hh:mm)' })
  // Year 0000 is ISO 8601's 1 BC, which PostgreSQL reads only as "0001 BC": refused, not half-stored.
  .refine((s) => !s.startsWith('0000'), 'must be in the year 0001 or later')
  .meta({ example: '2026-11-22T09:30:00Z' });

const EventId = z.string().min(1).max(LIMITS.eventIdMaxLength);

const NonBlankText = (max: number, what: string) =>
  z
    .string()
    .max(max, `${what} must be at most ${max} characters`)
    .refine((s) => s.trim().length > 0, `${what} must not be empty`);

/** Scope comes from the credential; a body that tries to name it is refused rather than ignored. */
const scopeFieldsRefused = {
  tenant_id: z.never({ error: 'tenant scope comes from the credential, not the body' }).optional(),
  user_id: z.never({ error: 'user scope comes from the credential, not the body' }).optional(),
};

const ContractVersion = z.literal(CONTRACT_VERSION, {
  error: `contract_version must be "${CONTRACT_VERSION}"`,
});

// ---- write -------------------------------------------------------------------------------------

export const EventSource = z
  .strictObject({
    type: z
      .string()
      .regex(/^[a-z][a-z0-9_]{0,63}$/, 'source.type must be a lowercase snake_case token')
      .meta({ example: 'direct_user_input' }),
    id: z.string().min(1).max(256).optional(),
  })
  .meta({ id: 'EventSource', description: 'Caller-attested metadata; not verified identity or consent' });

/** One event as a write carries it: `/write`'s `event`, and each item's of a batch. */
export const WriteEvent = z.strictObject({
  event_id: EventId.optional().meta({ description: 'Defaults to the idempotency key' }),
  occurred_at: Timestamp.optional().meta({
    description:
      'When the event happened. Defaults to the time the service retains it; a repeat of the write with the same key and no time replays whatever time the first one got',
  }),
  content: z.strictObject({ text: NonBlankText(LIMITS.textMaxChars, 'event.content.text') }),
  source: EventSource.optional(),
  supersedes: z
    .array(EventId)
    .max(LIMITS.supersedesMax)
    .refine((ids) => new Set(ids).size === ids.length, 'supersedes must not repeat an event id')
    .optional(),
});
export type WriteEvent = z.infer<typeof WriteEvent>;

export const WriteRequest = z
  .strictObject({
    contract_version: ContractVersion,
    operation: z.literal('memory.write').optional(),
    namespace: Namespace,
    idempotency_key: IdempotencyKey.optional().meta({
      description: 'Required here or as the Idempotency-Key header; when both are sent they must match',
    }),
    event: WriteEvent,
    ...scopeFieldsRefused,
  })
  .meta({ id: 'WriteRequest' });
export type WriteRequest = z.infer<typeof WriteRequest>;

export const DecisionValue = z.enum(['memorized', 'not_retained', 'not_memorized', 'not_evaluated']);

export const SupersessionOutcome = z.object({
  target_event_id: z.string(),
  status: z.enum(['superseded', 'unresolved']),
});

export const WriteResponse = z
  .object({
    contract_version: z.literal(CONTRACT_VERSION),
    operation: z.literal('memory.write'),
    state: z.enum(['retained', 'not_retained']),
    request_id: z.string(),
    original_request_id: z
      .string()
      .meta({ description: 'Request that produced this result (differs on a replay)' }),
    retryable: z.boolean(),
    idempotency_key: z.string(),
    idempotency_outcome: z.enum(['Accepted', 'Replayed']),
    namespace: z.string(),
    event_id: z.string(),
    memory_id: z.string().nullable().meta({ description: 'Null when nothing was retained' }),
    decision: z.object({
      version: z.literal(DECISION_VERSION),
      value: DecisionValue,
      memorized: z.boolean(),
      reason: z.string().optional(),
    }),
    representation: z.object({ status: z.literal('not_available') }),
    surprise: z.object({
      status: z.literal('unavailable'),
      reason: z.string(),
    }),
    supersession: z.array(SupersessionOutcome),
    provenance: Provenance,
    usage: Usage,
    forgotten_at: Timestamp.optional().meta({
      description:
        'Only on a replay of a write whose memory was forgotten since (DELETE /v1/memories/{memory_id}): ' +
        'when it was; state is then not_retained, and the key never writes the event again',
    }),
  })
  .meta({ id: 'WriteResponse' });
export type WriteResponse = z.infer<typeof WriteResponse>;

// ---- write batch -----------------------------------------------------------------------

export const WRITE_BATCH_OPERATION = 'memory.write_batch';

/** One item of a batch: its own idempotency key and its own event, each exactly as a single write's. */
export const WriteBatchItem = z
  .strictObject({
    idempotency_key: IdempotencyKey.meta({
      description: 'This item’s own key (required): one key names one write, as on /write',
    }),
    event: WriteEvent,
  })
  .meta({ id: 'WriteBatchItem' });
export type WriteBatchItem = z.infer<typeof WriteBatchItem>;

const batchEnvelope = {
  contract_version: ContractVersion,
  operation: z
    .literal(WRITE_BATCH_OPERATION, { error: `operation must be "${WRITE_BATCH_OPERATION}"` })
    .optional(),
  namespace: Namespace.meta({ description: 'One namespace for every item of the batch' }),
  ...scopeFieldsRefused,
};

const batchItems = <T extends z.ZodType>(item: T) =>
  z
    .array(item, { error: 'items must be a list of items' })
    .min(1, 'items must hold at least one item')
    .max(LIMITS.writeBatchMaxItems, `items must hold at most ${LIMITS.writeBatchMaxItems} items`);

/** `POST /api/v1/memory/write/batch`, as documented. */
export const WriteBatchRequest = z
  .strictObject({ ...batchEnvelope, items: batchItems(WriteBatchItem) })
  .meta({ id: 'WriteBatchRequest' });
export type WriteBatchRequest = z.infer<typeof WriteBatchRequest>;

/**
 * What the gateway checks of a batch first, as a whole (a fault here is one 400, nothing written): the
 * envelope, and the items only counted. Each item is then checked on its own with WriteBatchItem, so
 * one bad item is that item's 400 and its neighbours are written.
 */
export const WriteBatchEnvelope = z.strictObject({ ...batchEnvelope, items: batchItems(z.unknown()) });

/** How a batch's items were answered: its request record carries the same counts. */
export const WriteBatchItemCounts = z
  .object({
    total: z.number().int().nonnegative(),
    accepted: z.number().int().nonnegative().meta({ description: '200, idempotency_outcome Accepted' }),
    replayed: z.number().int().nonnegative().meta({ description: '200, idempotency_outcome Replayed' }),
    conflict: z
      .number()
      .int()
      .nonnegative()
      .meta({ description: '409 idempotency_conflict or duplicate_event' }),
    invalid: z.number().int().nonnegative().meta({ description: '400 validation_failed' }),
    failed: z
      .number()
      .int()
      .nonnegative()
      .meta({ description: 'Any other error (e.g. 409 idempotency_in_flight, retryable)' }),
  })
  .meta({ id: 'WriteBatchItemCounts' });
export type WriteBatchItemCounts = z.infer<typeof WriteBatchItemCounts>;

export const WriteBatchItemResult = z
  .object({
    index: z.number().int().nonnegative().meta({ description: 'The item’s place in the request' }),
    status: z
      .number()
      .int()
      .meta({ description: 'The HTTP status a single write of this item would have been answered with' }),
    body: z.union([WriteResponse, ErrorEnvelope]).meta({
      description: 'What that single write would have answered: its write response, or its error envelope',
    }),
  })
  .meta({ id: 'WriteBatchItemResult' });
export type WriteBatchItemResult = z.infer<typeof WriteBatchItemResult>;

export const WriteBatchResponse = z
  .object({
    contract_version: z.literal(CONTRACT_VERSION),
    operation: z.literal(WRITE_BATCH_OPERATION),
    state: z.enum(['retained', 'not_retained', 'no_data']).meta({
      description:
        'retained: at least one item is retained (now or before: a replay); not_retained: items were answered ' +
        '200 but none retained (consent missing); no_data: no item was answered 200',
    }),
    request_id: z.string(),
    retryable: z.boolean(),
    namespace: z.string(),
    item_counts: WriteBatchItemCounts,
    results: z.array(WriteBatchItemResult).meta({ description: 'One per item, in request order' }),
  })
  .meta({ id: 'WriteBatchResponse' });
export type WriteBatchResponse = z.infer<typeof WriteBatchResponse>;

// ---- recall ------------------------------------------------------------------------------------

export const RecallRequest = z
  .strictObject({
    contract_version: ContractVersion,
    operation: z.literal('memory.recall').optional(),
    namespace: Namespace,
    cue: z.strictObject({ text: NonBlankText(LIMITS.cueMaxChars, 'cue.text') }),
    top_k: z
      .number({ error: 'top_k must be an integer' })
      .int('top_k must be an integer')
      .min(LIMITS.topK.min, `top_k must be at least ${LIMITS.topK.min}`)
      .max(LIMITS.topK.max, `top_k must be at most ${LIMITS.topK.max}`)
      .default(LIMITS.topK.default),
    as_of: Timestamp.optional().meta({
      description: 'Temporal cutoff: the namespace as it was at this time',
    }),
    explain: z.boolean({ error: 'explain must be true or false' }).optional().meta({
      description:
        'Return, per result, the cue terms with their weights and whether the result holds each (`explanation`)',
    }),
    ...scopeFieldsRefused,
  })
  .meta({ id: 'RecallRequest' });
export type RecallRequest = z.infer<typeof RecallRequest>;

/** The index a recall ranked by: the runtime's, or the previous one while the namespace is re-indexed. */
export const RankingModelVersion = z.enum([RUNTIME.model_version, 'deterministic-lexical-v1']).meta({
  description:
    'deterministic-lexical-v1 only while this namespace’s index is being rebuilt after an upgrade: the ' +
    'answer is ranked as before it (unweighted, unstemmed), and provenance still names the runtime',
});
export type RankingModelVersion = z.infer<typeof RankingModelVersion>;

/** How the runtime's ranking orders records, first key first; the capabilities' guarantee quotes it. */
export const RANKING_ORDER = ['score desc', 'tie_break desc', 'occurred_at desc', 'event_id asc'] as const;

export const ExplainedTerm = z
  .object({
    word: z.string().meta({ description: 'The cue’s word as written, lower-cased' }),
    term: z.string().meta({
      description:
        'What records are matched on: the word’s Snowball English stem, an irregular verb’s taken from its base form ("went": "go")',
    }),
    weight: z
      .number()
      .min(0)
      .max(1)
      .meta({ description: 'Its share of its list’s total weight, 4 decimals' }),
    matched: z.boolean().meta({ description: 'The record holds the term' }),
  })
  .meta({ id: 'ExplainedTerm' });
export type ExplainedTerm = z.infer<typeof ExplainedTerm>;

export const RecallExplanation = z
  .object({
    terms: z.array(ExplainedTerm).meta({
      description:
        'The cue’s content terms, in the cue’s order, each once. A term weighs its inverse document ' +
        'frequency in the namespace, as a share of the cue’s total (the weights sum to about 1); the ' +
        'score is the sum of the matched terms’ weights',
    }),
    tie_break_terms: z.array(ExplainedTerm).meta({
      description:
        'The cue’s function words ("what", "the", …), in the cue’s order: they do not score, they break ' +
        'ties between records of equal score (before recency); weight is each one’s share among them',
    }),
  })
  .meta({ id: 'RecallExplanation' });
export type RecallExplanation = z.infer<typeof RecallExplanation>;

export const RelatedResult = z
  .object({
    event_id: z.string(),
    memory_id: z.string(),
    occurred_at: z.string(),
    text: z.string(),
    score_kind: z.literal(SCORE_KIND),
    score: z
      .number()
      .min(0)
      .max(1)
      .meta({
        description:
          "Share of the cue's term weight found in the text; each distinct cue term weighs its inverse " +
          'document frequency in the namespace',
      }),
    matched_terms: z
      .number()
      .int()
      .nonnegative()
      .meta({ description: 'How many of the cue’s content terms the record holds' }),
    source: EventSource.optional(),
    explanation: RecallExplanation.optional().meta({
      description: 'Only when the request asked for it (`explain: true`)',
    }),
  })
  .meta({ id: 'RelatedResult' });
export type RelatedResult = z.infer<typeof RelatedResult>;

export const RecallResponse = z
  .object({
    contract_version: z.literal(CONTRACT_VERSION),
    operation: z.literal('memory.recall'),
    state: z.enum(['retained', 'no_data']),
    request_id: z.string(),
    retryable: z.boolean(),
    namespace: z.string(),
    retrieval_outcome: z.enum(['matched', 'no_match']),
    proximity: z.object({
      kind: z.literal(SCORE_KIND),
      top_score: z.number().nullable(),
      cue_terms: z.number().int().nonnegative(),
    }),
    ranking: z.object({
      basis: z.literal(SCORE_KIND),
      semantic: z.literal(false),
      model_version: RankingModelVersion,
      order: z.array(z.string()).meta({
        description: `Sort keys, first first: ${RANKING_ORDER.join(', ')} (tie_break: the cue’s function words the record holds)`,
      }),
      as_of: z.string().nullable(),
    }),
    context: z.string().optional().meta({ description: 'Rendered from the selected text; absent when none' }),
    related: z.array(RelatedResult),
    provenance: Provenance,
    usage: Usage,
  })
  .meta({ id: 'RecallResponse' });
export type RecallResponse = z.infer<typeof RecallResponse>;

// ---- delete ------------------------------------------------------------------------------------

export const DeleteRequest = z
  .strictObject({ namespace: Namespace, ...scopeFieldsRefused })
  .meta({ id: 'DeleteRequest' });

/**
 * A namespace deletion runs as a job in the memory service: the DELETE starts it (or finds the
 * one already running for that tenant and namespace), and its records are hidden from every read at
 * once. `status` is the job's, separate from the receipt's operation `state`.
 */
export const NamespaceDeletion = z
  .object({
    id: z.string().meta({ description: 'Poll GET /api/v1/memory/deletions/{id} while in_progress' }),
    status: z.enum(['in_progress', 'completed']),
    progress: z.object({
      records_deleted: z.number().int().nonnegative(),
      records_total: z.number().int().nonnegative().meta({
        description: 'Records the namespace held when the deletion started (and any written since)',
      }),
      batches: z.number().int().nonnegative().meta({ description: 'Committed batches so far' }),
    }),
    started_at: z.string(),
    updated_at: z.string(),
    finished_at: z.string().nullable(),
  })
  .meta({ id: 'NamespaceDeletion' });
export type NamespaceDeletion = z.infer<typeof NamespaceDeletion>;

export const DeleteReceipt = z
  .object({
    contract_version: z.literal(CONTRACT_VERSION),
    operation: z.literal('memory.delete'),
    state: z.enum(['not_retained', 'no_data']).meta({
      description:
        'not_retained: the namespace held records, which are no longer retained (hidden at once, removed by ' +
        'the deletion job); no_data: it held nothing',
    }),
    request_id: z.string(),
    retryable: z.boolean(),
    namespace: z.string(),
    deleted: z.number().int().nonnegative().meta({ description: 'Records removed so far' }),
    retained: z.number().int().nonnegative().meta({
      description:
        'Records still stored, hidden from every read, until the job removes them: 0 once completed',
    }),
    removed: z.object({
      supersession_relations: z.number().int().nonnegative(),
      idempotency_entries: z.number().int().nonnegative(),
    }),
    deletion: NamespaceDeletion,
  })
  .meta({ id: 'DeleteReceipt' });
export type DeleteReceipt = z.infer<typeof DeleteReceipt>;

// ---- bus messages (gateway -> memory) -----------------------------------------------------------

export const MemoryWriteMessage = z.object({
  scope: Scope,
  request_id: z.string(),
  idempotency_key: IdempotencyKey,
  body: WriteRequest,
});
export type MemoryWriteMessage = z.infer<typeof MemoryWriteMessage>;

/**
 * One caller's batch of writes to one namespace (memory.v1.write.items): each item is written
 * as its own single write would be, and answered on its own, in order.
 */
export const MemoryWriteBatchMessage = z.object({
  version: z.literal('v1'),
  scope: Scope,
  request_id: z.string(),
  namespace: Namespace,
  items: z.array(WriteBatchItem).min(1).max(LIMITS.writeBatchMaxItems),
  /**
   * How long memory may go on starting items, from when it takes the message: items not started by
   * then are answered retryable (service_unavailable) rather than written after the caller gave up.
   * Absent (an older gateway): no bound.
   */
  time_budget_ms: z.number().int().nonnegative().optional(),
});
export type MemoryWriteBatchMessage = z.infer<typeof MemoryWriteBatchMessage>;

/**
 * A batch item its time budget ran out before (memory's, or the gateway's for a message it did not
 * send): not written, retryable; a resend of the batch writes it and replays the items written.
 */
export const batchItemNotStarted = () =>
  new AppError(
    ErrorCode.ServiceUnavailable,
    'This item was not written within the request’s time; resend the batch (its written items replay)',
    { retryAfter: 1 },
  );

/** Per item: its write response, or the typed error a single write of it would have been answered with. */
export const MemoryWriteBatchReply = z.object({
  version: z.literal('v1'),
  results: z.array(z.union([z.object({ ok: WriteResponse }), z.object({ error: BusErrorBody })])),
});
export type MemoryWriteBatchReply = z.infer<typeof MemoryWriteBatchReply>;

export const MemoryRecallMessage = z.object({ scope: Scope, request_id: z.string(), body: RecallRequest });
export type MemoryRecallMessage = z.infer<typeof MemoryRecallMessage>;

export const MemoryDeleteMessage = z.object({ scope: Scope, request_id: z.string(), namespace: Namespace });
export type MemoryDeleteMessage = z.infer<typeof MemoryDeleteMessage>;

/** The state of one of the scope's tenant's namespace deletions, by id (memory.v1.deletions.get). */
export const MemoryDeletionGetMessage = z.object({
  scope: Scope,
  request_id: z.string(),
  deletion_id: z.string().min(1).max(128),
});
export type MemoryDeletionGetMessage = z.infer<typeof MemoryDeletionGetMessage>;

/**
 * One usage record per billable operation, written to the memory outbox with the operation. JetStream,
 * `memory.v1.usage.recorded`: a relay pass's records in one OutboxBatch message (outbox-batch.ts).
 */
export const UsageRecordedEvent = z.object({
  usage_id: z.string(),
  tenant_id: z.string(),
  user_id: z.string(),
  key_id: z.string(),
  request_id: z.string(),
  operation: z.enum(['memory.write', 'memory.recall']),
  namespace: z.string(),
  units: z.number().int().nonnegative(),
  idempotency_key: z.string().optional(),
  pricing_version: z.string(),
  occurred_at: z.string(),
  /** A write's record and event ids: what the webhooks service announces as memory.retained. */
  memory_id: z.string().optional(),
  event_id: z.string().optional(),
});
export type UsageRecordedEvent = z.infer<typeof UsageRecordedEvent>;

/**
 * JetStream, `memory.v1.events.namespace-deleted`: a namespace deletion finished. Written to
 * memory's outbox in the transaction that completed the job, relayed in batch messages like usage
 * records (`{ version, records }`); ids and counts only.
 */
export const NamespaceDeletedEvent = z.object({
  /** The outbox row's id: one per deletion, the same on every re-send. */
  event_id: z.string(),
  tenant_id: z.string(),
  deletion_id: z.string(),
  namespace: z.string(),
  records_deleted: z.number().int().nonnegative(),
  request_id: z.string(),
  occurred_at: z.string(),
});
export type NamespaceDeletedEvent = z.infer<typeof NamespaceDeletedEvent>;

/**
 * JetStream, `memory.v1.events.memory-deleted`: one memory was forgotten. Written to memory's
 * outbox in the transaction that forgot it, relayed like the other events; ids only (never text).
 */
export const MemoryDeletedEvent = z.object({
  /** The outbox row's id: one per forgotten memory, the same on every re-send. */
  event_id: z.string(),
  tenant_id: z.string(),
  memory_id: z.string(),
  namespace: z.string(),
  /** Memories it had superseded that are current again. */
  reinstated: z.array(z.string()),
  request_id: z.string(),
  occurred_at: z.string(),
});
export type MemoryDeletedEvent = z.infer<typeof MemoryDeletedEvent>;
