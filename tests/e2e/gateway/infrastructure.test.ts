import { describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.js';
import { useStack } from '../support/stack.js';

const t = useStack();

describe('GET /api/v1/infrastructure/health', () => {
  it('when every service answers, then available is true with deployment and schema versions', async () => {
    // As in health.test.ts: on shared cores a freshly started service's first ping (or a consumer's lag
    // read) can miss its deadline, which is rightly not "ok"; ask until every one has answered in time.
    const res = await eventually(async () => {
      const res = await t.api.get('/api/v1/infrastructure/health');
      expect(res.body.status).toBe('ok');
      return res;
    });
    expect(res).toMatchObject({
      status: 200,
      body: {
        status: 'ok',
        available: true,
        execution_mode: 'mock',
        contract_version: 'v1',
        production_ready: false,
        services: {
          memory: { available: true },
          billing: { available: true },
          telemetry: { available: true },
          template: { available: true },
          webhooks: { available: true },
          gateway_store: { available: true },
        },
      },
    });
    expect(Date.parse(res.body.checked_at)).not.toBeNaN();
  });
});

describe('GET /api/v1/infrastructure/capabilities', () => {
  it('then it lists the spec capability table, live operations, guarantees and production_ready false', async () => {
    const res = await t.api.get('/api/v1/infrastructure/capabilities');
    expect(res.status).toBe(200);
    expect(res.body.production_ready).toBe(false);
    const statuses = Object.fromEntries(
      res.body.capabilities.map((c: { title: string; status: string }) => [c.title, c.status]),
    );
    expect(statuses).toEqual({
      'Text persistence': 'available_mock',
      'Lexical retrieval': 'available_mock',
      'Stored-text rendering': 'available_mock',
      'Embeddings and vector search': 'not_deployed',
      'Traversal and mapping': 'contract_stage',
      'Customer-owned storage execution': 'control_plane_only',
      'Managed external language model': 'not_available',
      'Physical inputs': 'research',
      'Learned memory model execution': 'not_deployed',
    });
    expect(res.body.operations.map((o: { operation: string }) => o.operation)).toEqual([
      'memory.write',
      'memory.write_batch',
      'memory.recall',
      'memory.delete',
      'memory.restore',
    ]);
    expect(res.body.guarantees.some((g: string) => g.startsWith('read_after_write'))).toBe(true);
  });

  it('when the runtime ranks by weighted terms, then its version, meaning, order and limitations say so together', async () => {
    const res = await t.api.get('/api/v1/infrastructure/capabilities');

    expect(res.body.runtime).toMatchObject({
      provider: 'service-local-mock',
      model_version: 'deterministic-lexical-v2',
    });
    expect(
      res.body.capabilities.find((c: { name: string }) => c.name === 'lexical_retrieval').meaning,
    ).toMatch(/stemmed \(Snowball English\).*inverse document frequency/);
    expect(res.body.guarantees).toContain(
      'deterministic_ranking: the same retained text and cue always rank in the same order (score desc, tie_break desc, occurred_at desc, event_id asc)',
    );
    expect(res.body.limitations).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^Ranking is English-stemmed/),
        expect.stringMatching(/score for the same cue changes as the namespace grows/),
        expect.stringMatching(/ranks by its old index until it is re-indexed/),
      ]),
    );
  });
});

describe('GET /api/v1/openapi.json', () => {
  it('then it is an OpenAPI 3.1 document whose version is the schema version health reports', async () => {
    const doc = await t.api.get('/api/v1/openapi.json');
    const health = await t.api.get('/api/v1/infrastructure/health');
    expect(doc.body.openapi).toBe('3.1.0');
    expect(doc.body.info.version).toBe(health.body.schema_version);
    expect(Object.keys(doc.body.paths)).toEqual(
      expect.arrayContaining([
        '/api/v1/memory/write',
        '/api/v1/memory/recall',
        '/api/v1/memory',
        '/api/v1/infrastructure/health',
        '/v1/templates',
        '/v1/templates/{template_name_or_id}',
        '/v1/marketplace/templates',
        '/v1/marketplace/templates/{marketplace_template_id}',
        '/v1/memories',
        '/v1/memories/{memory_id}',
      ]),
    );
  });

  it('then a browsable reference page is served', async () => {
    const res = await t.api.get('/api/v1/docs/');
    expect(res.status).toBe(200);
    expect(res.type).toBe('text/html');
  });
});

describe('request ids and unknown routes', () => {
  it('when X-Request-Id holds spaces, then it is kept and echoed', async () => {
    const res = await t.api.get('/api/v1/infrastructure/health', {
      headers: { 'X-Request-Id': 'an id with spaces' },
    });
    expect(res.headers['x-request-id']).toBe('an id with spaces');
  });

  it('when X-Request-Id holds a control character, then 400 naming the header, under a fresh id (it was once swapped silently)', async () => {
    const res = await t.api.get('/api/v1/infrastructure/health', {
      headers: { 'X-Request-Id': 'bad\tid' },
    });
    expect(res).toMatchObject({
      status: 400,
      body: { error: 'Invalid X-Request-Id header: must be 1–200 printable ASCII characters' },
    });
    expect(res.headers['x-request-id']).toMatch(/^req_[0-9a-f-]{36}$/);
  });

  it('when a route does not exist, then 404 in the error envelope', async () => {
    const res = await t.api.get('/api/v1/nothing-here');
    expect(res).toMatchObject({
      status: 404,
      body: { error: expect.any(String), retryable: false, details: { code: 'not_found' } },
    });
    expect(res.body.details.request_id).toBe(res.headers['x-request-id']);
  });
});
