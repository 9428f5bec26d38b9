import {
  CHAT_MODEL_OWNER,
  CHAT_MODELS,
  CHAT_MODELS_CREATED,
  type ChatCompletion,
  type ChatCompletionChunk,
  ChatCompletionRequest,
  type ChatModel,
  type ModelEntry,
  parseOrThrow,
} from '@tm/contracts';
import { type Response, Router } from 'express';
import type { MemoryClient } from '../../../clients/memory-client.js';
import { completeChat, modelOrThrow } from '../../../domain/data-plane/complete-chat.js';
import { type AuthDeps, requireApiKey, scopeOf } from '../middleware/authenticate.js';
import { jsonBody } from '../middleware/json-body.js';
import { noteForRecord } from '../middleware/record-requests.js';

const modelEntry = (model: ChatModel): ModelEntry => ({
  id: model.id,
  object: 'model',
  created: CHAT_MODELS_CREATED,
  owned_by: CHAT_MODEL_OWNER,
  text_memory: { model_kind: model.kind, recall_top_k: model.recall_top_k },
});

/**
 * `/v1/chat/completions` and `/v1/models`. A completion reads and writes the conversation
 * memory, so it takes `memory:recall` and `memory:write`; the model list takes `memory:recall`. Their
 * errors keep OpenAI's shape (middleware/answer-shape.ts).
 */
export function chatRoutes(memory: MemoryClient, auth: AuthDeps): Router {
  const router = Router();

  router.post(
    '/chat/completions',
    requireApiKey(auth, ['memory:recall', 'memory:write']),
    ...jsonBody,
    async (req, res) => {
      const body = parseOrThrow(ChatCompletionRequest, req.body, 'chat completion request');
      const { completion, record } = await completeChat(
        { scope: scopeOf(req), requestId: req.requestId, body },
        { memory },
      );
      noteForRecord(req, record);
      if (body.stream) streamCompletion(res, completion, body.stream_options?.include_usage === true);
      else res.json(completion);
    },
  );

  router.get('/models', requireApiKey(auth, 'memory:recall'), (_req, res) => {
    res.json({ object: 'list', data: CHAT_MODELS.map(modelEntry) });
  });

  router.get('/models/:model', requireApiKey(auth, 'memory:recall'), (req, res) => {
    res.json(modelEntry(modelOrThrow(String(req.params.model))));
  });

  return router;
}

/** Words with their following space, so the chunks concatenate to the reply exactly. */
const pieces = (text: string) => text.match(/\S+\s*/g) ?? [text];

/**
 * `stream: true`: the completed reply as server-sent `chat.completion.chunk` events (role first, then
 * the text a few words at a time, then the finish reason with the extension, then usage if asked),
 * ending with `data: [DONE]`. The work is done before the first byte, so failures are plain JSON errors.
 */
function streamCompletion(res: Response, completion: ChatCompletion, includeUsage: boolean): void {
  const base = {
    id: completion.id,
    object: 'chat.completion.chunk' as const,
    created: completion.created,
    model: completion.model,
    system_fingerprint: completion.system_fingerprint,
  };
  const chunk = (
    delta: ChatCompletionChunk['choices'][number]['delta'],
    finish: 'stop' | null,
    extra: Partial<ChatCompletionChunk> = {},
  ): ChatCompletionChunk => ({
    ...base,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    ...(includeUsage ? { usage: null } : {}),
    ...extra,
  });
  const content = completion.choices[0]?.message.content ?? '';
  const words = pieces(content);
  const events: ChatCompletionChunk[] = [chunk({ role: 'assistant', content: '' }, null)];
  for (let i = 0; i < words.length; i += 4) {
    events.push(chunk({ content: words.slice(i, i + 4).join('') }, null));
  }
  events.push(chunk({}, 'stop', { text_memory: completion.text_memory }));
  if (includeUsage) events.push({ ...base, choices: [], usage: completion.usage });

  res.status(200);
  res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
  res.setHeader('Cache-Control', 'no-cache');
  res.setHeader('X-Accel-Buffering', 'no');
  for (const event of events) res.write(`data: ${JSON.stringify(event)}\n\n`);
  res.end('data: [DONE]\n\n');
}
