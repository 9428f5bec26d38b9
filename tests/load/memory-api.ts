import type { LoadRequest } from './run-load.js';
import type { TextCorpus } from './text-corpus.js';

const WRITE_PATH = '/api/v1/memory/write';
const RECALL_PATH = '/api/v1/memory/recall';

const bearer = (apiKey: string) => ({ authorization: `Bearer ${apiKey}` });

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
  status: number;
  /** Records the answering call removed; after a retry, the earlier call may have removed most. */
  deleted: number | null;
  attempts: number;
}

/**
 * Delete a bench namespace. A large one can outlast the gateway's downstream deadline (a retryable
 * 504 while the memory service goes on deleting), so retry until the service answers.
 */
export async function deleteNamespace(
  baseUrl: string,
  apiKey: string,
  namespace: string,
): Promise<DeleteOutcome> {
  let last: DeleteOutcome = { status: 0, deleted: null, attempts: 0 };
  // A large namespace goes in steps: each call answers a retryable 409 until the one that finishes
  // (about 5k-10k records a call), so 1M records take a few hundred calls.
  let failures = 0;
  for (let attempt = 1; failures < 8 && attempt <= 2_000; attempt++) {
    let wait = 1_000;
    try {
      const res = await fetch(`${baseUrl}/api/v1/memory?namespace=${encodeURIComponent(namespace)}`, {
        method: 'DELETE',
        headers: bearer(apiKey),
        signal: AbortSignal.timeout(60_000),
      });
      const body = (await res.json().catch(() => ({}))) as { deleted?: number; retryable?: boolean };
      last = { status: res.status, deleted: res.ok ? (body.deleted ?? null) : null, attempts: attempt };
      if (res.ok) return last;
      if (!body.retryable) return last;
      if (res.status === 409) wait = 0;
      else failures++;
    } catch {
      last = { status: 0, deleted: null, attempts: attempt };
      failures++;
    }
    await new Promise((r) => setTimeout(r, wait * failures));
  }
  return last;
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
