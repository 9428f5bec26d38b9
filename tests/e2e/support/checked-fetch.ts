import type { Api } from './api.js';

/**
 * A fetch for SDK clients in e2e files that checks every JSON answer against the served OpenAPI
 * document, as every supertest call is checked (api.ts). `t.api` is read at call time, once the file's
 * `beforeAll` has set it.
 */
export const contractCheckedFetch =
  (t: { api: Api }): typeof fetch =>
  async (input, init) => {
    const response = await fetch(input, init);
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (response.headers.get('content-type')?.includes('application/json')) {
      const body = await response.clone().json();
      if (t.api.contract.documentedPath(url.pathname))
        t.api.contract.expectResponse(init?.method ?? 'GET', url.pathname, response.status, body);
      else t.api.contract.expectErrorEnvelope(body);
    }
    return response;
  };
