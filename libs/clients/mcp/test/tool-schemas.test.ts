import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { TextMemory } from '@text-memory/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createServer } from '../src/server.js';

// The tools as an MCP client lists them (tm-mcp and the service's /mcp register the same definitions):
// every input and output schema must be one that clients which read `type` as a single string can
// use. zod writes `.nullable()` as `type: ["string", "null"]` and `z.unknown()` as `{}`; the MCP
// Inspector warns of both, and some clients reject the tool or drop the constraint. A nullable output
// field is optional instead (absent when null), so the answers below are checked for that too.

/** Keywords that make a schema constrain its value; a schema with none accepts anything. */
const CONSTRAINING = ['type', 'enum', 'const', 'anyOf', 'oneOf', 'allOf', '$ref', 'not'];
const SUBSCHEMA = ['items', 'additionalProperties', 'propertyNames', 'not', 'contains'];
const SUBSCHEMA_LISTS = ['anyOf', 'oneOf', 'allOf', 'prefixItems'];
const SUBSCHEMA_MAPS = ['properties', '$defs', 'definitions'];

const admitsNull = (branch: unknown) => {
  if (typeof branch !== 'object' || branch === null) return false;
  const { type, const: constant } = branch as { type?: unknown; const?: unknown };
  return type === 'null' || (Array.isArray(type) && type.includes('null')) || constant === null;
};

/** What is unportable in `schema` and its subschemas, by path; empty when nothing is. */
function unportable(schema: unknown, path: string): string[] {
  // `additionalProperties: true` and the like are booleans, not schemas to read.
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return [];
  const node = schema as Record<string, unknown>;
  const found: string[] = [];
  if (Array.isArray(node.type)) found.push(`${path}: type is an array, ${JSON.stringify(node.type)}`);
  if (node.type === 'null') found.push(`${path}: type is null`);
  if ('nullable' in node) found.push(`${path}: nullable`);
  for (const key of ['anyOf', 'oneOf']) {
    const branches = node[key];
    if (Array.isArray(branches) && branches.some(admitsNull))
      found.push(`${path}: ${key} with a null branch`);
  }
  if (!CONSTRAINING.some((key) => key in node)) found.push(`${path}: constrains nothing`);
  for (const key of SUBSCHEMA) found.push(...unportable(node[key], `${path}.${key}`));
  for (const key of SUBSCHEMA_LISTS) {
    const list = node[key];
    if (Array.isArray(list))
      for (const [i, sub] of list.entries()) found.push(...unportable(sub, `${path}.${key}[${i}]`));
  }
  for (const key of SUBSCHEMA_MAPS) {
    const map = node[key];
    if (typeof map === 'object' && map !== null)
      for (const [name, sub] of Object.entries(map)) found.push(...unportable(sub, `${path}.${key}.${name}`));
  }
  return found;
}

const STATUS = {
  status: 'ok',
  available: true,
  services: { memory: { available: true, required: true } },
  monitoring: { state: 'unavailable', anomaly_count: null },
  consent: { state: 'granted' },
  execution_mode: 'mock',
  deployment_version: '0.0.0',
  request_id: 'req_status',
};
const NOT_RETAINED = {
  state: 'not_retained',
  memory_id: null,
  event_id: 'evt_1',
  namespace: 'notes',
  idempotency_outcome: 'Accepted',
  decision: { value: 'not_retained' },
  supersession: [],
  request_id: 'req_write',
};

const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

/** A client connected to the tools, over an SDK client whose fetch answers from `answers` by path. */
async function connect(answers: Record<string, unknown> = {}) {
  const fetch = async (url: string | URL | Request) => {
    const body = answers[new URL(String(url)).pathname];
    return body === undefined
      ? new Response('{}', { status: 404 })
      : new Response(JSON.stringify(body), { headers: { 'content-type': 'application/json' } });
  };
  const tm = new TextMemory({ baseUrl: 'http://127.0.0.1:9', apiKey: 'tmk_test', fetch, maxRetries: 0 });
  const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
  await createServer(tm).connect(serverSide);
  const client = new Client({ name: 'tool-schemas-test', version: '1.0.0' });
  await client.connect(clientSide);
  clients.push(client);
  return client;
}

describe('the tools’ schemas', () => {
  it('when a schema has a nullable field, a null branch or an unknown value, then the walk finds each', () => {
    const fromZod = z.toJSONSchema(z.object({ a: z.string().nullable(), b: z.unknown() }), { io: 'input' });
    const written = {
      type: 'object',
      properties: {
        c: { anyOf: [{ type: 'string' }, { type: 'null' }] },
        d: { type: 'string', nullable: true },
      },
    };

    expect(unportable(fromZod, 'x')).toEqual([
      'x.properties.a: type is an array, ["string","null"]',
      'x.properties.b: constrains nothing',
    ]);
    expect(unportable(written, 'y')).toEqual([
      'y.properties.c: anyOf with a null branch',
      'y.properties.c.anyOf[1]: type is null',
      'y.properties.d: nullable',
    ]);
  });

  it('when the tools are listed, then no input or output schema has a null type, a nullable, a null branch or a part that constrains nothing', async () => {
    const client = await connect();

    const { tools } = await client.listTools();

    expect(tools).toHaveLength(7);
    const findings = tools.flatMap((tool) => [
      ...unportable(tool.inputSchema, `${tool.name}.inputSchema`),
      ...unportable(tool.outputSchema, `${tool.name}.outputSchema`),
    ]);
    expect(findings).toEqual([]);
    for (const tool of tools) expect(tool.outputSchema, tool.name).toMatchObject({ type: 'object' });
  });

  it('when a write is not retained, then remember’s structuredContent leaves out memory_id and decision_reason instead of null', async () => {
    const client = await connect({ '/api/v1/memory/write': NOT_RETAINED });
    await client.listTools();

    // The official client checks structuredContent against the listed output schema (an error if not).
    const result = await client.callTool({
      name: 'remember',
      arguments: { text: 'Ana', namespace: 'notes' },
    });

    expect(result.isError ?? false).toBe(false);
    expect(result.structuredContent).toEqual({
      state: 'not_retained',
      event_id: 'evt_1',
      namespace: 'notes',
      idempotency_outcome: 'Accepted',
      decision: 'not_retained',
      supersession: [],
      request_id: 'req_write',
    });
  });

  it('when monitoring has no count and the server no default namespace, then status leaves both out instead of null', async () => {
    const client = await connect({ '/api/v1/infrastructure/status': STATUS });
    await client.listTools();

    const result = await client.callTool({ name: 'status', arguments: {} });

    expect(result.isError ?? false).toBe(false);
    expect(result.structuredContent).toMatchObject({ monitoring: { state: 'unavailable' } });
    expect(result.structuredContent).not.toHaveProperty('monitoring.anomaly_count');
    expect(result.structuredContent).not.toHaveProperty('default_namespace');
  });
});
