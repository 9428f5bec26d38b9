import type { RequestEvent } from '@tm/contracts';
import pg from 'pg';
import type { Api } from './api.js';
import { eventually } from './eventually.js';
import { stackEnv } from './stack.js';

/** Read-only peek at the telemetry service's database, for what the API must never show (secrets). */
export async function telemetryDbRows<T = Record<string, unknown>>(
  sql: string,
  params: unknown[],
): Promise<T[]> {
  const client = new pg.Client({ connectionString: stackEnv().telemetryDbUrl });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows as T[];
  } finally {
    await client.end();
  }
}

/** Every event of the credential's tenant, newest first, read page by page (limit 500). */
export async function allEvents(api: Api, key: string): Promise<RequestEvent[]> {
  const events: RequestEvent[] = [];
  for (let offset = 0; ; offset += 500) {
    const res = await api.get('/api/v1/infrastructure/events', {
      key,
      query: { limit: '500', offset: String(offset) },
    });
    if (res.status !== 200) throw new Error(`events: ${res.status} ${JSON.stringify(res.body)}`);
    events.push(...(res.body.data as RequestEvent[]));
    if (!res.body.paging.has_more) return events;
  }
}

/**
 * The tenant's events once at least `count` of them satisfy `ready` (records are published after
 * the answer and stored by a consumer, so they arrive a little later). Throws after EVENTUALLY.
 */
export async function eventsWhen(
  api: Api,
  key: string,
  ready: (events: RequestEvent[]) => boolean,
): Promise<RequestEvent[]> {
  const read = await eventually(async () => {
    const read = await allEvents(api, key).then(
      (events) => ({ events }),
      (failed: Error) => ({ failed }),
    );
    if ('failed' in read) {
      // A retryable refusal (telemetry's breaker still open after a test's outage) is not an answer yet.
      const { message } = read.failed;
      if (/^events: 50[34] /.test(message) && message.includes('"retryable":true')) throw read.failed;
      return read; // any other is: thrown below
    }
    if (!ready(read.events)) throw new Error(`events did not arrive; have ${read.events.length}`);
    return read;
  });
  if ('failed' in read) throw read.failed;
  return read.events;
}

/** Wait until every request id has at least one event; returns all of the tenant's events. */
export const eventsFor = (api: Api, key: string, requestIds: string[]) =>
  eventsWhen(api, key, (events) => requestIds.every((id) => events.some((e) => e.request_id === id)));
