import type { LoadRequest } from './run-load.js';
import type { TextCorpus } from './text-corpus.js';

const WRITE_PATH = '/api/v1/memory/write';
export const WRITE_BATCH_PATH = '/api/v1/memory/write/batch';
/** Events in one batch: the route's bound (`write_batch_max_items` in capabilities, LIMITS.writeBatchMaxItems). */
export const WRITE_BATCH_SIZE = 100;
export const RECALL_PATH = '/api/v1/memory/recall';

/** The gateway the bench calls, and the key it calls with. */
export interface StackTarget {
  baseUrl: string;
  apiKey: string;
}

export const bearer = (apiKey: string) => ({ authorization: `Bearer ${apiKey}` });

/**
 * Writes of fresh corpus texts into `namespace`, each with its own idempotency key (also its event
 * id), so every request is a new retained record, never a replay.
 */
export function writeRequests(
  apiKey: string,
  namespace: string,
  corpus: TextCorpus,
  keyPrefix: string,
): LoadRequest & Required<Pick<LoadRequest, 'next'>> {
  let sequence = 0;
  return {
    method: 'POST',
    path: WRITE_PATH,
    headers: bearer(apiKey),
    next: () => {
      const key = `${keyPrefix}-${++sequence}`;
      const body = {
        contract_version: 'v1',
        namespace,
        event: { event_id: key, occurred_at: corpus.occurredAt(), content: { text: corpus.text() } },
      };
      return { body: JSON.stringify(body), headers: { 'idempotency-key': key } };
    },
    accept: (body) =>
      body.includes('"state":"retained"') && body.includes('"idempotency_outcome":"Accepted"'),
  };
}

/**
 * Batch writes of `size` fresh corpus texts each into `namespace`: every item is what one
 * `writeRequests` request sends (its own key, also its event id; a time and a text from the same
 * corpus), so a batch is `size` new retained records and the two scenarios write the same memories.
 * A batch counts only when every item was retained as new.
 */
export function writeBatchRequests(
  apiKey: string,
  namespace: string,
  corpus: TextCorpus,
  keyPrefix: string,
  size = WRITE_BATCH_SIZE,
): LoadRequest & Required<Pick<LoadRequest, 'next'>> {
  let sequence = 0;
  return {
    method: 'POST',
    path: WRITE_BATCH_PATH,
    headers: bearer(apiKey),
    next: () => {
      const items = Array.from({ length: size }, () => {
        const key = `${keyPrefix}-${++sequence}`;
        return {
          idempotency_key: key,
          event: { event_id: key, occurred_at: corpus.occurredAt(), content: { text: corpus.text() } },
        };
      });
      return { body: JSON.stringify({ contract_version: 'v1', namespace, items }) };
    },
    accept: (body) => {
      try {
        const answer = JSON.parse(body) as { state?: string; item_counts?: { accepted?: number } };
        return answer.state === 'retained' && answer.item_counts?.accepted === size;
      } catch {
        return false;
      }
    },
  };
}

/** Recalls against `namespace` with a fresh cue each time: 3-6 Zipf-drawn words unless `cue` says otherwise. */
export function recallRequests(
  apiKey: string,
  namespace: string,
  corpus: TextCorpus,
  cue: () => string = () => corpus.cue(),
  topK = 10,
): LoadRequest {
  return {
    method: 'POST',
    path: RECALL_PATH,
    headers: bearer(apiKey),
    next: () => ({
      body: JSON.stringify({ contract_version: 'v1', namespace, cue: { text: cue() }, top_k: topK }),
    }),
    accept: (body) => body.includes('"operation":"memory.recall"'),
  };
}

export interface DeleteOutcome {
  /** The final answer's status: 200 once the deletion job has completed. */
  status: number;
  /** Records the deletion removed, from its final receipt. */
  deleted: number | null;
  /** DELETE calls: one, unless the call itself failed (a retry finds the same job). */
  attempts: number;
  /** Reads of the deletion's status route while its job ran. */
  polls: number;
}

/** A bench namespace of 1M records takes minutes at the server's default batch size; a bound, not a target. */
const DELETE_WAIT_MS = 60 * 60_000;

/**
 * Delete a bench namespace with one call and wait for it: the server deletes it as a job, answering
 * 202 with its status route (Location) when it is not done within a short wait, so the clean-up polls
 * that until the receipt is final. A DELETE that fails outright (no answer, a 5xx) is sent again: while
 * the job runs, that answers the same job.
 */
export async function deleteNamespace(
  baseUrl: string,
  apiKey: string,
  namespace: string,
): Promise<DeleteOutcome> {
  const outcome: DeleteOutcome = { status: 0, deleted: null, attempts: 0, polls: 0 };
  type Receipt = { deleted?: number; retryable?: boolean; deletion?: { status: string } };
  let res: Response | undefined;
  let body: Receipt = {};
  for (let failures = 0; failures < 8; failures++) {
    outcome.attempts++;
    try {
      res = await fetch(`${baseUrl}/api/v1/memory?namespace=${encodeURIComponent(namespace)}`, {
        method: 'DELETE',
        headers: bearer(apiKey),
        signal: AbortSignal.timeout(60_000),
      });
      body = (await res.json().catch(() => ({}))) as Receipt;
      if (res.ok || !body.retryable) break;
    } catch {
      res = undefined;
    }
    await new Promise((r) => setTimeout(r, 1_000 * (failures + 1)));
  }
  const location = res?.headers.get('location');
  const started = Date.now();
  while (res?.status === 202 && location && Date.now() - started < DELETE_WAIT_MS) {
    await new Promise((r) => setTimeout(r, Number(res?.headers.get('retry-after') ?? 1) * 1_000));
    outcome.polls++;
    const poll = await fetch(`${baseUrl}${location}`, {
      headers: bearer(apiKey),
      signal: AbortSignal.timeout(60_000),
    }).catch(() => undefined);
    if (!poll?.ok) continue;
    body = (await poll.json()) as Receipt;
    if (body.deletion?.status === 'completed') res = poll;
  }
  outcome.status = res?.status ?? 0;
  outcome.deleted = res?.ok && body.deletion?.status === 'completed' ? (body.deleted ?? null) : null;
  return outcome;
}

/**
 * The end of a run: delete the run's namespaces one after the other, or with `keep` (--keep) leave
 * them and say whose they are. One line per step for the report, each also logged.
 */
export async function cleanUpNamespaces(
  target: StackTarget & { keySource: string },
  namespaces: readonly string[],
  keep: boolean,
  log: (message: string) => void,
): Promise<string[]> {
  if (keep) {
    const line = `Kept namespaces ${namespaces.join(', ')} (--keep); delete them with DELETE /api/v1/memory?namespace=….`;
    log(
      `${line} They belong to the key ${target.keySource === 'BENCH_API_KEY' ? 'in BENCH_API_KEY' : target.apiKey}.`,
    );
    return [line];
  }
  const lines: string[] = [];
  for (const namespace of namespaces) {
    const outcome = await deleteNamespace(target.baseUrl, target.apiKey, namespace);
    const line = `Deleted namespace ${namespace}: HTTP ${outcome.status}, ${outcome.deleted ?? '?'} records, ${outcome.attempts} call(s) and ${outcome.polls} status poll(s).`;
    log(line);
    lines.push(line);
  }
  return lines;
}

/** Fails fast, with the reason, when the stack is not up or the key is refused. */
export async function checkStack(baseUrl: string, apiKey: string): Promise<void> {
  let res: Response;
  try {
    res = await fetch(`${baseUrl}${RECALL_PATH}`, {
      method: 'POST',
      headers: { ...bearer(apiKey), 'content-type': 'application/json' },
      body: JSON.stringify({
        contract_version: 'v1',
        namespace: 'bench-probe',
        cue: { text: 'probe' },
        top_k: 1,
      }),
      signal: AbortSignal.timeout(10_000),
    });
  } catch (err) {
    throw new Error(
      `No stack answering at ${baseUrl} (start it with \`pnpm start\`): ${(err as Error).message}`,
    );
  }
  if (!res.ok)
    throw new Error(`The stack at ${baseUrl} refused a probe recall: ${res.status} ${await res.text()}`);
}
