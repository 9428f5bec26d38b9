import { CONTRACT_VERSION } from '@tm/contracts';
import type { RequestHandler } from 'express';

/** Paths of the versioned API; the OpenAI-compatible routes mark themselves (`res.locals.openAiErrors`). */
const VERSIONED = /^\/(api\/)?v1\//i;
const DOCUMENT = /^\/api\/v1\/openapi\.json\/?$/i;

/**
 * The spec: "Responses include an explicit contract version". Every JSON object answered under
 * `/api/v1/` and `/v1/`, successes and errors alike, carries `contract_version` first, set here once
 * rather than by each route (before [P14] errors, control-plane and template answers lacked it). The
 * OpenAI-compatible routes keep OpenAI's shape, and the OpenAPI document is a document, not an answer
 * (decisions.md, [P14]). First in the chain, so even a request refused at the door is answered with it.
 */
export const contractVersion: RequestHandler = (req, res, next) => {
  if (!VERSIONED.test(req.path) || DOCUMENT.test(req.path)) {
    next();
    return;
  }
  const json = res.json.bind(res);
  res.json = (body?: unknown) => {
    const plain = body !== null && typeof body === 'object' && !Array.isArray(body);
    return json(plain && !res.locals.openAiErrors ? { contract_version: CONTRACT_VERSION, ...body } : body);
  };
  next();
};
