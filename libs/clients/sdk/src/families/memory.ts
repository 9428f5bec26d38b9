import { TextMemoryError } from '../errors.js';
import type { CallOptions, Transport } from '../http.js';
import { LIMITS } from '../limits.js';
import { sleep } from '../retry.js';
import type {
  DeleteReceipt,
  ExportFile,
  QueryOf,
  RecallResponse,
  RestoreFailurePage,
  RestoreJob,
  Schemas,
  WriteBatchItem,
  WriteBatchRequest,
  WriteBatchResponse,
  WriteRequest,
  WriteResponse,
} from '../types.js';
import {
  assertValid,
  checkBatchItems,
  checkExplain,
  checkNamespace,
  checkText,
  checkTopK,
} from '../validation.js';

export interface WriteInput {
  namespace: string;
  /** `event.content.text`: non-empty, at most 32,768 characters. */
  text: string;
  /** Sent as `Idempotency-Key` and reused on every retry; `evt_<uuid>` when not given. */
  idempotency_key?: string;
  /** Defaults to the idempotency key. */
  event_id?: string;
  /**
   * When the event happened. Left out, the service uses the time it retains the write, and the same
   * call run again (same key, no time) replays it instead of conflicting.
   */
  occurred_at?: string | Date;
  source?: Schemas['EventSource'];
  supersedes?: string[];
}

export interface WriteBatchInput {
  /** One namespace for every item. */
  namespace: string;
  /**
   * 1 to 100 items (`LIMITS.writeBatchMaxItems`), each `{ idempotency_key, event }` with the event as a
   * single write sends it (`event_id` defaults to the key on the server). Each item is its own write.
   */
  items: WriteBatchItem[];
}

export interface RecallInput {
  namespace: string;
  /** The cue (`cue.text`); the spec's CLI calls it query. */
  query: string;
  /** 1–100, default 10 (server side). */
  top_k?: number;
  /** Temporal cutoff (ISO 8601 with a zone). */
  as_of?: string | Date;
  /**
   * Also return, per result, the cue's terms with their weights and whether the result holds each
   * (`related[i].explanation`); the cue's function words are in `tie_break_terms`.
   */
  explain?: boolean;
}

export interface WriteOptions extends CallOptions {
  /** Also recall after the write: `true` recalls with the written text, or give a query. */
  recall?: true | Partial<Omit<RecallInput, 'namespace'>>;
}

export type WriteResult = WriteResponse & {
  /** The related recall, when `recall` was asked for. */
  related_recall?: RecallResponse;
};

export interface DeleteOptions extends CallOptions {
  /**
   * Called with the receipt as it stands: after the DELETE and after each poll of the deletion while
   * it runs (`receipt.deletion.progress`: records deleted of the total, batches).
   */
  onProgress?: (receipt: DeleteReceipt) => void;
  /**
   * How long to wait for the deletion in all, polling included (default 10 minutes). Past it the
   * receipt as it stands is returned (`deletion.status: 'in_progress'`): the server goes on, and
   * `memory.deletion(receipt.deletion.id)` reads it later.
   */
  maxWaitMs?: number;
  /** Pause between polls; the server's Retry-After (1 s) when not given. */
  pollIntervalMs?: number;
}

export interface RestoreInput {
  /** The export file, parsed: `JSON.parse` of what `infrastructure.export` or the export route wrote. */
  file: ExportFile;
  /** Where the records go; default the namespace they were exported from. */
  namespace?: string;
  /** Which of the file's namespaces to restore; needed only when it holds more than one. */
  from_namespace?: string;
}

export interface RestoreOptions extends CallOptions {
  /** Wait for the job to complete, polling its status (default true); false returns the started job. */
  wait?: boolean;
  /** Called with the job after the start and after each poll. */
  onProgress?: (job: RestoreJob) => void;
  /** Between polls; default 1,000 ms (the server's Retry-After). */
  pollIntervalMs?: number;
  /** How long to wait in all (default 10 minutes); past it the job is returned as it stands. */
  maxWaitMs?: number;
}

/** Ten minutes: a 1M-record namespace takes a few at the server's default batch size. */
const DELETE_MAX_WAIT_MS = 10 * 60_000;
const DELETE_POLL_MS = 1_000;

const iso = (time: string | Date) => (typeof time === 'string' ? time : time.toISOString());

/** An event identifier for a write that names none: sent as the idempotency key and event id. */
export const newEventId = () => `evt_${globalThis.crypto.randomUUID()}`;

/** The data plane: write, recall, delete (API key). */
export class MemoryFamily {
  constructor(private readonly http: Transport) {}

  /**
   * Retain one event. Safe to retry: the idempotency key is fixed before the first attempt, so a
   * write whose answer was lost comes back `Replayed` on the retry, never doubled.
   */
  async write(input: WriteInput, options?: WriteOptions): Promise<WriteResult> {
    assertValid(
      checkNamespace(input.namespace),
      checkText(input.text, 'event.content.text', LIMITS.textMaxChars),
    );
    const recall = options?.recall;
    if (recall && recall !== true) assertValid(checkTopK(recall.top_k), checkExplain(recall.explain));
    const key = input.idempotency_key ?? newEventId();
    const body: WriteRequest = {
      contract_version: 'v1',
      operation: 'memory.write',
      namespace: input.namespace,
      idempotency_key: key,
      event: {
        event_id: input.event_id ?? key,
        ...(input.occurred_at === undefined ? {} : { occurred_at: iso(input.occurred_at) }),
        content: { text: input.text },
        ...(input.source ? { source: input.source } : {}),
        ...(input.supersedes ? { supersedes: input.supersedes } : {}),
      },
    };
    const { data } = await this.http.request<WriteResponse>(
      {
        method: 'POST',
        path: '/api/v1/memory/write',
        credential: 'apiKey',
        safe: true,
        json: body,
        headers: { 'idempotency-key': key },
      },
      options,
    );
    if (!recall) return data;
    const { recall: _omit, ...callOptions } = options ?? {};
    const related = await this.recall(
      {
        namespace: input.namespace,
        query:
          recall === true || recall.query === undefined
            ? input.text.slice(0, LIMITS.cueMaxChars)
            : recall.query,
        ...(recall !== true && recall.top_k !== undefined ? { top_k: recall.top_k } : {}),
        ...(recall !== true && recall.as_of !== undefined ? { as_of: recall.as_of } : {}),
        ...(recall !== true && recall.explain !== undefined ? { explain: recall.explain } : {}),
      },
      callOptions,
    );
    return { ...data, related_recall: related };
  }

  /**
   * Retain up to 100 events in one call, each item its own write under its own idempotency key.
   * The answer has one result per item in request order (`results[i].status` and `body`: what a single
   * write of it would have answered: Accepted, Replayed, a 409 conflict or a 400 naming `items[i]…`),
   * so one bad item refuses only itself. Safe to retry, as `write` is: a resend replays the written
   * items. A batch of no items or more than 100 is refused before sending (`validation_failed`, `items`).
   */
  async writeBatch(input: WriteBatchInput, options?: CallOptions): Promise<WriteBatchResponse> {
    assertValid(checkNamespace(input.namespace), checkBatchItems(input.items));
    const body: WriteBatchRequest = {
      contract_version: 'v1',
      operation: 'memory.write_batch',
      namespace: input.namespace,
      items: input.items,
    };
    const { data } = await this.http.request<WriteBatchResponse>(
      { method: 'POST', path: '/api/v1/memory/write/batch', credential: 'apiKey', safe: true, json: body },
      options,
    );
    return data;
  }

  /**
   * Rank retained text against `query`: each result's `score` is the share of the query's term weight
   * it holds (rarer words in the namespace weigh more). `explain: true` shows the weights per result.
   */
  async recall(input: RecallInput, options?: CallOptions): Promise<RecallResponse> {
    assertValid(
      checkNamespace(input.namespace),
      checkText(input.query, 'cue.text', LIMITS.cueMaxChars),
      checkTopK(input.top_k),
      checkExplain(input.explain),
    );
    const { data } = await this.http.request<RecallResponse>(
      {
        method: 'POST',
        path: '/api/v1/memory/recall',
        credential: 'apiKey',
        safe: true,
        json: {
          contract_version: 'v1',
          operation: 'memory.recall',
          namespace: input.namespace,
          cue: { text: input.query },
          ...(input.top_k !== undefined ? { top_k: input.top_k } : {}),
          ...(input.as_of !== undefined ? { as_of: iso(input.as_of) } : {}),
          ...(input.explain !== undefined ? { explain: input.explain } : {}),
        },
      },
      options,
    );
    return data;
  }

  /**
   * Delete one namespace: its records, supersession relations and idempotency state. The server hides
   * the records at once and deletes them as a job; this waits for the job (polling its status route,
   * with `onProgress`), up to `maxWaitMs`, and returns the final receipt (`deletion.status:
   * 'completed'`), or the receipt as it stands when the wait ran out.
   */
  async delete(namespace: string, options: DeleteOptions = {}): Promise<DeleteReceipt> {
    assertValid(checkNamespace(namespace));
    const { onProgress, maxWaitMs = DELETE_MAX_WAIT_MS, pollIntervalMs, ...call } = options;
    const started = Date.now();
    // Asking again while a deletion runs answers the same job, so the call is safe to repeat.
    let receipt = await this.askDelete(namespace, call, started, maxWaitMs);
    onProgress?.(receipt);
    while (receipt.deletion.status === 'in_progress') {
      const pause = pollIntervalMs ?? DELETE_POLL_MS;
      if (Date.now() - started + pause > maxWaitMs) break;
      await sleep(pause, call.signal);
      receipt = await this.deletion(receipt.deletion.id, call);
      onProgress?.(receipt);
    }
    return receipt;
  }

  /**
   * The DELETE itself, asked again while the server answers a retryable 503 (its template data is
   * still being deleted in batches, which goes on between asks) and the wait allows; each ask gets
   * further, none starts over.
   */
  private async askDelete(
    namespace: string,
    call: CallOptions,
    started: number,
    maxWaitMs: number,
  ): Promise<DeleteReceipt> {
    for (;;) {
      try {
        const { data } = await this.http.request<DeleteReceipt>(
          {
            method: 'DELETE',
            path: '/api/v1/memory',
            credential: 'apiKey',
            safe: true,
            query: { namespace },
          },
          call,
        );
        return data;
      } catch (err) {
        const retryAfter = (err as { retryAfter?: number }).retryAfter;
        if (!(err instanceof TextMemoryError && err.status === 503 && err.retryable)) throw err;
        const pause = retryAfter ?? DELETE_POLL_MS;
        if (Date.now() - started + pause > maxWaitMs) throw err;
        await sleep(pause, call.signal);
      }
    }
  }

  /**
   * Restore an export file into a namespace of this key's tenant: the server checks the file
   * whole (a 400 stores nothing), then writes its records as a job, keeping event ids, times, text,
   * source and supersessions; new memory ids. Waits for the job (polling, with `onProgress`) unless
   * `wait: false`, and returns it: `written` (billed, one write unit each), `already_present` (restored
   * before, or already there: nothing stored), `failed` (see `restoreFailures`). Safe to repeat: a
   * second restore of the same file stores and bills nothing, so a retried start is harmless.
   */
  async restore(input: RestoreInput, options: RestoreOptions = {}): Promise<RestoreJob> {
    assertValid(
      input.namespace === undefined ? [] : checkNamespace(input.namespace, 'namespace'),
      input.from_namespace === undefined ? [] : checkNamespace(input.from_namespace, 'from_namespace'),
    );
    const {
      wait = true,
      onProgress,
      pollIntervalMs = DELETE_POLL_MS,
      maxWaitMs = DELETE_MAX_WAIT_MS,
      ...call
    } = options;
    const started = Date.now();
    const query = {
      ...(input.namespace !== undefined ? { namespace: input.namespace } : {}),
      ...(input.from_namespace !== undefined ? { from_namespace: input.from_namespace } : {}),
    };
    const { data } = await this.http.request<RestoreJob>(
      {
        method: 'POST',
        path: '/api/v1/memory/restore',
        credential: 'apiKey',
        safe: true,
        query,
        json: input.file,
      },
      call,
    );
    let job = data;
    onProgress?.(job);
    // cancelled: its namespace was deleted while it ran; it goes no further either
    while (wait && job.state === 'processing') {
      if (Date.now() - started + pollIntervalMs > maxWaitMs) break;
      await sleep(pollIntervalMs, call.signal);
      job = await this.restoreStatus(job.id, call);
      onProgress?.(job);
    }
    return job;
  }

  /** A restore job as it stands (one read, no waiting). */
  async restoreStatus(id: string, options?: CallOptions): Promise<RestoreJob> {
    const { data } = await this.http.request<RestoreJob>(
      {
        method: 'GET',
        path: `/api/v1/memory/restore/${encodeURIComponent(id)}`,
        credential: 'apiKey',
        safe: true,
      },
      options,
    );
    return data;
  }

  /** Records a restore could not write, by event id, with a reason (never their text). */
  async restoreFailures(
    id: string,
    query?: QueryOf<'memoryRestoreFailures'>,
    options?: CallOptions,
  ): Promise<RestoreFailurePage> {
    const { data } = await this.http.request<RestoreFailurePage>(
      {
        method: 'GET',
        path: `/api/v1/memory/restore/${encodeURIComponent(id)}/failures`,
        credential: 'apiKey',
        safe: true,
        query,
      },
      options,
    );
    return data;
  }

  /** A namespace deletion as it stands, by `deletion.id` from its receipt (one read, no waiting). */
  async deletion(id: string, options?: CallOptions): Promise<DeleteReceipt> {
    const { data } = await this.http.request<DeleteReceipt>(
      {
        method: 'GET',
        path: `/api/v1/memory/deletions/${encodeURIComponent(id)}`,
        credential: 'apiKey',
        safe: true,
      },
      options,
    );
    return data;
  }
}
