import { writeRequests } from './memory-api.js';
import { runLoad } from './run-load.js';
import type { TextCorpus } from './text-corpus.js';

export interface SeedOutcome {
  retained: number;
  seconds: number;
  rps: number;
  failed: number;
}

/**
 * Grow `namespace` by `count` retained records through the write API, `connections` writes at a
 * time, each with a unique idempotency key and a fresh corpus text. Writes that were not retained
 * (errors, 5xx under load) are topped up, a few rounds at most, so the namespace reaches its size.
 */
export async function seedNamespace(
  target: { baseUrl: string; apiKey: string; namespace: string; keyPrefix: string },
  corpus: TextCorpus,
  count: number,
  connections: number,
  onProgress: (message: string) => void = () => {},
): Promise<SeedOutcome> {
  const requests = writeRequests(target.apiKey, target.namespace, corpus, target.keyPrefix);
  let retained = 0;
  let failed = 0;
  let seconds = 0;
  for (let round = 1; retained < count && round <= 5; round++) {
    const amount = count - retained;
    const run = await runLoad(requests, {
      baseUrl: target.baseUrl,
      connections: Math.min(connections, amount),
      amount,
    });
    retained += run.ok;
    failed += amount - run.ok;
    seconds += run.seconds;
    onProgress(
      `seeded ${retained}/${count} into ${target.namespace} (${run.rps.toFixed(0)} writes/s` +
        `${run.ok < amount ? `, ${amount - run.ok} not retained: ${JSON.stringify(run.statusCodes)}` : ''})`,
    );
  }
  if (retained < count)
    throw new Error(`Seeding ${target.namespace} stopped at ${retained}/${count} records`);
  return { retained, seconds, rps: retained / seconds, failed };
}
