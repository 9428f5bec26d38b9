import { randomBytes } from 'node:crypto';

/**
 * An MCP message is counted against the key's rate limit when it arrives, before its tool runs; the
 * tool's first API request is the one that message already paid for. A token stands for that
 * request: random, known only in this process, good once and only while its message is being
 * answered. So a `tools/call` costs max(1, its API requests), the same as calling the API directly,
 * and a call that makes none (refused by the tool, not permitted, bad arguments) still costs one.
 */
export interface PrepaidRequests {
  /** A token worth one request, until it is taken or released. */
  issue(): { token: string; release: () => void };
  /** Whether `token` still held its request; it holds none afterwards. */
  take(token: string | undefined): boolean;
}

export function createPrepaidRequests(): PrepaidRequests {
  const open = new Set<string>();
  return {
    issue() {
      const token = randomBytes(24).toString('base64url');
      open.add(token);
      return { token, release: () => void open.delete(token) };
    },
    take: (token) => token !== undefined && open.delete(token),
  };
}
