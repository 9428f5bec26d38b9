import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { expect } from 'vitest';

// ajv-formats is CommonJS; its default export arrives wrapped under ESM.
type AddFormats = (ajv: Ajv2020) => Ajv2020;
const addFormats = ((addFormatsModule as unknown as { default?: AddFormats }).default ??
  addFormatsModule) as unknown as AddFormats;

type OpenApiDoc = { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };

export const escapePointer = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * Validates responses against the OpenAPI document the gateway serves, so a route and its
 * description cannot drift apart: an undocumented status or a field outside the schema fails.
 */
export class ContractValidator {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true });
  private readonly cache = new Map<string, ValidateFunction>();

  constructor(private readonly doc: OpenApiDoc) {
    addFormats(this.ajv);
    this.ajv.addSchema({ ...doc, $id: 'openapi.json' });
  }

  /** A response to an undocumented path must still be the error envelope. */
  expectErrorEnvelope(body: unknown) {
    const validate = this.compile('envelope', 'openapi.json#/components/schemas/ErrorEnvelope');
    expect(validate(body), `not an error envelope: ${this.ajv.errorsText(validate.errors)}`).toBe(true);
  }

  /** The document's path template a concrete path falls under (`/x/{id}` for `/x/42`), if any. */
  documentedPath(path: string): string | undefined {
    const bare = path.split('?')[0] ?? path;
    if (bare in this.doc.paths) return bare;
    return Object.keys(this.doc.paths).find((template) =>
      new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(bare),
    );
  }

  private compile(id: string, ref: string): ValidateFunction {
    let validate = this.cache.get(id);
    if (!validate) {
      validate = this.ajv.compile({ $ref: ref });
      this.cache.set(id, validate);
    }
    return validate;
  }

  /**
   * Whether the document's schema at `pointer` (a JSON pointer into it, e.g. an operation's request
   * body) accepts `value`; the fuzzer tags its own inputs with this.
   */
  accepts(pointer: string, value: unknown): boolean {
    return this.compile(`accepts ${pointer}`, `openapi.json#${pointer}`)(value) === true;
  }

  /** For answers without a JSON body (204, an event stream): the status alone is held to the document. */
  expectDocumentedStatus(method: string, concretePath: string, status: number) {
    const path = this.documentedPath(concretePath) ?? concretePath;
    const operation = this.doc.paths[path]?.[method.toLowerCase()];
    expect(operation, `${method} ${path} is not in the OpenAPI document`).toBeDefined();
    expect(
      Object.keys(operation?.responses ?? {}),
      `${method} ${path} does not document status ${status}`,
    ).toContain(String(status));
    return path;
  }

  expectResponse(method: string, concretePath: string, status: number, body: unknown) {
    const path = this.expectDocumentedStatus(method, concretePath, status);
    const id = `${method} ${path} ${status}`;
    const validate = this.compile(
      id,
      `openapi.json#/paths/${escapePointer(path)}/${method.toLowerCase()}/responses/${status}/content/application~1json/schema`,
    );
    const ok = validate(body);
    expect(ok, `${id} body does not match the document: ${this.ajv.errorsText(validate.errors)}`).toBe(true);
  }
}

/** An answer as a list shows it: a list carries `contract_version` once, not in each item. */
export function asListed<T extends object>(answer: T): Omit<T, 'contract_version'> {
  const { contract_version: _, ...item } = answer as T & { contract_version?: unknown };
  return item;
}
