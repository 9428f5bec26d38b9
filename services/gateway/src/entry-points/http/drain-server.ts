import type { Server } from 'node:http';
import { Server as NetServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '@tm/kit';
import type { Request, Response } from 'express';
import type { InFlightRequests } from './in-flight-requests.js';

export interface DrainOptions {
  /** How long requests already taken may take to finish. */
  withinMs: number;
  /** The answer for a request still held when `withinMs` is up. */
  answerHeld: (req: Request, res: Response) => void;
  logger: Logger;
}

/** After the last answer, how long a connection may take to close before it is cut. */
const CLOSE_GRACE_MS = 1_000;
/**
 * How long kept-alive connections stay open after the drain begins. A client may be sending on an idle
 * one at this very moment: closed at once, that request is reset unread (the fault suite saw 2-4
 * ECONNRESET or "other side closed" per SIGTERM under 6 clients); left open a moment, it is taken and
 * answered with `Connection: close`, and the client's next request opens a connection to a running
 * instance. What is still idle at the end has gone unused for this long, so closing it races nothing
 * the client is likely to be doing.
 */
const IDLE_GRACE_MS = 1_000;

/**
 * Stop the server gracefully within a bound: take no new connection, let the requests already taken
 * finish, and answer whichever is still held at the bound (a downstream that never answers) instead of
 * being killed with it. A fault campaign saw the plain `server.close()` wait on 8 requests held by a
 * stopped memory service until the launcher's SIGKILL cut them all.
 */
export async function drainServer(
  server: Server,
  inFlight: InFlightRequests,
  { withinMs, answerHeld, logger }: DrainOptions,
): Promise<void> {
  inFlight.beginDraining();
  // Resolves once every connection has closed; stops listening at once. An error only says it was
  // not listening, which is what is wanted. net's close, not http's: since Node 19 `server.close()`
  // also closes every idle kept-alive connection at once, which is the reset the grace below is for
  // (a stand-alone drain with 6 fetch clients: 8 cut requests in 6 SIGTERMs with it, none in 26 without).
  const closed = new Promise<void>((resolve) => NetServer.prototype.close.call(server, () => resolve()));
  const started = performance.now();
  await sleep(Math.min(IDLE_GRACE_MS, withinMs));
  // From here no request can arrive: not listening, idle connections closed, busy ones close after
  // their answer. So the requests held now are the last.
  server.closeIdleConnections();
  const bound = new AbortController();
  const settled = await Promise.race([
    inFlight.settled().then(() => true),
    sleep(Math.max(0, withinMs - (performance.now() - started)), false, { signal: bound.signal }).catch(
      () => false,
    ),
  ]);
  bound.abort();
  if (!settled) {
    const held = inFlight.held();
    logger.warn(
      { requests: held.length, drain_ms: withinMs },
      'requests still held at the drain bound; answering them 503',
    );
    for (const { req, res } of held) {
      // An answer under way (a stream) cannot change its status; cutting it is all that is left.
      if (res.headersSent) res.destroy();
      else answerHeld(req, res);
    }
  }
  // Answers carry `Connection: close`, so their connections end once written; one that does not is cut.
  const grace = new AbortController();
  await Promise.race([closed, sleep(CLOSE_GRACE_MS, undefined, { signal: grace.signal }).catch(() => {})]);
  grace.abort();
  server.closeAllConnections();
  await closed;
}
