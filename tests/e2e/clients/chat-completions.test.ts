import { randomUUID } from 'node:crypto';
import type { ChatMemoryExtension } from '@tm/contracts';
import OpenAI from 'openai';
import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionCreateParamsNonStreaming,
} from 'openai/resources/chat/completions';
import { describe, expect, it } from 'vitest';
import { KEY_NOT_ACCEPTED, NO_CREDENTIAL } from '../support/credential-refusals.js';
import { createTenant, recallBody } from '../support/factories.js';
import { useStack } from '../support/stack.js';
import { eventsFor } from '../support/telemetry.js';

const t = useStack();

const NO_MEMORY = 'I have no retained memory in this conversation that relates to your message yet.';
const uniqueMemoryId = (label = 'conv') => `${label}-${randomUUID().slice(0, 8)}`;

const clientFor = (apiKey: string) =>
  new OpenAI({ baseURL: `${t.stack.url}/v1`, apiKey, maxRetries: 0, timeout: 20_000 });

/** The client's completion with this service's namespaced extension, which its types do not know. */
type MemoryCompletion = ChatCompletion & { text_memory: ChatMemoryExtension };
const complete = async (client: OpenAI, params: ChatCompletionCreateParamsNonStreaming) =>
  (await client.chat.completions.create(params)) as MemoryCompletion;

/** `memory_id` is this service's extension of the body; the client sends unknown fields as they are. */
const chatParams = (
  memoryId: string,
  messages: Array<{ role: 'user' | 'assistant' | 'system'; content: string }>,
  model = 'tm-standard-1',
) => ({ model, messages, memory_id: memoryId }) as ChatCompletionCreateParamsNonStreaming;

/** No model runs, whatever engine is named: the spec's `Unspecified` (it once said the engine's kind). */
const provenance = {
  execution_mode: 'mock',
  model_execution: false,
  model_variant: 'Unspecified',
};

describe('POST /v1/chat/completions (official openai client)', () => {
  it('when a conversation starts, then a chat.completion answers with the reply where the client expects it', async () => {
    const tenant = await createTenant();
    const memoryId = uniqueMemoryId();

    const completion = await clientFor(tenant.api_key).chat.completions.create(
      chatParams(memoryId, [
        { role: 'system', content: 'You are a helpful assistant.' },
        { role: 'user', content: 'My favourite colour is teal.' },
      ]),
    );

    expect(completion).toMatchObject({
      id: expect.stringMatching(/^chatcmpl-[0-9a-f]{32}$/),
      object: 'chat.completion',
      created: expect.any(Number),
      model: 'tm-standard-1',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: NO_MEMORY, refusal: null },
          finish_reason: 'stop',
        },
      ],
      // Prompt: 1 per message + 6 + 6 ('You are a helpful assistant.'); the reply: 14 words and a period.
      usage: { prompt_tokens: 14, completion_tokens: 15, total_tokens: 29 },
      text_memory: {
        memory_id: memoryId,
        namespace: `chat/${memoryId}`,
        provenance,
        recalled_memory_ids: [],
        retained_turn: { state: 'retained', idempotency_outcome: 'Accepted', memory_id: expect.any(String) },
        billing: { billing_state: 'billable', operation_units: 2, sandbox: true },
      },
    });
  });

  it('when stream is true, then chat.completion.chunk events carry the same reply and end with [DONE]', async () => {
    const tenant = await createTenant();
    const client = clientFor(tenant.api_key);
    const told = { role: 'user' as const, content: 'The launch code word is aubergine.' };
    await client.chat.completions.create(chatParams(uniqueMemoryId(), [told]));
    const memoryId = uniqueMemoryId();
    await client.chat.completions.create(chatParams(memoryId, [told]));

    const stream = await client.chat.completions.create({
      ...chatParams(memoryId, [{ role: 'user', content: 'What is the launch code word?' }]),
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks: ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);

    const text = chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
    expect(text).toBe('From memory (1 retained item): [1] The launch code word is aubergine.');
    expect(chunks[0]).toMatchObject({
      object: 'chat.completion.chunk',
      model: 'tm-standard-1',
      choices: [{ index: 0, delta: { role: 'assistant' }, finish_reason: null }],
    });
    expect(chunks.every((c) => c.id === chunks[0]?.id)).toBe(true);
    expect(chunks.at(-2)).toMatchObject({
      choices: [{ delta: {}, finish_reason: 'stop' }],
      text_memory: { provenance, recalled_memory_ids: [expect.any(String)] },
    });
    expect(chunks.at(-1)).toMatchObject({
      choices: [],
      usage: { completion_tokens: expect.any(Number), prompt_tokens: 8 }, // 6 words, '?', 1 for the message
    });
  });

  it('when the raw stream is read, then it is text/event-stream ending with data: [DONE]', async () => {
    const tenant = await createTenant();

    const res = await fetch(`${t.stack.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${tenant.api_key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        model: 'tm-nano-1',
        memory_id: uniqueMemoryId(),
        stream: true,
        messages: [{ role: 'user', content: 'hello' }],
      }),
    });
    const body = await res.text();

    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(body.endsWith('data: [DONE]\n\n')).toBe(true);
    const events = body
      .split('\n\n')
      .filter((e) => e.startsWith('data: {'))
      .map((e) => JSON.parse(e.slice(6)));
    expect(events.map((e) => e.choices[0]?.delta.content ?? '').join('')).toBe(NO_MEMORY);
    expect(events.every((e) => e.object === 'chat.completion.chunk')).toBe(true);
  });

  it('when the same input is sent to two fresh memories, then the reply text is the same', async () => {
    const tenant = await createTenant();
    const client = clientFor(tenant.api_key);
    const seed = 'Our office plant is called Gerald.';
    const ask = 'What is the office plant called?';

    const replies = [];
    for (const memoryId of [uniqueMemoryId(), uniqueMemoryId()]) {
      await client.chat.completions.create(chatParams(memoryId, [{ role: 'user', content: seed }]));
      const answer = await client.chat.completions.create(
        chatParams(memoryId, [{ role: 'user', content: ask }], 'tm-research-1'),
      );
      replies.push(answer.choices[0]?.message.content);
    }

    expect(replies[0]).toBe('From memory (1 retained item): [1] Our office plant is called Gerald.');
    expect(replies[1]).toBe(replies[0]);
  });

  it('when a fact is told in turn 1, then turn 3 cites it, and another memory_id or tenant does not see it', async () => {
    const tenant = await createTenant();
    const other = await createTenant();
    const client = clientFor(tenant.api_key);
    const memoryId = uniqueMemoryId();
    const turn1 = { role: 'user' as const, content: 'My dentist appointment is on Thursday at 3pm.' };
    const turn2 = { role: 'user' as const, content: 'Also remind me to buy oat milk.' };
    const turn3 = { role: 'user' as const, content: 'When is my dentist appointment?' };

    const first = await complete(client, chatParams(memoryId, [turn1]));
    const reply1 = first.choices[0]?.message.content ?? '';
    await client.chat.completions.create(
      chatParams(memoryId, [turn1, { role: 'assistant', content: reply1 }, turn2]),
    );
    const third = await complete(
      client,
      chatParams(memoryId, [turn1, { role: 'assistant', content: reply1 }, turn2, turn3]),
    );
    const elsewhere = await client.chat.completions.create(chatParams(uniqueMemoryId(), [turn3]));
    const otherTenant = await clientFor(other.api_key).chat.completions.create(chatParams(memoryId, [turn3]));

    expect(third.choices[0]?.message.content).toBe(
      'From memory (1 retained item): [1] My dentist appointment is on Thursday at 3pm.',
    );
    expect(third.text_memory).toMatchObject({
      recalled_memory_ids: [first.text_memory.retained_turn.memory_id],
    });
    expect(elsewhere.choices[0]?.message.content).toBe(NO_MEMORY);
    expect(otherTenant.choices[0]?.message.content).toBe(NO_MEMORY);
    // The conversation memory is the namespace chat/<memory_id>: user turns only, never the replies.
    const recall = await t.api.recall(
      tenant.api_key,
      recallBody(`chat/${memoryId}`, 'dentist oat milk memory'),
    );
    expect(recall.body.related.map((r: { text: string }) => r.text).sort()).toEqual(
      [turn1.content, turn2.content, turn3.content].sort(),
    );
  });

  it('when the same call is retried, then the turn is replayed, not written twice, and the reply is the same', async () => {
    const tenant = await createTenant();
    const client = clientFor(tenant.api_key);
    const memoryId = uniqueMemoryId();
    await client.chat.completions.create(
      chatParams(memoryId, [{ role: 'user', content: 'Parcel 7 went to Oslo.' }]),
    );
    const params = chatParams(memoryId, [{ role: 'user', content: 'Where did parcel 7 go?' }]);

    const first = await complete(client, params);
    const retry = await complete(client, params);

    expect(retry.choices[0]?.message.content).toBe(first.choices[0]?.message.content);
    expect(first.text_memory.retained_turn.idempotency_outcome).toBe('Accepted');
    expect(retry.text_memory).toMatchObject({
      retained_turn: {
        idempotency_key: first.text_memory.retained_turn.idempotency_key,
        idempotency_outcome: 'Replayed',
      },
      billing: { operation_units: 1 }, // the recall only
    });
    const recall = await t.api.recall(tenant.api_key, recallBody(`chat/${memoryId}`, 'parcel'));
    expect(recall.body.related).toHaveLength(2);
  });

  it('when the user has not consented, then the reply comes but the turn is not retained', async () => {
    const tenant = await createTenant({ consent: false });

    const completion = await complete(
      clientFor(tenant.api_key),
      chatParams(uniqueMemoryId(), [{ role: 'user', content: 'Remember this please.' }]),
    );

    expect(completion.text_memory).toMatchObject({
      retained_turn: { state: 'not_retained', memory_id: null },
      billing: { billing_state: 'billable', operation_units: 1 },
    });
  });

  it('when a completion is answered, then telemetry records chat.completion with its units', async () => {
    const tenant = await createTenant();
    const requestId = `req-chat-${randomUUID().slice(0, 8)}`;
    const memoryId = uniqueMemoryId('secret');

    const res = await t.api.post('/v1/chat/completions', {
      key: tenant.api_key,
      headers: { 'X-Request-Id': requestId },
      body: { model: 'tm-nano-1', memory_id: memoryId, messages: [{ role: 'user', content: 'hello there' }] },
    });
    const events = await eventsFor(t.api, tenant.api_key, [requestId]);

    expect(res.status).toBe(200);
    expect(events.find((e) => e.request_id === requestId)).toMatchObject({
      method: 'POST',
      route: '/v1/chat/completions',
      operation: 'chat.completion',
      status: 200,
      state: 'retained',
      units: 2,
      billing_state: 'billable',
    });
    expect(JSON.stringify(events)).not.toContain(memoryId);
  });
});

describe('GET /v1/models', () => {
  it('when the client lists models, then the nano, standard and research engines are listed', async () => {
    const tenant = await createTenant();
    const client = clientFor(tenant.api_key);

    const ids = [];
    for await (const model of client.models.list()) ids.push(model.id);
    const one = await client.models.retrieve('tm-research-1');

    expect(ids).toEqual(['tm-nano-1', 'tm-standard-1', 'tm-research-1']);
    expect(one).toMatchObject({
      id: 'tm-research-1',
      object: 'model',
      owned_by: 'text-memory-service',
      text_memory: { model_kind: 'research' },
    });
  });
});

describe('POST /v1/chat/completions refusals', () => {
  const refusal = (status: number, type: string, code: string, param: string | null) => ({
    status,
    body: {
      error: { message: expect.any(String), type, code, param },
      retryable: false,
      request_id: expect.any(String),
      details: { code },
    },
  });

  it('when the model is unknown, then 404 not_found with an OpenAI error body the client reads', async () => {
    const tenant = await createTenant();

    const res = await t.api.post('/v1/chat/completions', {
      key: tenant.api_key,
      body: { model: 'gpt-4o', memory_id: 'm1', messages: [{ role: 'user', content: 'hi' }] },
    });
    const thrown = await clientFor(tenant.api_key)
      .chat.completions.create(chatParams('m1', [{ role: 'user', content: 'hi' }], 'gpt-4o'))
      .catch((err: unknown) => err);

    expect(res).toMatchObject(refusal(404, 'not_found_error', 'not_found', 'model'));
    expect(thrown).toBeInstanceOf(OpenAI.NotFoundError);
    expect(thrown).toMatchObject({ status: 404, code: 'not_found', type: 'not_found_error', param: 'model' });
  });

  it('when messages are empty, a role is malformed or content is blank, then 400 validation_failed', async () => {
    const tenant = await createTenant();
    const send = (messages: unknown) =>
      t.api.post('/v1/chat/completions', {
        key: tenant.api_key,
        body: { model: 'tm-nano-1', memory_id: 'm1', messages },
      });

    const empty = await send([]);
    const badRole = await send([{ role: 42, content: 'hi' }]);
    const noRole = await send([{ content: 'hi' }]);
    const blank = await send([{ role: 'user', content: '   ' }]);
    const noUser = await send([{ role: 'system', content: 'be brief' }]);

    expect(empty).toMatchObject(refusal(400, 'invalid_request_error', 'validation_failed', 'messages'));
    expect(badRole).toMatchObject(
      refusal(400, 'invalid_request_error', 'validation_failed', 'messages.0.role'),
    );
    expect(noRole).toMatchObject(
      refusal(400, 'invalid_request_error', 'validation_failed', 'messages.0.role'),
    );
    expect(blank).toMatchObject(
      refusal(400, 'invalid_request_error', 'validation_failed', 'messages.0.content'),
    );
    expect(noUser).toMatchObject(refusal(400, 'invalid_request_error', 'validation_failed', 'messages'));
  });

  it('when a custom role is used, then it is accepted', async () => {
    const tenant = await createTenant();

    const res = await t.api.post('/v1/chat/completions', {
      key: tenant.api_key,
      body: {
        model: 'tm-nano-1',
        memory_id: uniqueMemoryId(),
        messages: [
          { role: 'narrator', content: 'The scene opens.' },
          { role: 'user', content: [{ type: 'text', text: 'hello' }] },
        ],
      },
    });

    expect(res).toMatchObject({ status: 200, body: { choices: [{ message: { content: NO_MEMORY } }] } });
  });

  it('when memory_id is missing or not a namespace segment, then 400 at memory_id', async () => {
    const tenant = await createTenant();
    const send = (memoryId: unknown) =>
      t.api.post('/v1/chat/completions', {
        key: tenant.api_key,
        body: { model: 'tm-nano-1', memory_id: memoryId, messages: [{ role: 'user', content: 'hi' }] },
      });

    expect(await send(undefined)).toMatchObject(
      refusal(400, 'invalid_request_error', 'validation_failed', 'memory_id'),
    );
    expect(await send('a/b')).toMatchObject(
      refusal(400, 'invalid_request_error', 'validation_failed', 'memory_id'),
    );
  });

  it('when the key is missing or refused, then 401 authentication_required saying which, and the client raises AuthenticationError', async () => {
    const res = await t.api.post('/v1/chat/completions', {
      body: { model: 'tm-nano-1', memory_id: 'm1', messages: [{ role: 'user', content: 'hi' }] },
    });
    const thrown = await clientFor('tmk_wrong_key')
      .chat.completions.create(chatParams('m1', [{ role: 'user', content: 'hi' }]))
      .catch((err: unknown) => err);
    const models = await t.api.get('/v1/models');

    expect(res).toMatchObject(refusal(401, 'authentication_error', 'authentication_required', null));
    expect(models).toMatchObject(refusal(401, 'authentication_error', 'authentication_required', null));
    expect(res.body.error.message).toBe(NO_CREDENTIAL);
    expect(thrown).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(thrown).toMatchObject({
      status: 401,
      type: 'authentication_error',
      error: { message: KEY_NOT_ACCEPTED },
    });
  });
});
