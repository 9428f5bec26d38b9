/**
 * The OpenAI-compatible routes, as the OpenAPI document names them. Their answers keep OpenAI's shape
 * (its clients read `choices`, `data`, `error.message`; a completion names the contract version in
 * `text_memory.contract_version`), and they take the query parameters and fields OpenAI's clients send.
 * The one list: the gateway's answer shape and query check and the document's versioning read it.
 */
export const OPENAI_COMPATIBLE_PATHS: readonly string[] = [
  '/v1/chat/completions',
  '/v1/models',
  '/v1/models/{model}',
];

/** The OpenAPI document: a document, not an answer. */
export const OPENAPI_DOCUMENT_PATH = '/api/v1/openapi.json';

/** Routes whose answers carry no top-level `contract_version`. */
export const UNVERSIONED_PATHS: readonly string[] = [...OPENAI_COMPATIBLE_PATHS, OPENAPI_DOCUMENT_PATH];

/**
 * A path template (`/v1/models/{model}`) as a pattern for request paths: a `{…}` segment is any one
 * segment, a trailing slash is allowed, and case is ignored, as Express routes match.
 */
export function pathTemplatePattern(template: string): RegExp {
  const segments = template
    .split('/')
    .map((s) => (/^\{.+\}$/.test(s) ? '[^/]+' : s.replace(/[.*+?^$()|[\]\\]/g, '\\$&')));
  return new RegExp(`^${segments.join('/')}/?$`, 'i');
}

const OPENAI_PATTERNS = OPENAI_COMPATIBLE_PATHS.map(pathTemplatePattern);

/** Is this request path one of the OpenAI-compatible routes? */
export const isOpenAiCompatiblePath = (path: string): boolean => OPENAI_PATTERNS.some((p) => p.test(path));
