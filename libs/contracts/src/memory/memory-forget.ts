import { z } from 'zod';
import { Scope } from '../control/scope.js';
import { CONTRACT_VERSION } from '../runtime.js';
import { Timestamp } from './memory.js';

/**
 * Forgetting one memory by its id (`DELETE /v1/memories/{memory_id}`): the memory service
 * removes the record, its postings and the relations it recorded, reinstates what only it superseded,
 * and keeps a tombstone (no text) that answers a repeated DELETE and the write key's replays.
 */

export const FORGET_OPERATION = 'memory.forget';

export const MemoryForgetMessage = z.object({
  scope: Scope,
  request_id: z.string(),
  memory_id: z.string().min(1).max(128),
});
export type MemoryForgetMessage = z.infer<typeof MemoryForgetMessage>;

export const ForgetReceipt = z
  .object({
    contract_version: z.literal(CONTRACT_VERSION),
    operation: z.literal(FORGET_OPERATION),
    state: z.literal('not_retained').meta({ description: 'The memory is no longer retained' }),
    request_id: z.string(),
    original_request_id: z.string().meta({
      description: 'The request that forgot it (differs when a repeated DELETE replays the receipt)',
    }),
    retryable: z.boolean(),
    idempotency_outcome: z.enum(['Accepted', 'Replayed']).meta({
      description:
        'Replayed: the memory had already been forgotten by an earlier DELETE; this is its receipt',
    }),
    memory_id: z.string(),
    namespace: z.string(),
    deleted: z.literal(1).meta({ description: 'Records removed: this one' }),
    retained: z.literal(0).meta({ description: 'Records of this memory still stored' }),
    removed: z.object({
      postings: z.number().int().nonnegative().meta({ description: 'Its recall postings (one per term)' }),
      supersession_relations: z
        .number()
        .int()
        .nonnegative()
        .meta({ description: 'The relations its own event recorded (its supersedes list)' }),
    }),
    unresolved_relations: z
      .number()
      .int()
      .nonnegative()
      .meta({
        description:
          'Relations of later events that had superseded it: kept, now unresolved (their target is missing), ' +
          'as if it had never been written',
      }),
    reinstated: z.array(z.string()).meta({
      description: 'Memories it superseded that no other memory supersedes: current again, back in recall',
    }),
    forgotten_at: Timestamp,
  })
  .meta({ id: 'ForgetReceipt' });
export type ForgetReceipt = z.infer<typeof ForgetReceipt>;

/** The template service drops a forgotten memory's data: idempotent, by memory id. */
export const TemplateMemoryForgetMessage = z.object({
  tenant_id: z.string(),
  memory_id: z.string().min(1).max(128),
});
export type TemplateMemoryForgetMessage = z.infer<typeof TemplateMemoryForgetMessage>;

export const TemplateMemoryForgotten = z.object({
  template_memories: z.number().int().nonnegative(),
  memory_requests: z.number().int().nonnegative(),
});
export type TemplateMemoryForgotten = z.infer<typeof TemplateMemoryForgotten>;
