import type { z } from 'zod';
import { AppError, ErrorCode, type FieldIssue } from './errors.js';
import { nulCharacterIssues } from './nul-characters.js';

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

/**
 * Validate input against its schema, and refuse NUL characters in any string or key (which no schema
 * states, and PostgreSQL cannot store): the parsed value, or every field issue.
 */
export function validateInput<S extends z.ZodType>(
  schema: S,
  input: unknown,
): { data: z.output<S>; fields?: undefined } | { fields: FieldIssue[] } {
  const nul = nulCharacterIssues(input);
  if (nul.length > 0) return { fields: nul };
  const result = schema.safeParse(input);
  return result.success ? { data: result.data } : { fields: fieldIssues(result.error) };
}

/** Parse or throw a 400 AppError carrying every field issue. */
export function parseOrThrow<S extends z.ZodType>(schema: S, input: unknown, what = 'request'): z.output<S> {
  const result = validateInput(schema, input);
  if (!result.fields) return result.data;
  const { fields } = result;
  throw new AppError(
    ErrorCode.ValidationFailed,
    `Invalid ${what}: ${[...new Set(fields.map((f) => f.path))].join(', ')}`,
    {
      fields,
    },
  );
}
