import fc from 'fast-check';
import type { JsonSchema, Mutated, SchemaArbitraries, SchemaMutation } from './json-schema-arbitrary.js';
import type { Operation, Parameter } from './operations.js';

/**
 * Which credential a request carries. `right`: the kind the route's security names (an API key for
 * the data plane, a session for the control plane); `wrong_kind`: the other one, valid; `garbage`:
 * something shaped like a credential that no deployment issued.
 */
export type CredentialChoice =
  | { kind: 'right'; via: 'bearer' | 'x-api-key'; prefer: 'api_key' | 'session' }
  | { kind: 'none' }
  | { kind: 'garbage'; header: 'authorization' | 'x-api-key'; value: string }
  | { kind: 'wrong_kind' };

export type FuzzBody =
  | { kind: 'none' }
  | { kind: 'json'; value: unknown }
  | { kind: 'raw'; data: string; contentType: string }
  | { kind: 'multipart'; fields: Record<string, string>; file?: { name: string; content: string } };

/** What makes an input one the document refuses: a value that breaks its schema, or the request's shape. */
export type InputMutation =
  | SchemaMutation
  | 'malformed JSON'
  | 'wrong content type'
  | 'hostile path encoding'
  | 'query parameter repeated'
  /** A value generated as valid that the document's validator refuses all the same (a generator's gap). */
  | 'other schema violation';

/** A generated part of a request, and what, if anything, the document refuses in it. */
type Part<T> = T & { mutation?: InputMutation | undefined };

/** One generated request, before the world's real credentials are put in at send time. */
export interface FuzzRequest {
  credential: CredentialChoice;
  /** Path parameters, already percent-encoded (some on purpose badly). */
  path: Record<string, string>;
  query: Array<[string, string]>;
  headers: Record<string, string>;
  /** `unique`: a well-formed X-Request-Id made unique at send time, so answers and charges can be matched. */
  requestId: 'none' | 'unique' | 'malformed';
  body: FuzzBody;
  /** What the document refuses in the path, query or body, each kind once; empty for a valid input. */
  mutations: InputMutation[];
  /** False when a path, query or body value breaks the document's schema: the answer must be a 4xx. */
  valid: boolean;
}

const hex = (n: number) =>
  fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: n, maxLength: n });

/** What a client with no valid credential might still send. */
const garbageCredential: fc.Arbitrary<CredentialChoice> = fc.record({
  kind: fc.constant('garbage' as const),
  header: fc.constantFrom('authorization' as const, 'x-api-key' as const),
  value: fc.oneof(
    hex(32).map((h) => `tmk_${h}`),
    hex(40).map((h) => `eyJhbGciOiJIUzI1NiJ9.${h}.${h.slice(0, 16)}`),
    // Long enough to be noted by the run's log leak check, printable so Node will send it.
    fc.stringMatching(/^[\x21-\x7e]{24,80}$/),
  ),
});

function credentialArbitrary(operation: Operation): fc.Arbitrary<CredentialChoice> {
  const none = fc.constant<CredentialChoice>({ kind: 'none' });
  if (operation.credential === 'public') return fc.oneof(none, garbageCredential);
  const right = fc.record({
    kind: fc.constant('right' as const),
    via:
      operation.credential === 'session'
        ? fc.constant('bearer' as const)
        : fc.constantFrom('bearer' as const, 'x-api-key' as const),
    prefer:
      operation.credential === 'api_key_or_session'
        ? fc.constantFrom('api_key' as const, 'session' as const)
        : fc.constant(operation.credential === 'session' ? ('session' as const) : ('api_key' as const)),
  });
  const choices = [
    { arbitrary: right as fc.Arbitrary<CredentialChoice>, weight: 6 },
    { arbitrary: none, weight: 1 },
    { arbitrary: garbageCredential, weight: 1 },
  ];
  if (operation.credential !== 'api_key_or_session') {
    choices.push({ arbitrary: fc.constant<CredentialChoice>({ kind: 'wrong_kind' }), weight: 1 });
  }
  return fc.oneof(...choices);
}

/** Percent-encodings a client library would not make: malformed, NUL, overlong UTF-8, dot segments. */
const HOSTILE_SEGMENTS = ['%zz', '%00', 'a%00b', '%C0%AE', '%E0%A4%A', '..', '%2e%2e', '%ff', 'not-a-uuid'];

function pathValue(parameter: Parameter, schemas: SchemaArbitraries): fc.Arbitrary<Part<{ value: string }>> {
  const valid = schemas
    .valid(parameter.schema, parameter.name)
    .map((v) => ({ value: encodeURIComponent(String(v)) }));
  const hostile = fc.constantFrom(...HOSTILE_SEGMENTS).map((value) => ({
    value,
    // A free-form name can be "not-a-uuid" or ".."; an id with a pattern cannot be any of these.
    mutation:
      !hasConstraints(parameter.schema) && !value.includes('%')
        ? undefined
        : ('hostile path encoding' as const),
  }));
  const broken = hasConstraints(parameter.schema)
    ? [
        schemas
          .invalid(parameter.schema)
          .map((m) => ({ value: encodeURIComponent(String(m.value)), mutation: m.mutation })),
      ]
    : [];
  // An empty segment is another route (`/users/` is not `/users/{id}`), not a value of this one.
  return fc
    .oneof({ arbitrary: valid, weight: 4 }, { arbitrary: hostile, weight: 1 }, ...broken)
    .filter((v) => v.value.length > 0);
}

const hasConstraints = (schema: JsonSchema) =>
  schema.pattern !== undefined || schema.format !== undefined || schema.enum !== undefined;

const QUERY_NOISE: Mutated[] = [
  ...['abc', '1.5', '', 'null', '[]'].map((value): Mutated => ({ value, mutation: 'wrong type' })),
  ...['-1', '1e400', '99999999999999999999'].map((value): Mutated => ({ value, mutation: 'bound crossed' })),
];

/** One query parameter: left out, a valid value, a bad one, or sent twice. */
function queryValue(parameter: Parameter, schemas: SchemaArbitraries) {
  const schema = schemas.resolve(parameter.schema);
  const allowsList = (schema.anyOf ?? []).some((branch) => branch.type === 'array');
  const asQuery = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : [String(v)]);
  type Sent = Part<{ values: string[] }>;
  const dropped = parameter.required ? ('required field dropped' as const) : undefined;
  const left = fc.constant<Sent>({ values: [], mutation: dropped });
  const good = schemas
    .valid(schema, parameter.name)
    .map((v): Sent => ({ values: asQuery(v), mutation: asQuery(v).length > 0 ? undefined : dropped }));
  // A query value is text: for a text parameter only text can be wrong (7 is the valid "7"); for a
  // number, text that is no number is wrong too.
  const numeric = schema.type === 'integer' || schema.type === 'number';
  const wrong = schemas
    .invalid(schema)
    .filter(({ value }) => typeof value === 'string' || (numeric && typeof value === 'number'));
  const bad = (numeric ? fc.oneof(wrong, fc.constantFrom(...QUERY_NOISE)) : wrong).map(
    (m): Sent => ({ values: [String(m.value)], mutation: m.mutation }),
  );
  const twice = good.map(
    (sent): Sent => ({
      values: [...sent.values, ...sent.values],
      mutation: allowsList || sent.values.length === 0 ? sent.mutation : 'query parameter repeated',
    }),
  );
  // Mostly fine: with six parameters (billing charges), one bad in four left almost nothing valid.
  return fc.oneof(
    { arbitrary: left, weight: 3 },
    { arbitrary: good, weight: 6 },
    { arbitrary: bad, weight: 1 },
    { arbitrary: twice, weight: 1 },
  );
}

/** Header values Node will send: printable ASCII and Latin-1, tabs and spaces inside. */
const oddHeader = fc.oneof(
  fc
    .string({ unit: fc.constantFrom(...' \tabc-é\u00ff"%'), minLength: 1, maxLength: 20 })
    .map((s) => `x${s}x`),
  fc.constant('h'.repeat(300)),
);

/** What Node's HTTP client will put in a header (it throws on anything else, NUL and newlines first). */
const SENDABLE_HEADER = /^[\t\x20-\x7e\x80-\xff]*$/;

function headerValue(parameter: Parameter, schemas: SchemaArbitraries) {
  const good = schemas
    .valid(parameter.schema, parameter.name)
    .map(String)
    .filter((value) => SENDABLE_HEADER.test(value));
  return fc.option(fc.oneof({ arbitrary: good, weight: 3 }, { arbitrary: oddHeader, weight: 1 }), {
    nil: undefined,
    freq: parameter.required ? 8 : 2,
  });
}

const MALFORMED_JSON = ['{', '{"a":', '[1,', 'nul', '{"a":1}{', '\u0000', '"unterminated'];

function jsonBodyArbitrary(
  operation: Operation,
  schemas: SchemaArbitraries,
  accepts: (v: unknown) => boolean,
) {
  const schema = operation.body?.schema ?? {};
  type Sent = Part<{ body: FuzzBody }>;
  // A mutation can land inside an `anyOf` and be accepted after all: the validator has the last word.
  const tagged = (arbitrary: fc.Arbitrary<Mutated | { value: unknown; mutation?: undefined }>) =>
    arbitrary.map(
      ({ value, mutation }): Sent => ({
        body: { kind: 'json', value },
        mutation: accepts(value) ? undefined : (mutation ?? 'other schema violation'),
      }),
    );
  const raw = fc
    .oneof(
      fc
        .constantFrom(...MALFORMED_JSON)
        .map((data) => ({ data, contentType: 'application/json', mutation: 'malformed JSON' as const })),
      ...['text/plain', 'application/x-www-form-urlencoded'].map((contentType) =>
        schemas
          .valid(schema)
          .map((v) => ({ data: JSON.stringify(v), contentType, mutation: 'wrong content type' as const })),
      ),
    )
    .map(({ mutation, ...raw }): Sent => ({ body: { kind: 'raw', ...raw }, mutation }));
  const none = fc.constant<Sent>({
    body: { kind: 'none' },
    mutation: operation.body?.required ? 'required field dropped' : undefined,
  });
  return fc.oneof(
    { arbitrary: tagged(schemas.valid(schema).map((value) => ({ value }))), weight: 4 },
    { arbitrary: tagged(schemas.invalid(schema)), weight: 4 },
    { arbitrary: raw, weight: 1 },
    { arbitrary: none, weight: 1 },
  );
}

const FILE_CONTENT = [
  'note\nfirst\nsecond\n',
  '[{"note":"a"},{"note":"b"}]',
  '{"note":"a"}\n{"note":"b"}\n',
  'PK\u0003\u0004garbage',
  '',
];

/** The import upload: the form's text fields as the schema says, then a file part (or none). */
function multipartArbitrary(operation: Operation, schemas: SchemaArbitraries) {
  const schema = schemas.resolve(operation.body?.schema ?? {});
  const textFields = Object.entries(schema.properties ?? {}).filter(([name]) => name !== 'file');
  const fields = fc.record(
    Object.fromEntries(textFields.map(([name, s]) => [name, schemas.valid(s, name).map(String)])),
    { requiredKeys: [] },
  ) as fc.Arbitrary<Record<string, string>>;
  const file = fc.record({
    name: fc.constantFrom('notes.csv', 'notes.json', 'notes.xlsx', 'notes.txt', 'notes'),
    content: fc.oneof(fc.constantFrom(...FILE_CONTENT), fc.string({ maxLength: 40 })),
  });
  return fc.tuple(fields, fc.option(file, { nil: undefined, freq: 5 })).map(
    ([f, upload]): Part<{ body: FuzzBody }> => ({
      body: { kind: 'multipart', fields: f, ...(upload ? { file: upload } : {}) },
      mutation: upload ? undefined : 'required field dropped',
    }),
  );
}

/** Routes without a body in the document are sent one now and then: it must not matter. */
const strayBody = fc.oneof(
  { arbitrary: fc.constant<Part<{ body: FuzzBody }>>({ body: { kind: 'none' } }), weight: 4 },
  {
    arbitrary: fc
      .jsonValue({ maxDepth: 1 })
      .map((value): Part<{ body: FuzzBody }> => ({ body: { kind: 'json', value } })),
    weight: 1,
  },
);

function bodyArbitrary(operation: Operation, schemas: SchemaArbitraries, accepts: (v: unknown) => boolean) {
  if (!operation.body) return strayBody;
  if (operation.body.contentType === 'multipart/form-data') {
    return fc.oneof(
      { arbitrary: multipartArbitrary(operation, schemas), weight: 4 },
      {
        // JSON where the route takes a form: refused whatever it holds.
        arbitrary: jsonBodyArbitrary(operation, schemas, () => false).map((sent) =>
          sent.body.kind === 'none' ? sent : { ...sent, mutation: 'wrong content type' as const },
        ),
        weight: 1,
      },
    );
  }
  return jsonBodyArbitrary(operation, schemas, accepts);
}

/** Every input of one operation, valid and not, with every kind of credential. */
export function requestArbitrary(
  operation: Operation,
  schemas: SchemaArbitraries,
  acceptsBody: (value: unknown) => boolean,
): fc.Arbitrary<FuzzRequest> {
  const byLocation = (location: Parameter['in']) => operation.parameters.filter((p) => p.in === location);
  const path = fc.record(Object.fromEntries(byLocation('path').map((p) => [p.name, pathValue(p, schemas)])));
  const query = fc.record(
    Object.fromEntries(byLocation('query').map((p) => [p.name, queryValue(p, schemas)])),
  );
  const headers = fc.record(
    Object.fromEntries(
      byLocation('header')
        .filter((p) => p.name !== 'X-Request-Id')
        .map((p) => [p.name, headerValue(p, schemas)]),
    ),
  );
  return fc
    .record({
      credential: credentialArbitrary(operation),
      path,
      query,
      headers,
      requestId: fc.constantFrom('none' as const, 'unique' as const, 'malformed' as const),
      body: bodyArbitrary(operation, schemas, acceptsBody),
    })
    .map((r) => {
      const parts: Array<Part<object>> = [...Object.values(r.path), ...Object.values(r.query), r.body];
      const mutations = [...new Set(parts.flatMap((part) => (part.mutation ? [part.mutation] : [])))];
      return {
        credential: r.credential,
        path: Object.fromEntries(Object.entries(r.path).map(([name, v]) => [name, v.value])),
        query: Object.entries(r.query).flatMap(([name, v]) =>
          v.values.map((value): [string, string] => [name, value]),
        ),
        headers: Object.fromEntries(
          Object.entries(r.headers).filter((e): e is [string, string] => e[1] !== undefined),
        ),
        requestId: r.requestId,
        body: r.body.body,
        mutations,
        valid: mutations.length === 0,
      };
    });
}
