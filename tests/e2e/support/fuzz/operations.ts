import type { JsonSchema } from './json-schema-arbitrary.js';

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
const METHODS: readonly Method[] = ['get', 'post', 'put', 'patch', 'delete'];

/** Which credential a route takes, read from its `security` requirement in the document. */
export type CredentialKind = 'public' | 'session' | 'api_key' | 'api_key_or_session';

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  schema: JsonSchema;
}

export interface Operation {
  method: Method;
  path: string;
  /** `POST /api/v1/memory/write`: the test's name and the key of per-route settings. */
  id: string;
  credential: CredentialKind;
  parameters: Parameter[];
  body?: { contentType: string; schema: JsonSchema; required: boolean };
}

export interface OpenApiDocument {
  paths: Record<string, Partial<Record<Method, OperationObject>>>;
  components: { schemas: Record<string, JsonSchema> };
}

interface OperationObject {
  security?: Array<Record<string, string[]>>;
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content: Record<string, { schema: JsonSchema }> };
}

function credentialOf(security: OperationObject['security']): CredentialKind {
  const schemes = new Set((security ?? []).flatMap((requirement) => Object.keys(requirement)));
  const key = schemes.has('bearerAuth') || schemes.has('apiKeyHeader');
  if (key && schemes.has('sessionAuth')) return 'api_key_or_session';
  if (key) return 'api_key';
  if (schemes.has('sessionAuth')) return 'session';
  return 'public';
}

/** Every operation the document lists, in its order. */
export function operationsOf(doc: OpenApiDocument): Operation[] {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    METHODS.flatMap((method) => {
      const operation = item[method];
      if (!operation) return [];
      const [contentType, media] = Object.entries(operation.requestBody?.content ?? {})[0] ?? [];
      return [
        {
          method,
          path,
          id: `${method.toUpperCase()} ${path}`,
          credential: credentialOf(operation.security),
          parameters: operation.parameters ?? [],
          ...(contentType && media
            ? {
                body: {
                  contentType,
                  schema: media.schema,
                  required: operation.requestBody?.required ?? false,
                },
              }
            : {}),
        },
      ];
    }),
  );
}
