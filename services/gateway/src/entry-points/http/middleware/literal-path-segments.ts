import type { RequestHandler } from 'express';

// Control characters, NUL first: no name or id holds one, and PostgreSQL cannot store NUL.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching them is the point
const CONTROL = /[\u0000-\u001f\u007f]/;

function decodes(segment: string): boolean {
  try {
    return !CONTROL.test(decodeURIComponent(segment));
  } catch {
    return false;
  }
}

/**
 * A path segment that does not percent-decode (`%zz`, `%C0%AE`) or decodes to a control character
 * (`%00`) is taken literally, its `%` escaped. Express would otherwise fail while matching the route,
 * before authentication: an unauthenticated caller got a 500. Now every route authenticates first
 * and then meets an id nothing can have, which is its 404.
 */
export const literalPathSegments: RequestHandler = (req, _res, next) => {
  const queryAt = req.url.indexOf('?');
  const path = queryAt === -1 ? req.url : req.url.slice(0, queryAt);
  if (path.includes('%')) {
    const segments = path.split('/');
    if (!segments.every(decodes)) {
      const literal = segments.map((s) => (decodes(s) ? s : s.replaceAll('%', '%25'))).join('/');
      req.url = literal + (queryAt === -1 ? '' : req.url.slice(queryAt));
    }
  }
  next();
};
