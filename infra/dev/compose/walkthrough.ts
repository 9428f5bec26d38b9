import { setTimeout as sleep } from 'node:timers/promises';

/**
 * The "Walk-through with curl" of docs/http-api.md (write, the same write again, recall, delete a
 * namespace) as requests with the same bodies, each answer checked for what that page says it shows.
 */
export interface WalkthroughStep {
  name: string;
  run: () => Promise<void>;
}

const NAMESPACE = 'support-bot';
const EVENT = {
  event_id: 'note-1',
  occurred_at: '2026-11-22T09:30:00Z',
  content: { text: 'Alice prefers green tea and is allergic to peanuts' },
  source: { type: 'direct_user_input', id: 'chat-42' },
};

type Json = Record<string, unknown>;

export function walkthrough(base: string, apiKey: string): WalkthroughStep[] {
  const call = async (method: string, path: string, body?: Json, headers: Record<string, string> = {}) => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${apiKey}`,
        ...(body ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      body: body ? JSON.stringify(body) : undefined,
    });
    const json = (await response.json().catch(() => ({}))) as Json;
    return { status: response.status, json };
  };
  const expectThat = (ok: boolean, what: string, answer: { status: number; json: Json }) => {
    // The answer holds the walk-through's own sample text only, no secret.
    if (!ok) throw new Error(`${what}; got ${answer.status} ${JSON.stringify(answer.json).slice(0, 400)}`);
  };
  const write = () =>
    call(
      'POST',
      '/api/v1/memory/write',
      { contract_version: 'v1', operation: 'memory.write', namespace: NAMESPACE, event: EVENT },
      { 'idempotency-key': 'note-1' },
    );
  return [
    {
      name: 'write (POST /api/v1/memory/write)',
      run: async () => {
        const answer = await write();
        expectThat(
          answer.status === 200 &&
            answer.json.state === 'retained' &&
            answer.json.idempotency_outcome === 'Accepted',
          'expected 200, state retained, idempotency_outcome Accepted',
          answer,
        );
      },
    },
    {
      name: 'the same write again (Replayed)',
      run: async () => {
        const answer = await write();
        expectThat(
          answer.status === 200 && answer.json.idempotency_outcome === 'Replayed',
          'expected 200, idempotency_outcome Replayed',
          answer,
        );
      },
    },
    {
      name: 'recall (POST /api/v1/memory/recall)',
      run: async () => {
        const answer = await call('POST', '/api/v1/memory/recall', {
          contract_version: 'v1',
          operation: 'memory.recall',
          namespace: NAMESPACE,
          cue: { text: 'what does Alice drink?' },
          top_k: 5,
        });
        const related = (answer.json.related ?? []) as Array<{ event_id?: string }>;
        expectThat(
          answer.status === 200 &&
            answer.json.retrieval_outcome === 'matched' &&
            related[0]?.event_id === EVENT.event_id,
          'expected 200, retrieval_outcome matched, note-1 first',
          answer,
        );
      },
    },
    {
      name: 'delete the namespace (DELETE /api/v1/memory)',
      run: async () => {
        const answer = await call('DELETE', `/api/v1/memory?namespace=${NAMESPACE}`);
        if (answer.status === 202) {
          // A large namespace answers 202 at once and is polled until completed; one record rarely does.
          const id = (answer.json.deletion as { id?: string } | undefined)?.id;
          for (let polls = 0; polls < 60; polls++) {
            const polled = await call('GET', `/api/v1/memory/deletions/${id}`);
            const status = JSON.stringify(polled.json);
            if (status.includes('"status":"completed"') && status.includes('"records_deleted":1')) return;
            await sleep(500);
          }
          throw new Error('deletion accepted (202) but not completed with 1 record within 30 s');
        }
        expectThat(
          answer.status === 200 && answer.json.deleted === 1 && answer.json.state === 'not_retained',
          'expected 200, deleted 1, state not_retained',
          answer,
        );
      },
    },
  ];
}
