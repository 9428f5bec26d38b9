import { buildOpenApiDocument } from '@tm/contracts';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ROUTE_KEYS, routeOperationOf } from '../src/entry-points/http/route-operations.js';

const METHODS = new Set(['get', 'post', 'put', 'patch', 'delete']);

describe('the route table of request records', () => {
  it('when held to the OpenAPI document, then it names every documented route and nothing else but the reference pages and /mcp', () => {
    const documented = Object.entries(buildOpenApiDocument().paths ?? {}).flatMap(([path, item]) =>
      Object.keys(item as object)
        .filter((method) => METHODS.has(method))
        .map((method) => `${method.toUpperCase()} ${path}`),
    );
    // The liveness probe is answered before any record is made (decisions/reliability.md).
    const recorded = documented.filter((route) => route !== 'GET /api/v1/infrastructure/health/live');

    expect([...ROUTE_KEYS].sort()).toEqual(
      [...recorded, 'GET /api/v1/docs', 'GET /api/v1/docs/{asset}', 'POST /mcp'].sort(),
    );
  });

  it('when a path has a literal segment where a template has a parameter, then the literal route wins', () => {
    expect(routeOperationOf('POST', '/api/v1/control/sessions')).toEqual({
      route: '/api/v1/control/sessions',
      operation: 'control.sessions.create',
    });
    expect(routeOperationOf('DELETE', '/api/v1/control/sessions/current')?.operation).toBe(
      'control.sessions.delete',
    );
  });

  it('when any id is in a path, then the record keeps the template, never the id', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[^/?#]{1,300}$/), (id) => {
        expect(routeOperationOf('POST', `/api/v1/control/api-keys/${id}/rotate`)).toEqual({
          route: '/api/v1/control/api-keys/{id}/rotate',
          operation: 'control.api_keys.rotate',
        });
        expect(routeOperationOf('GET', `/api/v1/control/${id}/nowhere`)).toBeUndefined();
      }),
    );
  });

  it('when HEAD asks, or a path differs in case or a trailing slash, then it is the route Express serves', () => {
    expect(routeOperationOf('HEAD', '/API/v1/Infrastructure/health/')?.operation).toBe(
      'infrastructure.health',
    );
  });
});
