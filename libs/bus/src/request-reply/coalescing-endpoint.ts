import {
  type Msg,
  type NatsConnection,
  headers as natsHeaders,
  type Subscription,
} from '@nats-io/transport-node';
import { AppError, ErrorCode } from '@tm/contracts';
import { createPerTurnCoalescer, currentTrace, runInTrace, type TraceContext } from '@tm/kit';
import type { Logger } from 'pino';
import { z } from 'zod';
import { ERROR_HEADER, fromBusErrorBody, toBusErrorBody } from '../bus-error.js';
import { decodeJson } from '../codec.js';
import { ITEM_TRACES_HEADER, itemTrace, itemTraces } from '../trace-headers.js';
import type { EndpointStats } from './endpoint-stats.js';
import { outsideContract, type RequestOptions, transportError } from './request.js';
import { answerMessage, type Endpoint, respondWithError, subscribeEndpoint } from './serve.js';

/**
 * Request/reply with a caller's concurrent calls coalesced into one message each way: `{"items": [...]}`
 * in, `{"results": [...]}` out, one result per item in order, each the handler's answer (`ok`) or its
 * typed error (`error`). A busy caller's calls share one bus round trip, and the service gets them
 * together (the memory service retains such writes in shared statements). Not the API's batch write:
 * these items are unrelated calls that happened to be made in the same turn.
 */
const CoalescedReply = z.object({
  results: z.array(z.union([z.object({ ok: z.unknown() }), z.object({ error: z.unknown() })])),
});

/**
 * Serve `endpoint`'s handler for coalesced messages; every item is validated and answered on its own.
 * In `stats` a message is one request, and an error when any of its items is answered with one.
 */
export function serveCoalescedEndpoint<I extends z.ZodType>(
  nc: NatsConnection,
  endpoint: Endpoint<I>,
  logger: Logger,
  stats?: EndpointStats,
): Subscription {
  // Each item is answered inside its own caller's trace.
  const answer = (item: unknown, trace: TraceContext) =>
    runInTrace(trace, () => answerMessage(endpoint, item, logger));
  const onMessage = async (msg: Msg): Promise<AppError | undefined> => {
    let items: unknown;
    try {
      items = (decodeJson(msg.data) as { items?: unknown }).items;
    } catch {
      items = undefined;
    }
    if (!Array.isArray(items)) {
      const error = new AppError(ErrorCode.ValidationFailed, 'A coalesced message needs an items array');
      respondWithError(msg, error);
      return error;
    }
    const traces = itemTraces(msg.headers, items.length);
    const answers = await Promise.all(items.map((item, i) => answer(item, traces[i] as TraceContext)));
    const results = answers.map((a) => ('error' in a ? { error: toBusErrorBody(a.error) } : a));
    msg.respond(JSON.stringify({ results }));
    for (const a of answers) if ('error' in a) return a.error;
    return undefined;
  };
  return subscribeEndpoint(nc, endpoint, logger, onMessage, stats);
}

export interface CoalescingRequestOptions extends RequestOptions {
  /** Most calls in one message. */
  maxItems?: number;
  /** Most payload bytes in one message (NATS refuses messages above max_payload, 1 MiB by default). */
  maxBytes?: number;
}

interface Queued {
  json: string;
  bytes: number;
  trace: TraceContext | undefined;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

/**
 * The caller's side: calls made in one turn of the event loop are coalesced into one message. Each call is
 * validated before it is queued, and gets back exactly what it would from `requestReply`: its
 * answer, checked against the contract, or an AppError (its own typed error, or the transport's).
 */
export function createCoalescingRequester<I extends z.ZodType, O extends z.ZodType>(
  nc: NatsConnection,
  subject: string,
  contract: { input: I; output: O },
  options: CoalescingRequestOptions,
): (payload: z.input<I>) => Promise<z.output<O>> {
  async function send(queued: Queued[]): Promise<void> {
    const data = `{"items":[${queued.map((q) => q.json).join(',')}]}`;
    const headers = natsHeaders();
    headers.set(ITEM_TRACES_HEADER, queued.map((q) => itemTrace(q.trace)).join(','));
    let body: unknown;
    try {
      const reply = await nc.request(subject, data, { timeout: options.timeoutMs, headers });
      body = decodeJson(reply.data);
      if (reply.headers?.get(ERROR_HEADER)) {
        const err = fromBusErrorBody(body);
        for (const q of queued) q.reject(err);
        return;
      }
    } catch (err) {
      const mapped = transportError(err, options.service);
      for (const q of queued) q.reject(mapped);
      return;
    }
    const parsed = CoalescedReply.safeParse(body);
    if (!parsed.success || parsed.data.results.length !== queued.length) {
      const err = outsideContract(options.service, parsed.error);
      for (const q of queued) q.reject(err);
      return;
    }
    for (const [i, q] of queued.entries()) {
      const result = parsed.data.results[i] as { ok?: unknown; error?: unknown };
      if ('error' in result) {
        q.reject(fromBusErrorBody(result.error));
        continue;
      }
      const output = contract.output.safeParse(result.ok);
      if (output.success) q.resolve(output.data);
      else q.reject(outsideContract(options.service, output.error));
    }
  }

  const add = createPerTurnCoalescer<Queued>({
    maxItems: options.maxItems ?? 64,
    maxSize: options.maxBytes ?? 512 * 1024,
    sizeOf: (q) => q.bytes,
    flush: (queued) => void send(queued),
  });

  return (payload) =>
    new Promise<z.output<O>>((resolve, reject) => {
      const json = JSON.stringify(contract.input.parse(payload));
      add({
        json,
        bytes: Buffer.byteLength(json),
        trace: currentTrace(),
        resolve: resolve as (value: unknown) => void,
        reject,
      });
    });
}
