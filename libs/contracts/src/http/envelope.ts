import { z } from 'zod';
import { CONTRACT_VERSION } from '../runtime.js';
import { ErrorCode } from './errors.js';

/** Every error code, as a schema (error bodies, request records). */
export const ErrorCodeSchema = z.enum(Object.values(ErrorCode) as [ErrorCode, ...ErrorCode[]]);

/** `details` of every error body: the code, the request id and, for bad input, the fields at fault. */
export const ErrorDetails = z.object({
  code: ErrorCodeSchema,
  request_id: z.string(),
  fields: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
});

/**
 * The spec's error envelope: `error` (string) always, `details` with field-level information and the
 * request id. `retryable` and `request_id` are mirrored at the top level, as on success responses, and
 * so is `contract_version` (the spec: "Responses include an explicit contract version").
 */
export const ErrorEnvelope = z
  .object({
    contract_version: z.literal(CONTRACT_VERSION),
    error: z
      .string()
      .meta({ description: 'Human-readable reason; never a stack trace, secret or internal id' }),
    retryable: z.boolean(),
    request_id: z.string(),
    idempotency_outcome: z
      .enum(['Conflict', 'Retryable'])
      .optional()
      .meta({
        description:
          'On a failed write only: Conflict (this key already names another write: reconcile, do not retry), ' +
          'Retryable (the write may or may not have happened: retry with the same key). Absent when the key was not used.',
      }),
    details: ErrorDetails,
  })
  .meta({ id: 'ErrorEnvelope' });
export type ErrorEnvelope = z.infer<typeof ErrorEnvelope>;

/**
 * A typed error as a service answers it on the bus (libs/bus bus-error.ts: the body of an error reply,
 * and of a failed item in a batch reply). `code` is checked against ErrorCode where it is read.
 */
export const BusErrorBody = z.object({
  code: z.string(),
  message: z.string(),
  retryable: z.boolean(),
  retry_after: z.number().optional(),
  fields: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
});
export type BusErrorBody = z.infer<typeof BusErrorBody>;
