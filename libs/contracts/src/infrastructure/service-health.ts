import { z } from 'zod';

/** One thing a process needs, as that process saw it just now. */
export const DependencyHealth = z
  .object({
    available: z.boolean(),
    latency_ms: z
      .number()
      .nonnegative()
      .optional()
      .meta({ description: 'Round trip of the check (a database: `SELECT 1` on a connection of its own)' }),
    pending: z
      .number()
      .int()
      .optional()
      .meta({ description: 'A JetStream consumer: messages in its stream not yet delivered (its lag)' }),
    ack_pending: z
      .number()
      .int()
      .optional()
      .meta({ description: 'A JetStream consumer: messages delivered but not yet acknowledged' }),
  })
  .meta({ id: 'DependencyHealth' });
export type DependencyHealth = z.infer<typeof DependencyHealth>;

const count = (description: string) => z.number().int().nonnegative().meta({ description });

/**
 * The memory service's re-index of namespaces written before recall matched on stems
 * (deterministic-lexical-v1 → v2, docs/operations.md "Re-index"), summed over its namespaces as last
 * read (at most a second old while it runs). Absent where no namespace needed one.
 */
export const ReindexProgress = z
  .object({
    namespaces_pending: count('Not started: still ranked by the old index'),
    namespaces_indexing: count('Being indexed: still ranked by the old index'),
    namespaces_cleaning: count('Ranked by the new index; its old postings being removed'),
    namespaces_completed: count('Done'),
    namespaces_total: count('Every namespace that needed a re-index'),
    records_done: count('Records indexed so far'),
    records_total: count('Records to index, as counted when each namespace started'),
  })
  .meta({ id: 'ReindexProgress' });
export type ReindexProgress = z.infer<typeof ReindexProgress>;

/** What a service says of itself: whether it can serve its requests, and each of its dependencies. */
export const ServiceSelfReport = z.object({
  available: z.boolean(),
  dependencies: z.record(z.string(), DependencyHealth),
  /** The latest migration applied to its database (for release records); absent if unread. */
  schema_version: z.string().max(200).optional(),
  /** The memory service: its re-index's progress, while it has namespaces that needed one. */
  reindex: ReindexProgress.optional(),
});
export type ServiceSelfReport = z.infer<typeof ServiceSelfReport>;

/**
 * The answer to `<service>.v1.ping`. The self-report is optional so that a gateway reading a service
 * from before it (a rolling upgrade) still sees that service answer.
 */
export const PingReply = z.object({
  service: z.string(),
  instance: z.string(),
  version: z.string(),
  ...ServiceSelfReport.partial().shape,
});
export type PingReply = z.infer<typeof PingReply>;
