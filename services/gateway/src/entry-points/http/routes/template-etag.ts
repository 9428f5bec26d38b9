import { AppError, ErrorCode } from '@tm/contracts';

/** A template revision as a strong ETag: `"3"`. */
export const revisionETag = (revision: number) => `"${revision}"`;

/**
 * The revision an `If-Match` header names, or null when it names none (absent, or `*`: any current
 * revision). One strong ETag is all a template update can match; anything else is a 400 at the header.
 */
export function expectedRevision(header: string | undefined): number | null {
  const value = header?.trim();
  if (value === undefined || value === '' || value === '*') return null;
  const match = /^"([1-9][0-9]{0,8})"$/.exec(value);
  if (!match) {
    throw new AppError(ErrorCode.ValidationFailed, 'If-Match must be one ETag of the template, such as "2"', {
      fields: [{ path: 'If-Match', message: 'must be one ETag of the template, such as "2", or *' }],
    });
  }
  return Number(match[1]);
}
