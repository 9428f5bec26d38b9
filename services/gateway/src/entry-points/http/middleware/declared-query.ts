import {
  AppError,
  buildOpenApiDocument,
  ErrorCode,
  OPENAI_COMPATIBLE_PATHS,
  pathTemplatePattern,
} from '@tm/contracts';
import type { RequestHandler } from 'express';

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
/** Unknown parameters named in one answer at most, as for NUL characters. */
const MAX_NAMED = 20;

interface Operation {
  pattern: RegExp;
  /** `{…}` segments: a literal route (`/sessions/current`) is tried before a templated one. */
  variables: number;
  query: Set<string>;
}

type Parameter = { in?: string; name?: string; $ref?: string };

/** Every documented operation's path as a pattern, with the query parameters it declares, by method. */
function declaredOperations(): Map<string, Operation[]> {
  const document = buildOpenApiDocument();
  const shared = (document.components?.parameters ?? {}) as Record<string, Parameter>;
  const byMethod = new Map<string, Operation[]>();
  for (const [template, item] of Object.entries(document.paths ?? {})) {
    // OpenAI's clients send query parameters of their own; these routes take what they send.
    if (OPENAI_COMPATIBLE_PATHS.includes(template)) continue;
    const segments = template.split('/');
    // Case-insensitive, as Express routes match: `/API/V1/…` reaches the same route.
    const pattern = pathTemplatePattern(template);
    const variables = segments.filter((s) => s.startsWith('{')).length;
    for (const method of METHODS) {
      const operation = item?.[method];
      if (!operation) continue;
      const parameters = (operation.parameters ?? []) as Parameter[];
      const query = parameters
        .map((p) => (p.$ref ? shared[p.$ref.split('/').pop() as string] : p))
        .filter((p): p is Parameter => p?.in === 'query')
        .map((p) => p.name as string);
      const list = byMethod.get(method.toUpperCase()) ?? [];
      list.push({ pattern, variables, query: new Set(query) });
      byMethod.set(method.toUpperCase(), list);
    }
  }
  for (const list of byMethod.values()) list.sort((a, b) => a.variables - b.variables);
  return byMethod;
}

/**
 * A query parameter the route's OpenAPI operation does not declare is refused (400 naming it), as an
 * unknown body field is: `GET /api/v1/control/api-keys?limit=5` answering every key would let a
 * client believe it paged. The document is built from the schemas the routes validate with, so it is
 * the one list of what each route takes. Routes with a query schema refuse unknown parameters there
 * too; this covers the routes that take none. Paths no operation matches are left to the 404.
 */
export function refuseUndeclaredQuery(): RequestHandler {
  const operations = declaredOperations();
  return (req, _res, next) => {
    const names = Object.keys(req.query as Record<string, unknown>);
    if (names.length === 0) return next();
    // Express answers HEAD with the GET route (the body left out): it takes the same parameters.
    const method = req.method === 'HEAD' ? 'GET' : req.method;
    const operation = operations.get(method)?.find((o) => o.pattern.test(req.path));
    const unknown = operation ? names.filter((name) => !operation.query.has(name)) : [];
    if (unknown.length === 0) return next();
    const fields = unknown.slice(0, MAX_NAMED).map((path) => ({ path, message: 'is not a known field' }));
    throw new AppError(ErrorCode.ValidationFailed, 'Unknown query parameter', { fields });
  };
}
