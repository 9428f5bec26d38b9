import { describe, expect, it } from 'vitest';
import {
  childSpan,
  currentTrace,
  formatTraceparent,
  parseTraceparent,
  runInTrace,
  traceLogFields,
} from '../src/trace-context.js';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const SPAN = '00f067aa0ba902b7';

describe('W3C traceparent', () => {
  it('when a version-00 header is well formed, then its trace id, parent span id and flags are read', () => {
    expect(parseTraceparent(`00-${TRACE}-${SPAN}-01`)).toEqual({ traceId: TRACE, spanId: SPAN, flags: '01' });
  });

  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['upper-case hex', `00-${TRACE.toUpperCase()}-${SPAN}-01`],
    ['an all-zero trace id', `00-${'0'.repeat(32)}-${SPAN}-01`],
    ['an all-zero span id', `00-${TRACE}-${'0'.repeat(16)}-01`],
    ['version ff', `ff-${TRACE}-${SPAN}-01`],
    ['version 00 with more fields', `00-${TRACE}-${SPAN}-01-extra`],
    ['a short trace id', `00-${TRACE.slice(1)}-${SPAN}-01`],
    ['garbage', 'not a trace'],
  ])('when the header is %s, then it is not a parent (a new trace starts)', (_, header) => {
    expect(parseTraceparent(header)).toBeUndefined();
  });

  it('when a later version appends fields, then the known ones are read', () => {
    expect(parseTraceparent(`01-${TRACE}-${SPAN}-00-what-comes-next`)).toEqual({
      traceId: TRACE,
      spanId: SPAN,
      flags: '00',
    });
  });

  it('when a child span is made, then it keeps the trace, names its parent and has an id of its own', () => {
    const child = childSpan({ traceId: TRACE, spanId: SPAN, flags: '01' }, 'req_1');
    expect(child).toMatchObject({ traceId: TRACE, parentSpanId: SPAN, flags: '01', requestId: 'req_1' });
    expect(child.spanId).toMatch(/^[0-9a-f]{16}$/);
    expect(child.spanId).not.toBe(SPAN);
    expect(parseTraceparent(formatTraceparent(child))).toEqual({
      traceId: TRACE,
      spanId: child.spanId,
      flags: '01',
    });
  });

  it('when there is no parent, then a new sampled trace starts', () => {
    const a = childSpan(undefined);
    expect(a.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(a.flags).toBe('01');
    expect(a.parentSpanId).toBeUndefined();
    expect(childSpan(undefined).traceId).not.toBe(a.traceId);
  });

  it('when work runs in a trace, then awaited code sees it and log fields name it; outside, none', async () => {
    const ctx = childSpan({ traceId: TRACE, spanId: SPAN, flags: '01' }, 'req_2');
    expect(traceLogFields()).toEqual({});
    const seen = await runInTrace(ctx, async () => {
      await new Promise((r) => setTimeout(r, 1));
      return { trace: currentTrace(), fields: traceLogFields() };
    });
    expect(seen.trace).toBe(ctx);
    expect(seen.fields).toEqual({
      trace_id: TRACE,
      span_id: ctx.spanId,
      parent_span_id: SPAN,
      request_id: 'req_2',
    });
    expect(currentTrace()).toBeUndefined();
  });
});
