import {
  CONTRACT_VERSION,
  isOpenAiCompatiblePath,
  OPENAPI_DOCUMENT_PATH,
  pathTemplatePattern,
} from '@tm/contracts';
import type { RequestHandler } from 'express';

/** Paths of the versioned API. */
const VERSIONED = /^\/(api\/)?v1\//i;
/** The OpenAPI document is a document, not an answer. */
const DOCUMENT = pathTemplatePattern(OPENAPI_DOCUMENT_PATH);

/**
 * The shape of every JSON answer, decided by its path before anything can answer (a refused
 * X-Request-Id is answered before any route runs):
 * - the OpenAI-compatible routes keep OpenAI's shape, errors included (`error` as the object its
 *   clients read; the error handler looks at `openAiErrors`), with no `contract_version` at the top
 *   (a completion names it in `text_memory`);
 * - every other JSON object under `/api/v1/` and `/v1/`, successes and errors alike, carries
 *   `contract_version` first (the spec: "Responses include an explicit contract version"), set here
 *   once rather than by each route: once, errors, control-plane and template answers lacked it.
 */
export const answerShape: RequestHandler = (req, res, next) => {
  if (isOpenAiCompatiblePath(req.path)) {
    res.locals.openAiErrors = true;
    next();
    return;
  }
  if (!VERSIONED.test(req.path) || DOCUMENT.test(req.path)) {
    next();
    return;
  }
  const json = res.json.bind(res);
  res.json = (body?: unknown) => {
    const plain = body !== null && typeof body === 'object' && !Array.isArray(body);
    return json(plain ? { contract_version: CONTRACT_VERSION, ...body } : body);
  };
  next();
};
