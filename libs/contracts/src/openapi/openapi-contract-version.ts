import { UNVERSIONED_PATHS } from '../http/unversioned-routes.js';
import { CONTRACT_VERSION } from '../runtime.js';

type Schema = {
  $ref?: string;
  type?: string;
  properties?: Record<string, unknown>;
  required?: string[];
};
// As loose as the generated document's types allow: this walks it as plain JSON.
type Document = { paths?: object; components?: { schemas?: object } };

const VERSION_PROPERTY = {
  type: 'string',
  const: CONTRACT_VERSION,
  description:
    'The contract version of this answer (the spec: "Responses include an explicit contract version")',
};

const withVersion = (schema: Schema): Schema => ({
  ...schema,
  properties: { contract_version: VERSION_PROPERTY, ...schema.properties },
  required: ['contract_version', ...(schema.required ?? []).filter((r) => r !== 'contract_version')],
});

const componentName = (ref: string) => ref.replace('#/components/schemas/', '');

/** Every `$ref` in a value, by component name, excluding the value itself when it is a reference. */
function nestedRefs(value: unknown, found: Set<string>): void {
  if (Array.isArray(value)) for (const v of value) nestedRefs(v, found);
  else if (value && typeof value === 'object') {
    for (const [key, v] of Object.entries(value)) {
      if (key === '$ref' && typeof v === 'string') found.add(componentName(v));
      else nestedRefs(v, found);
    }
  }
}

/**
 * Declares `contract_version` in every JSON answer of every versioned route (the gateway adds it
 * to each such answer in one place, the gateway's middleware/answer-shape.ts). A component that is the whole answer gets
 * it as a required property; one that is also nested in other schemas (an ApiKey in an ApiKeyList,
 * where no version is repeated) is answered as `<Name>Answer`, a copy that requires it.
 */
export function declareContractVersion<D extends Document>(document: D): D {
  const schemas = (document.components?.schemas ?? {}) as Record<string, Schema>;
  const nested = new Set<string>();
  nestedRefs(schemas, nested);
  // What the unversioned routes answer is part of another shape: left as it is.
  for (const [, media] of answers(document, (path) => UNVERSIONED_PATHS.includes(path))) {
    nestedRefs(media, nested);
  }
  for (const [, media] of answers(document, (path) => !UNVERSIONED_PATHS.includes(path))) {
    if (media.schema) media.schema = versioned(media.schema, schemas, nested);
  }
  return document;
}

/** Each response body's media object of the paths `select` picks. */
function answers(
  document: Document,
  select: (path: string) => boolean,
): Array<[string, { schema?: Schema }]> {
  const found: Array<[string, { schema?: Schema }]> = [];
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    if (!select(path)) continue;
    for (const operation of Object.values(item as object)) {
      const responses = (operation as { responses?: Record<string, unknown> }).responses ?? {};
      for (const response of Object.values(responses)) {
        const content = (response as { content?: Record<string, { schema?: Schema }> }).content;
        for (const media of Object.values(content ?? {})) found.push([path, media]);
      }
    }
  }
  return found;
}

function versioned(schema: Schema, schemas: Record<string, Schema>, nested: Set<string>): Schema {
  if (!schema.$ref) return schema.type === 'object' ? withVersion(schema) : schema;
  const name = componentName(schema.$ref);
  const component = schemas[name];
  if (!component || component.properties?.contract_version) return schema;
  if (!nested.has(name)) {
    schemas[name] = withVersion(component);
    return schema;
  }
  const answer = `${name}Answer`;
  schemas[answer] ??= withVersion(component);
  return { $ref: `#/components/schemas/${answer}` };
}
