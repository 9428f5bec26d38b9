import type { z } from 'zod';
import { AppError, ErrorCode, type FieldIssue } from './errors.js';

/** Zod issues as field-level details: a dotted path and a message, never the offending value. */
export function fieldIssues(error: z.ZodError): FieldIssue[] {
  return error.issues.flatMap((issue) => {
    const at = issue.path.map(String);
    // An unknown key is reported at its own path, so a client sees which field to drop.
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({ path: [...at, key].join('.'), message: 'is not a known field' }));
    }
    return [{ path: at.length ? at.join('.') : '(body)', message: issue.message }];
  });
}

/** Parse or throw a 400 AppError carrying every field issue. */
export function parseOrThrow<S extends z.ZodType>(schema: S, input: unknown, what = 'request'): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const fields = fieldIssues(result.error);
  throw new AppError(
    ErrorCode.ValidationFailed,
    `Invalid ${what}: ${[...new Set(fields.map((f) => f.path))].join(', ')}`,
    {
      fields,
    },
  );
}
