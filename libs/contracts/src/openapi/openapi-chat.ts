import { z } from 'zod';
import type { ZodOpenApiPathsObject, ZodOpenApiResponsesObject } from 'zod-openapi';
import {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionRequest,
  ModelEntry,
  ModelList,
  OpenAiErrorEnvelope,
} from '../memory/chat.js';
import { json, requestIdHeaders } from './openapi-shared.js';

const apiKey: Array<Record<string, string[]>> = [{ bearerAuth: [] }, { apiKeyHeader: [] }];

/** The OpenAI-compatible routes answer failures with `OpenAiErrorEnvelope` (`error` is an object). */
const openAiErrors = (...statuses: number[]): ZodOpenApiResponsesObject =>
  Object.fromEntries(
    statuses.map((s) => [
      String(s),
      { description: `Error (OpenAI-compatible body; status ${s})`, ...json(OpenAiErrorEnvelope) },
    ]),
  );

/** Chat completions: OpenAI-compatible, answered by the deterministic mock from a conversation memory. */
export const chatPaths: ZodOpenApiPathsObject = {
  '/v1/chat/completions': {
    post: {
      operationId: 'createChatCompletion',
      summary:
        'Chat completion from the conversation memory `memory_id` (memory:write and memory:recall); recalls with the latest user message, retains it, replies deterministically',
      security: apiKey,
      requestParams: { header: requestIdHeaders },
      requestBody: { required: true, ...json(ChatCompletionRequest) },
      responses: {
        '200': {
          description:
            'A `chat.completion`, or with `stream: true` server-sent events, each `data:` a `chat.completion.chunk`, ending with `data: [DONE]`',
          content: {
            'application/json': { schema: ChatCompletion },
            'text/event-stream': { schema: ChatCompletionChunk },
          },
        },
        ...openAiErrors(400, 401, 403, 404, 409, 413, 415, 429, 500, 503, 504),
      },
    },
  },
  '/v1/models': {
    get: {
      operationId: 'listModels',
      summary: 'The documented engines, in the OpenAI list shape (memory:recall)',
      security: apiKey,
      requestParams: { header: requestIdHeaders },
      responses: {
        '200': { description: 'Model list', ...json(ModelList) },
        ...openAiErrors(400, 401, 403, 429, 500, 503),
      },
    },
  },
  '/v1/models/{model}': {
    get: {
      operationId: 'retrieveModel',
      summary: 'One engine (memory:recall)',
      security: apiKey,
      requestParams: { path: z.object({ model: z.string() }), header: requestIdHeaders },
      responses: {
        '200': { description: 'The model', ...json(ModelEntry) },
        ...openAiErrors(400, 401, 403, 404, 429, 500, 503),
      },
    },
  },
};
