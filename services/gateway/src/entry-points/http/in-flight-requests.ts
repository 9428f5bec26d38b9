import type { Request, RequestHandler, Response } from 'express';

export interface InFlightRequests {
  /** Middleware: counts a request from its arrival until its answer is sent or its client is gone. */
  track: RequestHandler;
  /** Requests that have not been answered yet, in arrival order. */
  held(): Array<{ req: Request; res: Response }>;
  /** Resolves when no request is held (at once if none is). */
  settled(): Promise<void>;
  /**
   * From now on every answer closes its connection (`Connection: close`), those already being worked
   * on included: a client on a kept-alive connection opens its next one to a running instance.
   */
  beginDraining(): void;
}

export function trackInFlightRequests(): InFlightRequests {
  const held = new Map<Response, Request>();
  let draining = false;
  let waiters: Array<() => void> = [];
  const release = (res: Response) => {
    if (!held.delete(res) || held.size > 0) return;
    for (const resolve of waiters) resolve();
    waiters = [];
  };
  const closeConnection = (res: Response) => {
    if (!res.headersSent) res.setHeader('Connection', 'close');
  };

  return {
    track: (req, res, next) => {
      held.set(res, req);
      if (draining) closeConnection(res);
      // 'close' follows 'finish', and also comes alone when the client goes away first.
      res.once('close', () => release(res));
      next();
    },
    held: () => [...held].map(([res, req]) => ({ req, res })),
    settled: () =>
      held.size === 0 ? Promise.resolve() : new Promise<void>((resolve) => waiters.push(resolve)),
    beginDraining: () => {
      draining = true;
      for (const res of held.keys()) closeConnection(res);
    },
  };
}
