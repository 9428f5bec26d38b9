import { z } from 'zod';
import { Scope } from '../control/scope.js';
import { TemplateMemoryTemplate } from '../templates/templates.js';
import { EventSource, Timestamp } from './memory.js';

/**
 * Reading one memory by the id the service gave it (`GET /v1/memories/{memory_id}`): any retained
 * record of the tenant, from the memory service (`memory.v1.get`), with the template service's data
 * and metadata added for a memory made from a template.
 */

export const MemoryGetMessage = z.object({
  scope: Scope,
  request_id: z.string(),
  memory_id: z.string().min(1).max(128),
});
export type MemoryGetMessage = z.infer<typeof MemoryGetMessage>;

/** One retained record as the memory service holds it (the reply of memory.v1.get). */
export const StoredMemory = z.object({
  memory_id: z.string(),
  namespace: z.string(),
  event_id: z.string(),
  occurred_at: Timestamp,
  text: z.string(),
  source: EventSource.nullable().meta({ description: 'Caller-attested metadata, when the write had it' }),
  state: z.enum(['retained', 'superseded']).meta({
    description: 'superseded: a later event named it in supersedes; kept (and exported), hidden from recall',
  }),
  superseded_at: Timestamp.nullable(),
  retained_at: Timestamp,
});
export type StoredMemory = z.infer<typeof StoredMemory>;

export const Memory = StoredMemory.extend({
  data: z
    .record(z.string(), z.unknown())
    .nullable()
    .meta({ description: 'The template data it was made from; null for other memories' }),
  template: TemplateMemoryTemplate.nullable().meta({
    description: 'The template it was made from; null for memories written otherwise',
  }),
  created_at: Timestamp.meta({ description: 'When it was retained (as retained_at)' }),
}).meta({ id: 'Memory' });
export type Memory = z.infer<typeof Memory>;

/**
 * `memory.v1.text.get`: the text of one record of a tenant, for a webhook delivery that opted
 * in to text. A service-to-service call with no caller's credential behind it, so it names the tenant
 * the event came from and answers nothing but the text.
 */
export const MemoryTextMessage = z.object({
  tenant_id: z.string().min(1),
  memory_id: z.string().min(1).max(128),
});
export type MemoryTextMessage = z.infer<typeof MemoryTextMessage>;

/** null: no such record of that tenant any more (deleted, or its namespace being deleted). */
export const MemoryText = z.object({ text: z.string().nullable() });
export type MemoryText = z.infer<typeof MemoryText>;
