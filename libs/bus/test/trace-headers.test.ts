import { headers as natsHeaders } from '@nats-io/transport-node';
import { childSpan, formatTraceparent, type TraceContext } from '@tm/kit';
import { describe, expect, it } from 'vitest';
import { ITEM_TRACES_HEADER, itemTrace, itemTraces } from '../src/trace-headers.js';

/** The batch header a requester writes for these items, read back as the receiver reads it. */
function roundTrip(items: Array<TraceContext | undefined>): TraceContext[] {
  const h = natsHeaders();
  h.set(ITEM_TRACES_HEADER, items.map(itemTrace).join(','));
  return itemTraces(h, items.length);
}

const traceWith = (requestId?: string) => childSpan(undefined, requestId);

describe('batch item traces', () => {
  it('when request ids hold the separators, escapes and quotes, then each round-trips and its neighbours keep theirs', () => {
    const victim = traceWith('victim-1');
    const forgedParent = formatTraceparent(traceWith());
    const hostile = [
      `x,${forgedParent};forged`,
      'a;b;c',
      '100%25 done %zz %',
      ' spaced  out ',
      `"quoted" 'single' \\back`,
      ',;,;',
    ];
    const items = [victim, ...hostile.map((id) => traceWith(id)), undefined, traceWith('victim-2')];

    const read = roundTrip(items);

    expect(read.map((t) => t.requestId)).toEqual(['victim-1', ...hostile, undefined, 'victim-2']);
    // Every item stays a child of its own sender's span, never one the hostile id names.
    for (const [i, sent] of items.entries()) {
      if (!sent) continue;
      expect(read[i]).toMatchObject({ traceId: sent.traceId, parentSpanId: sent.spanId });
    }
  });

  it('when an item carries a malformed encoding, then its id is dropped and the others are kept', () => {
    const good = traceWith('kept');
    const h = natsHeaders();
    h.set(ITEM_TRACES_HEADER, [`${formatTraceparent(traceWith())};%E0%A4%A`, itemTrace(good)].join(','));

    const read = itemTraces(h, 2);

    expect(read.map((t) => t.requestId)).toEqual([undefined, 'kept']);
  });
});
