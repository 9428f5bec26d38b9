import { type MsgHdrs, headers as natsHeaders } from '@nats-io/transport-node';
import {
  childSpan,
  currentTrace,
  formatTraceparent,
  parseTraceparent,
  REQUEST_ID_HEADER,
  TRACEPARENT_HEADER,
  type TraceContext,
} from '@tm/kit';

/** One coalesced item's trace, in the order of the items (a message has room for one traceparent). */
export const ITEM_TRACES_HEADER = 'tm-item-traceparents';

/** Headers that carry the current trace (the caller's span is the receiver's parent), if there is one. */
export function traceHeaders(): MsgHdrs | undefined {
  const trace = currentTrace();
  if (!trace) return undefined;
  const h = natsHeaders();
  h.set(TRACEPARENT_HEADER, formatTraceparent(trace));
  if (trace.requestId) h.set(REQUEST_ID_HEADER, trace.requestId);
  return h;
}

/** The receiving hop's trace: a child of the message's, or a new trace when it carries none. */
export function traceOfMessage(h: MsgHdrs | undefined): TraceContext {
  return childSpan(parseTraceparent(h?.get(TRACEPARENT_HEADER)), h?.get(REQUEST_ID_HEADER) || undefined);
}

/**
 * A coalesced message's items' traces: `traceparent;request id` of each, joined with `,`, `-` for an
 * item without one. Such a message mixes tenants and a kept request id may hold any printable
 * character, `,` and `;` too, so the id is percent-encoded: one tenant's id can never shift or rename
 * another's item.
 */
export const itemTrace = (trace: TraceContext | undefined) =>
  trace ? `${formatTraceparent(trace)};${encodeURIComponent(trace.requestId ?? '')}` : '-';

export function itemTraces(h: MsgHdrs | undefined, count: number): Array<TraceContext> {
  const listed = (h?.get(ITEM_TRACES_HEADER) ?? '').split(',');
  return Array.from({ length: count }, (_, i) => {
    const [parent, requestId] = (listed[i] ?? '').split(';');
    return childSpan(parseTraceparent(parent), decodedRequestId(requestId));
  });
}

/** An item's request id as sent; a malformed encoding (no sender of ours writes one) is dropped. */
function decodedRequestId(encoded: string | undefined): string | undefined {
  if (!encoded) return undefined;
  try {
    return decodeURIComponent(encoded);
  } catch {
    return undefined;
  }
}
