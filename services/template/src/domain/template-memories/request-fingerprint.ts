import { createHash } from 'node:crypto';

/** JSON with object keys sorted at every depth, so equal requests print alike. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** SHA-256 of a request's canonical JSON: the same key with another request is a conflict. */
export const requestFingerprint = (request: unknown) =>
  createHash('sha256').update(canonical(request)).digest('hex');
