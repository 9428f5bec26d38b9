import { z } from 'zod';
import { ErrorCode } from './errors.js';

const errorCodes = Object.values(ErrorCode) as [ErrorCode, ...ErrorCode[]];

/**
 * The spec's error envelope: `error` (string) always, `details` with field-level information and the
 * request id. `retryable` and `request_id` are mirrored at the top level, as on success responses.
 */
export const ErrorEnvelope = z
  .object({
    error: z
      .string()
      .meta({ description: 'Human-readable reason; never a stack trace, secret or internal id' }),
    retryable: z.boolean(),
    request_id: z.string(),
    details: z.object({
      code: z.enum(errorCodes),
      request_id: z.string(),
      fields: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
    }),
  })
  .meta({ id: 'ErrorEnvelope' });
export type ErrorEnvelope = z.infer<typeof ErrorEnvelope>;
