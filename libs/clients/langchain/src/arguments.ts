import { LIMITS } from '@text-memory/sdk';
import { z } from 'zod';

// Input schemas of the tools, as tm-mcp's (libs/clients/mcp/src/tools/arguments.ts): bounded like the
// SDK's own checks (LIMITS), so a model sees the limits in the tool's schema and a bad call is refused
// by LangChain before anything is sent.

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
