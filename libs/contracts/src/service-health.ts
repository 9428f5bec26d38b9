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

/** What a service says of itself: whether it can serve its requests, and each of its dependencies. */
export const ServiceSelfReport = z.object({
  available: z.boolean(),
  dependencies: z.record(z.string(), DependencyHealth),
  /** The latest migration applied to its database ([P14], for release records); absent if unread. */
  schema_version: z.string().max(200).optional(),
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
