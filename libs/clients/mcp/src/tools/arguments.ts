import { LIMITS } from '@text-memory/sdk';
import { z } from 'zod';

// Input schemas shared by the tools, bounded like the SDK's own checks (LIMITS) so an agent sees the
// limits in the tool list and a bad call is refused before anything is sent.

export const namespaceArgument = (description: string) =>
  z
    .string()
    .min(1)
    .max(LIMITS.namespaceMaxLength)
    .regex(LIMITS.namespacePattern, 'namespace must start with a letter or digit and use only . _ : / -')
    .describe(description);

export const timestampArgument = (description: string) =>
  z.iso
    .datetime({ offset: true, message: 'must be an ISO 8601 timestamp with a zone (Z or ±hh:mm)' })
    .describe(description);

/** Also the write's idempotency key, so it has the key's rule: visible ASCII, no spaces. */
export const eventIdArgument = (description: string) =>
  z
    .string()
    .min(1)
    .max(LIMITS.idempotencyKeyMaxLength)
    .regex(/^[\x21-\x7E]+$/, 'event_id must be visible ASCII without spaces')
    .describe(description);
