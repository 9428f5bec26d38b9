import type { RequestEvent } from '@tm/contracts';
import pg from 'pg';
import type { Api } from './api.js';
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
 * the answer and stored by a consumer, so they arrive a little later). Throws after ~10 s.
 */
export async function eventsWhen(
  api: Api,
  key: string,
  ready: (events: RequestEvent[]) => boolean,
): Promise<RequestEvent[]> {
  let events: RequestEvent[] = [];
  for (let attempt = 0; attempt < 100; attempt++) {
    // A retryable refusal (telemetry's breaker still open after a test's outage) is not an answer yet.
    const read = await allEvents(api, key).catch((err: Error) => {
      if (/^events: 50[34] /.test(err.message) && err.message.includes('"retryable":true')) return undefined;
      throw err;
    });
    if (read !== undefined) events = read;
    if (read !== undefined && ready(events)) return events;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`events did not arrive; have ${events.length}`);
}

/** Wait until every request id has at least one event; returns all of the tenant's events. */
export const eventsFor = (api: Api, key: string, requestIds: string[]) =>
  eventsWhen(api, key, (events) => requestIds.every((id) => events.some((e) => e.request_id === id)));
