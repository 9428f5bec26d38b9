/**
 * Routes of the served OpenAPI document that take something a tenant owns, so a test can hold its
 * table of cross-tenant cases to the document: a route added to the document without a case fails.
 */
interface Schema {
  $ref?: string;
  properties?: Record<string, unknown>;
  allOf?: Schema[];
  oneOf?: Schema[];
  anyOf?: Schema[];
}
interface Operation {
  parameters?: Array<{ name?: string; in?: string }>;
  requestBody?: { content?: Record<string, { schema?: Schema }> };
}
export interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, Schema> };
}

const METHODS = new Set(['get', 'post', 'put', 'patch', 'delete']);
/** Body fields that name a partition of the caller's memory: `namespace`, or chat's `memory_id` (`chat/<memory_id>`). */
const NAMESPACE_FIELDS = ['namespace', 'memory_id'];

function operations(doc: OpenApiDocument) {
  return Object.entries(doc.paths).flatMap(([path, byMethod]) =>
    Object.entries(byMethod)
      .filter(([method]) => METHODS.has(method))
      .map(([method, operation]) => ({ route: `${method.toUpperCase()} ${path}`, path, operation })),
  );
}

function propertyNames(doc: OpenApiDocument, schema: Schema | undefined, depth = 0): string[] {
  if (!schema || depth > 5) return [];
  const resolved = schema.$ref
    ? doc.components?.schemas?.[schema.$ref.replace('#/components/schemas/', '')]
    : schema;
  if (!resolved) return [];
  const nested = [...(resolved.allOf ?? []), ...(resolved.oneOf ?? []), ...(resolved.anyOf ?? [])];
  return [
    ...Object.keys(resolved.properties ?? {}),
    ...nested.flatMap((part) => propertyNames(doc, part, depth + 1)),
  ];
}

/** `METHOD /path` of every operation whose path has a parameter (`/users/{id}`). */
export function routesWithPathParameters(doc: OpenApiDocument): string[] {
  return operations(doc)
    .filter(({ path }) => path.includes('{'))
    .map(({ route }) => route);
}

/** `METHOD /path` of every operation that takes a namespace: as a parameter or a request body field. */
export function routesTakingNamespace(doc: OpenApiDocument): string[] {
  return operations(doc)
    .filter(({ operation }) => {
      const inParameters = (operation.parameters ?? []).some((p) => p.name === 'namespace');
      const inBody = Object.values(operation.requestBody?.content ?? {}).some(({ schema }) =>
        propertyNames(doc, schema).some((name) => NAMESPACE_FIELDS.includes(name)),
      );
      return inParameters || inBody;
    })
    .map(({ route }) => route);
}
