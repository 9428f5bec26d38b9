/**
 * Which browser origins may call /mcp. An entry is an origin (`https://app.example.com`) or an origin
 * whose port is `*` (`http://localhost:*`): local tools (the MCP Inspector's page, an IDE's web view)
 * pick their port at start, so the default allows the loopback names on any port.
 */
export type OriginPattern = { scheme: string; host: string; port: string | '*' };

export const DEFAULT_ALLOWED_ORIGINS = 'http://localhost:*,http://127.0.0.1:*,http://[::1]:*';

/** The entry as a pattern, or undefined when it is neither an origin nor an origin with port `*`. */
export function parseOriginPattern(entry: string): OriginPattern | undefined {
  const anyPort = entry.endsWith(':*');
  const candidate = anyPort ? entry.slice(0, -2) : entry;
  if (!URL.canParse(candidate)) return undefined;
  const url = new URL(candidate);
  // Only an origin: no path, query, credentials or trailing slash (the browser never sends those).
  if (url.origin !== candidate || !/^https?:$/.test(url.protocol)) return undefined;
  if (anyPort && url.port !== '') return undefined;
  return { scheme: url.protocol, host: url.hostname, port: anyPort ? '*' : url.port };
}

/**
 * Whether a request's `Origin` may call: the gateway's own origin always, else a listed pattern.
 * `null` (a sandboxed frame, a file:// page) and anything unparsable are refused.
 */
export function originAllowed(
  origin: string,
  patterns: readonly OriginPattern[],
  ownOrigin: string,
): boolean {
  if (origin === ownOrigin) return true;
  if (!URL.canParse(origin)) return false;
  const url = new URL(origin);
  if (url.origin !== origin) return false;
  return patterns.some(
    (p) => p.scheme === url.protocol && p.host === url.hostname && (p.port === '*' || p.port === url.port),
  );
}
