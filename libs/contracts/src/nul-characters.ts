import type { FieldIssue } from './errors.js';

export const NUL_MESSAGE = 'must not contain NUL (\\u0000) characters';

/** Issues reported for one input at most: a body of many NULs needs one answer, not thousands of lines. */
const MAX_ISSUES = 20;

/**
 * Every field of `input` (a parsed JSON body, a query, a bus message) whose string value or key holds
 * a NUL character. PostgreSQL's text type cannot store NUL, so such a value would fail deep inside a
 * service as a 500; refused here, at the field path, it is the caller's 400 everywhere. Iterative, so a
 * deeply nested body cannot overflow the stack.
 */
export function nulCharacterIssues(input: unknown): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const pending: Array<{ value: unknown; path: string[] }> = [{ value: input, path: [] }];
  while (pending.length > 0 && issues.length < MAX_ISSUES) {
    const { value, path } = pending.pop() as { value: unknown; path: string[] };
    if (typeof value === 'string') {
      if (value.includes('\0')) issues.push({ path: pathOf(path), message: NUL_MESSAGE });
    } else if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--)
        pending.push({ value: value[i], path: [...path, String(i)] });
    } else if (value !== null && typeof value === 'object') {
      for (const [key, child] of Object.entries(value).reverse()) {
        const at = [...path, key.replaceAll('\0', '\\u0000')];
        if (key.includes('\0')) issues.push({ path: pathOf(at), message: `field names ${NUL_MESSAGE}` });
        else pending.push({ value: child, path: at });
      }
    }
  }
  return issues;
}

const pathOf = (path: string[]) => (path.length ? path.join('.') : '(body)');
