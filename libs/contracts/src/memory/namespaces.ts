import { z } from 'zod';
import { queryInteger } from '../http/query-integer.js';
import { CONTRACT_VERSION } from '../runtime.js';
import { Namespace } from './memory.js';

/**
 * The namespace listing (for the web console): the tenant's namespaces that hold records, with
 * their counts, ordered by name and paged by keyset. Memory counts; the gateway only relays.
 */

export const NAMESPACES_PAGE = { default: 100, max: 1_000 } as const;

/** next_cursor: the last namespace of a page, opaque to clients (base64url of its name). */
export const encodeNamespacesCursor = (namespace: string) => Buffer.from(namespace).toString('base64url');

/**
 * The namespace a client's cursor stands for, or null when it is not one this route made. Only the
 * canonical encoding of a valid name is accepted, so two spellings never name one position.
 */
export function decodeNamespacesCursor(cursor: string): string | null {
  const namespace = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!Namespace.safeParse(namespace).success) return null;
  return encodeNamespacesCursor(namespace) === cursor ? namespace : null;
}

const CURSOR_MESSAGE = 'cursor must be a next_cursor this route returned';
const CURSOR_TEXT = /^[A-Za-z0-9_-]{1,200}$/;

/** `?limit=&cursor=` of the namespace listing. */
export const NamespacesQuery = z.strictObject({
  limit: queryInteger('limit', { min: 1, ...NAMESPACES_PAGE }),
  cursor: z
    .string()
    .regex(CURSOR_TEXT, CURSOR_MESSAGE)
    // Zod runs both checks: one message for a cursor, whichever it fails.
    .refine((cursor) => !CURSOR_TEXT.test(cursor) || decodeNamespacesCursor(cursor) !== null, CURSOR_MESSAGE)
    .optional()
    .meta({ description: "A page's `next_cursor`: the namespaces after it, by name" }),
});

const Count = z.number().int().nonnegative();

export const NamespaceSummary = z
  .object({
    namespace: z.string(),
    records: Count.meta({ description: 'Retained records, current and superseded' }),
    current_records: Count.meta({ description: 'Records no later record supersedes' }),
    superseded_records: Count,
    last_retained_at: z.iso.datetime().meta({ description: 'When the newest of its records was retained' }),
  })
  .meta({ id: 'NamespaceSummary' });
export type NamespaceSummary = z.infer<typeof NamespaceSummary>;

/** Keyset paging: the cursor-mode fields of the events route's `paging` (which has offsets besides). */
const NamespacesPaging = z.object({
  limit: z.number().int(),
  returned: z.number().int(),
  has_more: z.boolean(),
  next_cursor: z
    .string()
    .nullable()
    .meta({ description: 'Send as `cursor` for the next page; null when this page is the last' }),
});

export const NamespacesPage = z
  .object({
    contract_version: z.literal(CONTRACT_VERSION),
    data: z
      .array(NamespaceSummary)
      .meta({ description: 'By namespace name; only namespaces that hold at least one record' }),
    paging: NamespacesPaging,
    request_id: z.string(),
  })
  .meta({ id: 'NamespacesPage' });
export type NamespacesPage = z.infer<typeof NamespacesPage>;

/** Memory's answer: the page without the envelope the gateway adds. */
export const NamespacesList = z.object({ data: z.array(NamespaceSummary), paging: NamespacesPaging });
export type NamespacesList = z.infer<typeof NamespacesList>;

// ---- bus message (gateway -> memory) ----------------------------------------------------------------

export const MemoryNamespacesMessage = z.object({
  tenant_id: z.string().min(1),
  request_id: z.string(),
  /** Keyset: namespaces after this one by name; null for the first page. */
  after: Namespace.nullable(),
  limit: z.number().int().min(1).max(NAMESPACES_PAGE.max),
});
export type MemoryNamespacesMessage = z.infer<typeof MemoryNamespacesMessage>;
