import request from 'supertest';
import { ContractValidator } from './contract.js';
import { recordSecrets, secretsInBody, secretsInHeaders } from './log-capture.js';

export interface CallOptions {
  /** Sent as `Authorization: Bearer …`: an API key or a session token. */
  key?: string;
  body?: unknown;
  headers?: Record<string, string>;
  query?: Record<string, string | string[]>;
  /** Raw body sent as-is (malformed JSON, wrong content type). */
  raw?: { data: string; contentType: string };
}

/**
 * The tests' only door into the system: HTTP through the gateway. Every response to a documented
 * route is checked against the served OpenAPI document before the test sees it.
 */
export async function createApi(baseUrl: string) {
  const docResponse = await request(baseUrl).get('/api/v1/openapi.json');
  const contract = new ContractValidator(docResponse.body);

  async function call(
    method: 'get' | 'post' | 'delete' | 'put' | 'patch',
    path: string,
    options: CallOptions = {},
  ) {
    let req = request(baseUrl)[method](path);
    if (options.key) req = req.set('Authorization', `Bearer ${options.key}`);
    for (const [name, value] of Object.entries(options.headers ?? {})) req = req.set(name, value);
    if (options.query) req = req.query(options.query);
    if (options.raw) req = req.set('Content-Type', options.raw.contentType).send(options.raw.data);
    else if (options.body !== undefined) req = req.send(options.body as object);
    const res = await req;
    // Every credential this call carried, for the run's log leak check (credential-leak-check.ts).
    recordSecrets([
      options.key,
      ...secretsInHeaders(options.headers),
      ...secretsInBody(options.body),
      ...secretsInBody(res.body),
    ]);
    if (res.type === 'application/json') {
      if (contract.documentedPath(path)) contract.expectResponse(method, path, res.status, res.body);
      else contract.expectErrorEnvelope(res.body);
    }
    return res;
  }

  return {
    contract,
    get: (path: string, o?: CallOptions) => call('get', path, o),
    post: (path: string, o?: CallOptions) => call('post', path, o),
    delete: (path: string, o?: CallOptions) => call('delete', path, o),
    put: (path: string, o?: CallOptions) => call('put', path, o),
    patch: (path: string, o?: CallOptions) => call('patch', path, o),
    write: (key: string, body: unknown, idempotencyKey?: string, headers: Record<string, string> = {}) =>
      call('post', '/api/v1/memory/write', {
        key,
        body,
        headers: idempotencyKey ? { 'Idempotency-Key': idempotencyKey, ...headers } : headers,
      }),
    /** Log in and return the session token. */
    login: async (email: string, password: string) => {
      const res = await call('post', '/api/v1/control/sessions', { body: { email, password } });
      if (res.status !== 201) throw new Error(`login failed: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body.token as string;
    },
    recall: (key: string, body: unknown) => call('post', '/api/v1/memory/recall', { key, body }),
    deleteNamespace: (key: string, namespace: string) =>
      call('delete', '/api/v1/memory', { key, query: { namespace } }),
    /** A namespace deletion's receipt as it stands (the status route a 202's Location names). */
    deletion: (key: string, id: string) => call('get', `/api/v1/memory/deletions/${id}`, { key }),
  };
}
export type Api = Awaited<ReturnType<typeof createApi>>;
