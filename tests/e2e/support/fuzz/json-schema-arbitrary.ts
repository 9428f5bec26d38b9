import fc from 'fast-check';

/** The part of JSON Schema 2020-12 the OpenAPI document's request schemas use (zod-openapi's output). */
export interface JsonSchema {
  $ref?: string;
  type?: string | string[];
  const?: unknown;
  enum?: unknown[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  not?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
}

/** How a value breaks its schema: the bad-input classes the fuzz report counts (fuzz-tally.ts). */
export type SchemaMutation =
  | 'wrong type'
  | 'bound crossed'
  | 'pattern or enum broken'
  | 'required field dropped'
  | 'unknown field';

/** A value the schema should refuse, and how it was made. */
export interface Mutated {
  value: unknown;
  mutation: SchemaMutation;
}

const as =
  (mutation: SchemaMutation) =>
  (value: unknown): Mutated => ({ value, mutation });

/** Hints per property name: real values (ids, names) that reach further into a route than random ones. */
export type KnownValues = Record<string, readonly unknown[]>;

/** Longest random string or array generated where the schema allows more; the bound itself is tried too. */
const SMALL = 12;

/**
 * fast-check arbitraries for what a schema accepts and for what it refuses, built from the schema
 * alone so every route of the document is covered without a hand-written generator per route.
 * "Refuses" is best effort (a mutation can land inside an `anyOf`); callers tag each value with a
 * real validator before relying on it.
 */
export class SchemaArbitraries {
  constructor(
    private readonly components: Record<string, JsonSchema>,
    private readonly known: KnownValues = {},
  ) {}

  resolve(schema: JsonSchema): JsonSchema {
    if (!schema.$ref) return schema;
    const name = schema.$ref.replace('#/components/schemas/', '');
    const target = this.components[name];
    if (!target) throw new Error(`unresolved $ref ${schema.$ref}`);
    return this.resolve(target);
  }

  valid(input: JsonSchema, name?: string): fc.Arbitrary<unknown> {
    const schema = this.resolve(input);
    const generated = this.validBySchema(schema);
    const known = name ? this.known[name] : undefined;
    if (!known?.length) return generated;
    return fc.oneof({ arbitrary: fc.constantFrom(...known), weight: 3 }, { arbitrary: generated, weight: 1 });
  }

  private validBySchema(schema: JsonSchema): fc.Arbitrary<unknown> {
    if ('const' in schema) return fc.constant(schema.const);
    if (schema.enum) return fc.constantFrom(...schema.enum);
    const branches = schema.anyOf ?? schema.oneOf;
    if (branches) return fc.oneof(...branches.map((b) => this.valid(b)));
    if (Array.isArray(schema.type)) {
      return fc.oneof(...schema.type.map((type) => this.validBySchema({ ...schema, type })));
    }
    switch (schema.type ?? (schema.properties ? 'object' : undefined)) {
      case 'string':
        return validString(schema);
      case 'integer':
        return fc.integer({ min: schema.minimum ?? -1_000_000, max: schema.maximum ?? 1_000_000 });
      case 'number':
        return fc.double({ min: schema.minimum ?? -1e9, max: schema.maximum ?? 1e9, noNaN: true });
      case 'boolean':
        return fc.boolean();
      case 'null':
        return fc.constant(null);
      case 'array':
        return fc.array(this.valid(schema.items ?? {}), {
          minLength: schema.minItems ?? 0,
          maxLength: Math.max(schema.minItems ?? 0, Math.min(schema.maxItems ?? SMALL, 4)),
        });
      case 'object':
        return this.validObject(schema);
      default:
        return fc.jsonValue({ maxDepth: 2 });
    }
  }

  private validObject(schema: JsonSchema): fc.Arbitrary<Record<string, unknown>> {
    const entries = Object.entries(schema.properties ?? {}).filter(([, s]) => !s.not);
    const model = Object.fromEntries(entries.map(([key, s]) => [key, this.valid(s, key)]));
    const record = fc.record(model, { requiredKeys: schema.required ?? [] });
    const extra = schema.additionalProperties;
    if (extra === false || extra === undefined) return record;
    // Open objects (template data, chat bodies): a few keys of their own, as a caller would send.
    const extras = fc.dictionary(
      fc.string({ minLength: 1, maxLength: SMALL }),
      extra === true ? fc.jsonValue({ maxDepth: 2 }) : this.valid(extra),
      { maxKeys: 3 },
    );
    return fc.tuple(extras, record).map(([more, base]) => ({ ...more, ...base }));
  }

  /** Values the schema refuses: the wrong type, a bound crossed, a required key gone, an unknown key. */
  invalid(input: JsonSchema): fc.Arbitrary<Mutated> {
    const schema = this.resolve(input);
    const options: fc.Arbitrary<Mutated>[] = [wrongType(schema).map(as('wrong type'))];
    if (schema.type === 'string' && !('const' in schema) && !schema.enum)
      options.push(...invalidStrings(schema));
    if ('const' in schema || schema.enum) {
      options.push(
        fc
          .string({ maxLength: SMALL })
          .filter((s) => !(schema.enum ?? [schema.const]).includes(s))
          .map(as('pattern or enum broken')),
      );
    }
    if (schema.type === 'integer' || schema.type === 'number') options.push(invalidNumbers(schema));
    if (schema.type === 'array') options.push(...this.invalidArrays(schema));
    if (schema.type === 'object' || schema.properties) options.push(...this.invalidObjects(schema));
    if (schema.anyOf ?? schema.oneOf) {
      options.push(...(schema.anyOf ?? schema.oneOf ?? []).map((branch) => this.invalid(branch)));
    }
    return fc.oneof(...options);
  }

  private invalidArrays(schema: JsonSchema): fc.Arbitrary<Mutated>[] {
    const item = schema.items ?? {};
    const options: fc.Arbitrary<Mutated>[] = [
      fc
        .tuple(this.valid(item), this.invalid(item))
        .map(([good, bad]) => ({ ...bad, value: [good, bad.value] })),
    ];
    if (schema.minItems) options.push(fc.constant([]).map(as('bound crossed')));
    if (schema.maxItems !== undefined) {
      const max = schema.maxItems;
      options.push(
        this.valid(item)
          .map((v) => Array.from({ length: max + 1 }, () => v))
          .map(as('bound crossed')),
      );
    }
    return options;
  }

  private invalidObjects(schema: JsonSchema): fc.Arbitrary<Mutated>[] {
    const base = this.validObject(schema);
    const options: fc.Arbitrary<Mutated>[] = (schema.required ?? []).map((key) =>
      base.map(({ [key]: _gone, ...rest }) => rest).map(as('required field dropped')),
    );
    if (schema.additionalProperties === false) {
      options.push(base.map((v) => ({ ...v, unexpected_field: 'x' })).map(as('unknown field')));
    }
    for (const [key, property] of Object.entries(schema.properties ?? {})) {
      // A property the schema forbids (`not`): any value of it is a field the route does not take.
      const bad = property.not
        ? fc.jsonValue({ maxDepth: 1 }).map(as('unknown field'))
        : this.invalid(property);
      options.push(fc.tuple(base, bad).map(([v, b]) => ({ ...b, value: { ...v, [key]: b.value } })));
    }
    return options;
  }
}

function validString(schema: JsonSchema): fc.Arbitrary<string> {
  const min = schema.minLength ?? 0;
  const max = schema.maxLength ?? 4096;
  const fits = (s: string) => s.length >= min && s.length <= max;
  if (schema.pattern) return fc.stringMatching(new RegExp(schema.pattern)).filter(fits);
  const small = Math.max(min, Math.min(max, SMALL));
  return fc.oneof(
    { arbitrary: fc.string({ minLength: min, maxLength: small }), weight: 4 },
    // Any code point, lone surrogates included: what JSON can carry and a database may not.
    { arbitrary: fc.string({ unit: 'binary', minLength: min, maxLength: small }), weight: 2 },
    // Not a run of one letter: the run's credential leak check would find the weak password
    // `aaaaaaaaaaaa` (password-strength.test.ts, refused but noted as sent) inside it in the access log.
    { arbitrary: fc.constant('ab'.repeat(Math.ceil(max / 2)).slice(0, max)), weight: 1 },
  );
}

function invalidStrings(schema: JsonSchema): fc.Arbitrary<Mutated>[] {
  const options: fc.Arbitrary<Mutated>[] = [];
  if (schema.maxLength !== undefined)
    options.push(fc.constant('z'.repeat(schema.maxLength + 1)).map(as('bound crossed')));
  if (schema.minLength) options.push(fc.constant('z'.repeat(schema.minLength - 1)).map(as('bound crossed')));
  if (schema.pattern) {
    const pattern = new RegExp(schema.pattern);
    options.push(
      fc
        .string({ unit: 'binary', maxLength: SMALL })
        .filter((s) => !pattern.test(s))
        .map(as('pattern or enum broken')),
    );
  }
  return options;
}

function invalidNumbers(schema: JsonSchema): fc.Arbitrary<Mutated> {
  const options: fc.Arbitrary<Mutated>[] = [
    fc.constantFrom(1e308, -1e308, 2 ** 53 + 2).map(as('bound crossed')),
  ];
  if (schema.minimum !== undefined) options.push(fc.constant(schema.minimum - 1).map(as('bound crossed')));
  if (schema.maximum !== undefined) options.push(fc.constant(schema.maximum + 1).map(as('bound crossed')));
  // 7.5 where an integer goes: a number, but not of the schema's type.
  if (schema.type === 'integer') options.push(fc.constant((schema.minimum ?? 0) + 0.5).map(as('wrong type')));
  return fc.oneof(...options);
}

/** A JSON value of another type than the schema's (a string where an object goes, and so on). */
function wrongType(schema: JsonSchema): fc.Arbitrary<unknown> {
  const types = Array.isArray(schema.type) ? schema.type : [schema.type ?? 'object'];
  const samples: Array<[string, unknown]> = [
    ['null', null],
    ['boolean', true],
    ['integer', 7],
    ['number', 2.5],
    ['string', 'not the right type'],
    ['array', ['x']],
    ['object', { unexpected: 1 }],
  ];
  const others = samples
    .filter(([type]) => !types.includes(type) && !(type === 'integer' && types.includes('number')))
    .map(([, value]) => value);
  return fc.constantFrom(...others);
}
