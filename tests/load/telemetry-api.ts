import type { LoadRequest } from './run-load.js';

/** The read routes an operator's dashboard polls, each as a load request. */
export function telemetryReads(apiKey: string): Array<[label: string, request: LoadRequest]> {
  const headers = { authorization: `Bearer ${apiKey}` };
  const get = (path: string): LoadRequest => ({ method: 'GET', path, headers });
  return [
    ['events, first page of 100', get('/api/v1/infrastructure/events')],
    ['metrics, last 60 min', get('/api/v1/infrastructure/metrics?window_minutes=60')],
    ['anomalies, last 15 min', get('/api/v1/infrastructure/anomalies?window_minutes=15')],
    ['status', get('/api/v1/infrastructure/status')],
  ];
}

/** How many records the key's tenant has in its history (events `paging.total`). */
export async function historySize(baseUrl: string, apiKey: string): Promise<number> {
  const res = await fetch(`${baseUrl}/api/v1/infrastructure/events?limit=1`, {
    headers: { authorization: `Bearer ${apiKey}` },
  });
  if (!res.ok) throw new Error(`events answered ${res.status}`);
  const body = (await res.json()) as { paging: { total: number } };
  return body.paging.total;
}

/** The request id of one request made with the key (the status route), to find its telemetry record. */
export async function lastRequestId(baseUrl: string, apiKey: string): Promise<string> {
  const res = await fetch(`${baseUrl}/api/v1/infrastructure/status`, {
    headers: { authorization: `Bearer ${apiKey}` },
  });
  const id = res.headers.get('x-request-id');
  if (!res.ok || !id) throw new Error(`status answered ${res.status} without a request id`);
  return id;
}
