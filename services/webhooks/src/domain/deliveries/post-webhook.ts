import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import {
  ADDRESS_NOT_ALLOWED,
  AddressNotAllowed,
  addressAllowed,
  guardedLookup,
  literalAddress,
} from './address-guard.js';

/** What one attempt came to: the receiver's status, or why there was none. */
export interface AttemptOutcome {
  statusCode: number | null;
  error: string | null;
  latencyMs: number;
}

export interface PostOptions {
  timeoutMs: number;
  allowLoopback: boolean;
}

/** The most of an answer's body read (and dropped): enough to let the receiver finish, never stored. */
const MAX_ANSWER_BYTES = 64 * 1024;

/**
 * Connections kept open between deliveries to the same receiver: a connection per delivery was a TCP
 * (and TLS) handshake on both sides each time, a good part of a fast receiver's time per delivery and
 * so of its endpoint's throughput. Every new connection still goes through the guarded lookup; a kept
 * one was checked when it was made. One pair of agents per loopback setting, so a connection made while
 * loopback was allowed never serves a call that refuses it.
 */
const agents = new Map<boolean, { http: HttpAgent; https: HttpsAgent }>();
function agentFor(protocol: string, allowLoopback: boolean): HttpAgent {
  let pair = agents.get(allowLoopback);
  if (!pair) {
    pair = { http: new HttpAgent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) };
    agents.set(allowLoopback, pair);
  }
  return protocol === 'https:' ? pair.https : pair.http;
}

/**
 * POST one signed delivery. Redirects are not followed (a 3xx is a failed attempt: following one
 * would let a public URL send the request inward); the whole attempt, connection to the end of the
 * answer, is bounded by `timeoutMs`. Never throws: every failure is an outcome with its reason.
 */
export function postWebhook(
  target: string,
  body: string,
  headers: Record<string, string>,
  options: PostOptions,
): Promise<AttemptOutcome> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const url = new URL(target);
  const literal = literalAddress(url.hostname);
  if (literal !== undefined && !addressAllowed(literal, options.allowLoopback)) {
    return Promise.resolve({ statusCode: null, error: ADDRESS_NOT_ALLOWED, latencyMs: 0 });
  }
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (statusCode: number | null, error: string | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ statusCode, error, latencyMs: elapsed() });
    };
    const req = send(
      url,
      {
        method: 'POST',
        headers: {
          ...headers,
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(body)),
          'user-agent': 'text-memory-webhooks/1',
        },
        lookup: guardedLookup(options.allowLoopback),
        agent: agentFor(url.protocol, options.allowLoopback),
      },
      (res) => {
        let read = 0;
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > MAX_ANSWER_BYTES) {
            finish(res.statusCode ?? null, null);
            res.destroy();
          }
        });
        res.on('end', () => finish(res.statusCode ?? null, null));
        res.on('error', () => finish(res.statusCode ?? null, null));
      },
    );
    const timer = setTimeout(() => {
      finish(null, 'timeout');
      req.destroy();
    }, options.timeoutMs);
    req.on('error', (err: Error & { code?: string }) => {
      finish(
        null,
        err instanceof AddressNotAllowed ? ADDRESS_NOT_ALLOWED : (err.code ?? 'connection_failed'),
      );
    });
    req.end(body);
  });
}

/** A 2xx, and only a 2xx, is a delivered event. */
export const delivered = (outcome: AttemptOutcome) =>
  outcome.statusCode !== null && outcome.statusCode >= 200 && outcome.statusCode < 300;
