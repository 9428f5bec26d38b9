import { AsyncLocalStorage } from 'node:async_hooks';
import { randomBytesPooled } from './random-pool.js';

/**
 * W3C Trace Context (https://www.w3.org/TR/trace-context/): one trace id for a request across every
 * hop, a span id per hop. The gateway starts or continues a trace; NATS messages carry it in a
 * `traceparent` header; each service runs the message's work inside it, so every log line written
 * for that request carries the same trace id (logger.ts adds it).
 */
export interface TraceContext {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  /** Sampled flag of the incoming trace, kept as it came. */
  flags: string;
  /** The gateway's request id, carried beside the trace so either finds the other. */
  requestId?: string;
}

export const TRACEPARENT_HEADER = 'traceparent';
export const REQUEST_ID_HEADER = 'x-request-id';

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;
const ALL_ZERO = /^0+$/;

/**
 * The parent a `traceparent` header names, or undefined when it is not one: version ff is invalid, as
 * are all-zero ids; version 00 is exactly 55 characters; a later version may append fields (ignored).
 */
export function parseTraceparent(
  header: string | undefined | null,
): { traceId: string; spanId: string; flags: string } | undefined {
  if (!header) return undefined;
  const match = TRACEPARENT.exec(header.trim());
  if (!match) return undefined;
  const [, version, traceId, spanId, flags, rest] = match as unknown as [
    string,
    string,
    string,
    string,
    string,
    string | undefined,
  ];
  if (version === 'ff' || ALL_ZERO.test(traceId) || ALL_ZERO.test(spanId)) return undefined;
  if (version === '00' && rest !== undefined) return undefined;
  return { traceId, spanId, flags };
}

export const formatTraceparent = (ctx: Pick<TraceContext, 'traceId' | 'spanId' | 'flags'>) =>
  `00-${ctx.traceId}-${ctx.spanId}-${ctx.flags}`;

const newSpanId = () => randomBytesPooled(8).toString('hex');

/** A new hop: the parent's trace, a fresh span id; no parent starts a new (sampled) trace. */
export function childSpan(
  parent: { traceId: string; spanId: string; flags: string } | undefined,
  requestId?: string,
): TraceContext {
  const base = parent
    ? { traceId: parent.traceId, parentSpanId: parent.spanId, flags: parent.flags }
    : { traceId: randomBytesPooled(16).toString('hex'), flags: '01' };
  return { ...base, spanId: newSpanId(), ...(requestId ? { requestId } : {}) };
}

const storage = new AsyncLocalStorage<TraceContext>();

/** Run `fn` (and everything it awaits) inside the trace. */
export const runInTrace = <T>(ctx: TraceContext, fn: () => T): T => storage.run(ctx, fn);

export const currentTrace = (): TraceContext | undefined => storage.getStore();

/** The fields a log line carries for the current trace (none outside one). */
export function traceLogFields(): Record<string, string> {
  const ctx = storage.getStore();
  if (!ctx) return {};
  return {
    trace_id: ctx.traceId,
    span_id: ctx.spanId,
    ...(ctx.parentSpanId ? { parent_span_id: ctx.parentSpanId } : {}),
    ...(ctx.requestId ? { request_id: ctx.requestId } : {}),
  };
}
