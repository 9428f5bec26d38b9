import request from 'supertest';
import type { FuzzWorld } from './fuzz-world.js';
import type { Operation } from './operations.js';
import type { FuzzRequest } from './request-arbitrary.js';

let sequence = 0;

/** The concrete path: the template with the request's (already encoded) parameters in it. */
export const concretePath = (operation: Operation, fuzz: FuzzRequest) =>
  operation.path.replace(/\{([^}]+)\}/g, (_, name: string) => fuzz.path[name] ?? '');

/** The request's headers with the world's real credentials put in where the request asks for them. */
function credentialHeaders(
  operation: Operation,
  fuzz: FuzzRequest,
  world: FuzzWorld,
): Record<string, string> {
  const { credential } = fuzz;
  switch (credential.kind) {
    case 'none':
      return {};
    case 'garbage':
      return {
        [credential.header]:
          credential.header === 'authorization' ? `Bearer ${credential.value}` : credential.value,
      };
    case 'wrong_kind':
      return { authorization: `Bearer ${operation.credential === 'session' ? world.apiKey : world.session}` };
    case 'right': {
      if (credential.prefer === 'session') return { authorization: `Bearer ${world.session}` };
      return credential.via === 'x-api-key'
        ? { 'x-api-key': world.apiKey }
        : { authorization: `Bearer ${world.apiKey}` };
    }
  }
}

/** Sends one generated request through HTTP, as any client would. */
export async function sendFuzzRequest(
  baseUrl: string,
  operation: Operation,
  fuzz: FuzzRequest,
  world: FuzzWorld,
) {
  const query = new URLSearchParams(fuzz.query).toString();
  const url = `${concretePath(operation, fuzz)}${query ? `?${query}` : ''}`;
  let req = request(baseUrl)[operation.method](url);
  const headers: Record<string, string> = { ...fuzz.headers, ...credentialHeaders(operation, fuzz, world) };
  if (fuzz.requestId === 'unique') headers['X-Request-Id'] = `fuzz-${process.pid}-${++sequence}`;
  if (fuzz.requestId === 'malformed') headers['X-Request-Id'] = `bad id ${sequence} <script>`;
  for (const [name, value] of Object.entries(headers)) req = req.set(name, value);
  const { body } = fuzz;
  if (body.kind === 'json')
    req = req.set('Content-Type', 'application/json').send(JSON.stringify(body.value) ?? 'null');
  if (body.kind === 'raw') req = req.set('Content-Type', body.contentType).send(body.data);
  if (body.kind === 'multipart') {
    for (const [name, value] of Object.entries(body.fields)) req = req.field(name, value);
    if (body.file) req = req.attach('file', Buffer.from(body.file.content), body.file.name);
  }
  return { url, response: await req };
}
