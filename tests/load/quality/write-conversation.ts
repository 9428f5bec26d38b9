import { type StackTarget, WRITE_BATCH_PATH, WRITE_BATCH_SIZE } from '../memory-api.js';
import { postJson } from '../post-json.js';
import type { LocomoTurn } from './locomo-dataset.js';

interface BatchAnswer {
  item_counts?: {
    total: number;
    accepted: number;
    replayed: number;
    conflict: number;
    invalid: number;
    failed: number;
  };
  results?: Array<{ index: number; status: number; body: unknown }>;
}

/** Resends of one batch whose items failed retryably (e.g. 409 idempotency_in_flight). */
const ITEM_RETRIES = 5;

/**
 * Write one conversation into `namespace`, one memory per turn, through the batch route, 100 turns a
 * request. Each turn's event id is its dia id (the namespace is the run's own, so ids cannot clash)
 * and its idempotency key is that id under `keyPrefix`, so a batch sent again after a 429, a 5xx or a
 * lost answer writes nothing twice.
 */
export async function writeConversation(
  target: StackTarget,
  namespace: string,
  keyPrefix: string,
  turns: readonly LocomoTurn[],
): Promise<void> {
  for (let from = 0; from < turns.length; from += WRITE_BATCH_SIZE) {
    const items = turns.slice(from, from + WRITE_BATCH_SIZE).map((turn) => ({
      idempotency_key: `${keyPrefix}-${turn.diaId}`,
      event: { event_id: turn.diaId, occurred_at: turn.occurredAt, content: { text: turn.text } },
    }));
    const body = { contract_version: 'v1', namespace, items };
    for (let attempt = 0; ; attempt++) {
      const answer = await postJson<BatchAnswer>(`${target.baseUrl}${WRITE_BATCH_PATH}`, target.apiKey, body);
      const counts = answer.body.item_counts;
      if (answer.status === 200 && counts && counts.accepted + counts.replayed === items.length) break;
      const retryable =
        answer.status === 200 && counts && counts.failed > 0 && counts.conflict + counts.invalid === 0;
      if (!retryable || attempt >= ITEM_RETRIES) {
        const refused = answer.body.results?.find((r) => r.status !== 200);
        throw new Error(
          `Writing ${namespace} turns ${from + 1}-${from + items.length} answered ${answer.status}` +
            ` ${JSON.stringify(counts ?? answer.body)}${refused ? `; first refused item: ${JSON.stringify(refused)}` : ''}`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 500 * (attempt + 1)));
    }
  }
}
