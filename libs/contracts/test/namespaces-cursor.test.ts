import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  decodeNamespacesCursor,
  encodeNamespacesCursor,
  fieldIssues,
  NAMESPACE_PATTERN,
  NamespacesQuery,
} from '../src/index.js';

const validNamespace = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}$/);

describe('the namespace listing cursor', () => {
  it('when a page ends on any valid namespace, then its cursor decodes to that namespace and passes the query', () => {
    fc.assert(
      fc.property(validNamespace, (namespace) => {
        const cursor = encodeNamespacesCursor(namespace);

        expect(decodeNamespacesCursor(cursor)).toBe(namespace);
        expect(NamespacesQuery.safeParse({ cursor }).success).toBe(true);
      }),
    );
  });

  it('when a cursor is any other string, then it decodes to nothing unless it is the canonical spelling of a valid name', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 60 }), (cursor) => {
        const decoded = decodeNamespacesCursor(cursor);

        if (decoded !== null) {
          expect(NAMESPACE_PATTERN.test(decoded) && decoded.length > 0).toBe(true);
          expect(encodeNamespacesCursor(decoded)).toBe(cursor);
        }
      }),
    );
  });

  it.each([
    ['not a cursor!', 'does not fit the pattern'],
    [Buffer.from('bad ns!').toString('base64url'), 'decodes to an invalid name'],
    ['YR', "decodes to 'a', which is spelled YQ"],
  ])('when the cursor is %j (%s), then the query names cursor once', (cursor) => {
    const result = NamespacesQuery.safeParse({ cursor });

    expect(result.success).toBe(false);
    expect(result.error && fieldIssues(result.error)).toEqual([
      { path: 'cursor', message: 'cursor must be a next_cursor this route returned' },
    ]);
  });
});
