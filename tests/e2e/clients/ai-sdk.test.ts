import { existsSync } from 'node:fs';
import { inspect } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { memoryTools, TextMemoryToolError } from '@text-memory/ai-sdk';
import { TextMemory } from '@text-memory/sdk';
import { generateText, isStepCount, streamText, ToolLoopAgent } from 'ai';
import { MockLanguageModelV4, simulateReadableStream } from 'ai/test';
import { beforeAll, describe, expect, it } from 'vitest';
import { createServer } from '../../../libs/clients/mcp/src/server.js';
import { contractCheckedFetch } from '../support/checked-fetch.js';
import { KEY_NOT_ACCEPTED, NO_CREDENTIAL } from '../support/credential-refusals.js';
import { eventually } from '../support/eventually.js';
import { createTenant, uniqueKey, uniqueNamespace } from '../support/factories.js';
import { recordSecrets } from '../support/log-capture.js';
import { useStack } from '../support/stack.js';

// @text-memory/ai-sdk as an application uses it: its built dist/ (the workspace package), the AI SDK's
// own generateText/streamText loop, and the AI SDK's own mock language model (ai/test) scripted to call
// the tools, so every tool call runs against the real stack. Only the model is scripted.

const t = useStack();

beforeAll(() => {
  if (!existsSync(new URL('../../../libs/clients/ai-sdk/dist/index.js', import.meta.url)))
    throw new Error('libs/clients/ai-sdk is not built: run `node infra/dev/run.mjs build` first');
});

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};

/** One model turn that calls a tool. */
const callTool = (toolCallId: string, toolName: string, input: Record<string, unknown>) => ({
  content: [{ type: 'tool-call' as const, toolCallId, toolName, input: JSON.stringify(input) }],
  finishReason: { unified: 'tool-calls' as const, raw: undefined },
  usage,
  warnings: [],
});

/** One model turn that answers in text (the last step). */
const answer = (text: string) => ({
  content: [{ type: 'text' as const, text }],
  finishReason: { unified: 'stop' as const, raw: undefined },
  usage,
  warnings: [],
});

/** The model's turns in order: the mock returns the next one on each call. */
const scriptedModel = (...turns: ReturnType<typeof callTool | typeof answer>[]) =>
  new MockLanguageModelV4({ doGenerate: turns });

/** The tool results the model received in the prompt of its `call`-th turn (0-based). */
function toolResultsSeen(model: MockLanguageModelV4, call: number) {
  const prompt = model.doGenerateCalls[call]?.prompt ?? [];
  return prompt.flatMap((message) =>
    message.role === 'tool' ? message.content.filter((part) => part.type === 'tool-result') : [],
  );
}

/** The text the model read as the `index`-th tool result in the prompt of its `call`-th turn. */
function seenText(model: MockLanguageModelV4, call: number, index: number): string {
  const output = toolResultsSeen(model, call)[index]?.output;
  if (output?.type !== 'text') throw new Error(`turn ${call} saw no text result at ${index}`);
  return output.value;
}

/** An SDK client as the app makes it, its answers checked against the served OpenAPI document. */
const sdk = (apiKey?: string) =>
  new TextMemory({ baseUrl: t.stack.url, fetch: contractCheckedFetch(t), ...(apiKey ? { apiKey } : {}) });

async function tenantClient() {
  const tenant = await createTenant();
  return { tenant, client: sdk(tenant.api_key) };
}

describe('@text-memory/ai-sdk: memoryTools in generateText', () => {
  it('when the model calls remember and then recall, then the memory is stored and the final step sees the recalled text', async () => {
    // Arrange
    const { client } = await tenantClient();
    const namespace = uniqueNamespace('ai-sdk');
    const model = scriptedModel(
      callTool('call-1', 'remember', { text: 'Alice prefers green tea with honey' }),
      callTool('call-2', 'recall', { query: 'what tea does Alice drink' }),
      answer('Alice drinks green tea with honey.'),
    );

    // Act
    const result = await generateText({
      model,
      tools: memoryTools({ client, namespace }),
      prompt: 'Remember that Alice prefers green tea with honey, then tell me what she drinks.',
      stopWhen: isStepCount(5),
    });

    // Assert: the steps, each tool's result as the app sees it
    expect(result.text).toBe('Alice drinks green tea with honey.');
    expect(result.steps).toHaveLength(3);
    const remembered = result.steps[0]?.toolResults[0];
    expect(remembered).toMatchObject({
      toolName: 'remember',
      output: {
        state: 'retained',
        idempotency_outcome: 'Accepted',
        memory_id: expect.any(String),
        event_id: expect.stringMatching(/^evt_/),
        namespace,
        decision: 'memorized',
        supersession: [],
        request_id: expect.any(String),
      },
    });
    const rememberedOutput = remembered?.output as {
      event_id: string;
      memory_id: string;
      request_id: string;
    };
    expect(result.steps[1]?.toolResults[0]).toMatchObject({
      toolName: 'recall',
      output: {
        state: 'retained',
        retrieval_outcome: 'matched',
        namespace,
        context: expect.stringContaining('Alice prefers green tea with honey'),
        related: [
          {
            event_id: rememberedOutput.event_id,
            memory_id: rememberedOutput.memory_id,
            text: 'Alice prefers green tea with honey',
            score: expect.any(Number),
          },
        ],
      },
    });
    // ... and as the model read them: remember's receipt after step 1, the recalled text in the final step
    expect(toolResultsSeen(model, 1)).toEqual([
      expect.objectContaining({
        toolName: 'remember',
        output: {
          type: 'text',
          value: [
            `Remembered in namespace "${namespace}" as memory ${rememberedOutput.memory_id}.`,
            `event_id: ${rememberedOutput.event_id}`,
            'idempotency_outcome: Accepted',
            `request_id: ${rememberedOutput.request_id}`,
          ].join('\n'),
        },
      }),
    ]);
    const seenLast = toolResultsSeen(model, 2);
    expect(seenLast.map((part) => part.toolName)).toEqual(['remember', 'recall']);
    expect(seenLast[1]?.output).toEqual({
      type: 'text',
      value: expect.stringContaining('Alice prefers green tea with honey'),
    });
    // tm-mcp's text: the context, then each memory's ids.
    expect(seenText(model, 2, 1)).toMatch(
      new RegExp(
        `^1 related memory in "${namespace}":\n\n[^]*Alice prefers green tea with honey\n\n- event_id ${rememberedOutput.event_id}, memory_id ${rememberedOutput.memory_id}, score `,
      ),
    );
    // The model was offered both tools with their descriptions and schemas; the namespace is not an input.
    expect(model.doGenerateCalls[0]?.tools).toEqual([
      expect.objectContaining({
        type: 'function',
        name: 'remember',
        description: expect.stringContaining('event_id'),
        inputSchema: expect.objectContaining({ required: ['text'] }),
      }),
      expect.objectContaining({
        type: 'function',
        name: 'recall',
        description: expect.stringContaining('shared words'),
        inputSchema: expect.objectContaining({ required: ['query'] }),
      }),
    ]);
    for (const offered of model.doGenerateCalls[0]?.tools ?? [])
      expect(offered.type === 'function' && offered.inputSchema.properties).not.toHaveProperty('namespace');

    // New state, through the SDK: the memory is stored once, under the event id the tool answered.
    const stored = await client.memory.recall({ namespace, query: 'Alice green tea honey' });
    expect(stored.related.map((r) => [r.event_id, r.text])).toEqual([
      [rememberedOutput.event_id, 'Alice prefers green tea with honey'],
    ]);
  });

  it('when the model retries remember with the same event_id, then the retry is Replayed, the memory stored once and charged once', async () => {
    const { tenant, client } = await tenantClient();
    const namespace = uniqueNamespace('ai-sdk');
    const event_id = uniqueKey('bob-coffee');
    // No occurred_at: a retried call repeats the first one's arguments, which name no time either.
    const call = { text: 'Bob takes his coffee black', event_id };
    const model = scriptedModel(
      callTool('call-1', 'remember', call),
      callTool('call-2', 'remember', call),
      answer('Noted.'),
    );

    const result = await generateText({
      model,
      tools: memoryTools({ client, namespace }),
      prompt: 'Bob takes his coffee black.',
      stopWhen: isStepCount(5),
    });

    const [first, second] = result.steps.slice(0, 2).map((step) => step.toolResults[0]?.output);
    expect(first).toMatchObject({ idempotency_outcome: 'Accepted', event_id });
    expect(second).toMatchObject({
      idempotency_outcome: 'Replayed',
      event_id,
      memory_id: (first as { memory_id: string }).memory_id,
    });
    expect(seenText(model, 2, 1)).toContain('idempotency_outcome: Replayed');
    const stored = await client.memory.recall({ namespace, query: 'Bob coffee black' });
    expect(stored.related.map((r) => r.event_id)).toEqual([event_id]);
    // One charge for the write: read once the recall just made (sent after both writes) is charged.
    const owner = sdk();
    await owner.control.sessions.login({ email: tenant.owner.email, password: tenant.owner.password });
    recordSecrets([owner.sessionToken]);
    await t.stack.memory.flushOutbox();
    const charges = await eventually(async () => {
      const page = await owner.control.billing.charges({ limit: 200 });
      expect(page.data.map((c) => c.request_id)).toContain(stored.request_id);
      return page.data;
    });
    expect(
      charges.filter((c) => c.operation === 'memory.write').map((c) => [c.idempotency_key, c.request_id]),
    ).toEqual([[event_id, (first as { request_id: string }).request_id]]);
  });

  it('when recall is called without top_k, then the topK option bounds it; and another tenant with the same namespace name recalls nothing of it', async () => {
    const { client } = await tenantClient();
    const other = await tenantClient();
    const namespace = uniqueNamespace('ai-sdk');
    for (const text of ['Carol likes tea', 'Carol likes tea and cake', 'Carol likes tea in the morning'])
      await client.memory.write({ namespace, text });
    const ours = scriptedModel(callTool('call-1', 'recall', { query: 'Carol tea' }), answer('Tea.'));
    const theirs = scriptedModel(callTool('call-1', 'recall', { query: 'Carol tea' }), answer('No idea.'));

    const mine = await generateText({
      model: ours,
      tools: memoryTools({ client, namespace, topK: 2 }),
      prompt: 'What does Carol like?',
      stopWhen: isStepCount(3),
    });
    const foreign = await generateText({
      model: theirs,
      tools: memoryTools({ client: other.client, namespace }),
      prompt: 'What does Carol like?',
      stopWhen: isStepCount(3),
    });

    expect(mine.steps[0]?.toolResults[0]?.output).toMatchObject({ retrieval_outcome: 'matched' });
    expect(mine.steps[0]?.toolResults[0]?.output).toMatchObject({ related: [{}, {}] });
    expect(foreign.steps[0]?.toolResults[0]?.output).toMatchObject({
      state: 'no_data',
      retrieval_outcome: 'no_match',
      context: null,
      related: [],
    });
    const request_id = (foreign.steps[0]?.toolResults[0]?.output as { request_id?: string } | undefined)
      ?.request_id;
    expect(seenText(theirs, 1, 0)).toBe(
      `No stored memory in "${namespace}" shares words with the query.\nrequest_id: ${request_id}`,
    );
  });

  it('when the key may not write, then remember is a tool error with the code and request id, the model reads it, and the key is nowhere', async () => {
    // Arrange: a key of the tenant that may only recall
    const { tenant } = await tenantClient();
    const owner = sdk();
    await owner.control.sessions.login({ email: tenant.owner.email, password: tenant.owner.password });
    recordSecrets([owner.sessionToken]);
    const readOnly = await owner.control.apiKeys.create({
      name: 'recall only',
      permissions: ['memory:recall'],
    });
    recordSecrets([readOnly.key]);
    const client = sdk(readOnly.key);
    const namespace = uniqueNamespace('ai-sdk');
    const model = scriptedModel(
      callTool('call-1', 'remember', { text: 'Dan is allergic to peanuts' }),
      answer('I could not store that.'),
    );

    // Act
    const result = await generateText({
      model,
      tools: memoryTools({ client, namespace }),
      prompt: 'Dan is allergic to peanuts.',
      stopWhen: isStepCount(3),
    });

    // Assert: the tool error the app sees ...
    const failed = result.steps[0]?.content.find((part) => part.type === 'tool-error');
    expect(failed).toMatchObject({ toolName: 'remember', toolCallId: 'call-1' });
    const error = failed?.type === 'tool-error' ? failed.error : undefined;
    expect(error).toBeInstanceOf(TextMemoryToolError);
    expect(error).toMatchObject({
      name: 'TextMemoryToolError',
      tool: 'remember',
      code: 'permission_denied',
      status: 403,
      request_id: expect.any(String),
      retryable: false,
    });
    const { request_id } = error as TextMemoryToolError;
    // ... is what the model read as the tool's result
    expect(toolResultsSeen(model, 1)).toEqual([
      expect.objectContaining({
        toolName: 'remember',
        output: {
          type: 'error-text',
          value: expect.stringMatching(
            new RegExp(
              `^TextMemoryToolError: This API key does not have the memory:write permission\\ncode: permission_denied\\nstatus: 403\\nrequest_id: ${request_id}\\nretryable: false$`,
            ),
          ),
        },
      }),
    ]);
    // The key is in none of it: not the message, the error as logged, the prompt, nor the steps.
    for (const text of [
      inspect(error, { depth: 10 }),
      JSON.stringify(model.doGenerateCalls),
      JSON.stringify(result.steps),
    ])
      expect(text).not.toContain(readOnly.key);
    // Nothing was stored.
    const owned = sdk(tenant.api_key);
    expect((await owned.memory.recall({ namespace, query: 'Dan peanuts' })).state).toBe('no_data');
  });

  it.each([
    ['a key the service refuses', `tmk_${uniqueKey('not-a-key')}`, KEY_NOT_ACCEPTED],
    ['no key', undefined, NO_CREDENTIAL],
  ])(
    'when the client has %s, then recall is a tool error the model reads as such',
    async (_, apiKey, said) => {
      const model = scriptedModel(callTool('call-1', 'recall', { query: 'anything' }), answer('I cannot.'));

      const result = await generateText({
        model,
        tools: memoryTools({ client: sdk(apiKey), namespace: uniqueNamespace('ai-sdk') }),
        prompt: 'What do you remember?',
        stopWhen: isStepCount(3),
      });

      const failed = result.steps[0]?.content.find((part) => part.type === 'tool-error');
      const error = failed?.type === 'tool-error' ? failed.error : undefined;
      expect(error).toBeInstanceOf(TextMemoryToolError);
      expect(error).toMatchObject({ tool: 'recall', code: 'authentication_required', status: 401 });
      expect(toolResultsSeen(model, 1)).toEqual([
        expect.objectContaining({
          toolName: 'recall',
          output: {
            type: 'error-text',
            value: expect.stringContaining(
              `TextMemoryToolError: ${said}\ncode: authentication_required\nstatus: 401\n`,
            ),
          },
        }),
      ]);
    },
  );

  it('when the namespace is not a valid one, then each tool fails as a tool error with validation_failed and the field, sending nothing', async () => {
    const { client } = await tenantClient();
    const model = scriptedModel(
      callTool('call-1', 'remember', { text: 'Eve lives in Lyon' }),
      callTool('call-2', 'recall', { query: 'Eve' }),
      answer('Both failed.'),
    );

    const result = await generateText({
      model,
      tools: memoryTools({ client, namespace: '-not a namespace' }),
      prompt: 'Eve lives in Lyon.',
      stopWhen: isStepCount(4),
    });

    const errors = result.steps.flatMap((step) => step.content.filter((part) => part.type === 'tool-error'));
    expect(errors.map((part) => [part.toolName, part.error])).toEqual([
      ['remember', expect.objectContaining({ code: 'validation_failed', status: 0, request_id: undefined })],
      ['recall', expect.objectContaining({ code: 'validation_failed', status: 0, request_id: undefined })],
    ]);
    expect(String((errors[0]?.error as Error | undefined)?.message)).toMatch(
      /^Invalid request: namespace: .+\n- namespace: .+\ncode: validation_failed\nstatus: no answer from the service\nretryable: false$/,
    );
  });

  it('when compared with tm-mcp’s tools, then remember and recall have the same descriptions and arguments, less namespace', async () => {
    const { client } = await tenantClient();
    const mcp = new Client({ name: 'ai-sdk-parity', version: '1.0.0' });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await createServer(client).connect(serverSide);
    await mcp.connect(clientSide);
    const { tools: mcpTools } = await mcp.listTools();
    await mcp.close();
    // The JSON Schemas the AI SDK sends a model for the tools (the model answers at once: nothing is called).
    const model = scriptedModel(answer('Nothing to do.'));
    await generateText({ model, tools: memoryTools({ client, namespace: 'any' }), prompt: 'Hi.' });

    type Schema = { properties?: Record<string, object>; required?: string[] };
    const ours = (model.doGenerateCalls[0]?.tools ?? []).map((tool) => {
      const schema = (tool.type === 'function' ? tool.inputSchema : {}) as Schema;
      return {
        name: tool.name,
        description: tool.type === 'function' ? tool.description : undefined,
        arguments: schema.properties,
        required: schema.required,
      };
    });
    const theirs = ['remember', 'recall'].map((name) => {
      const tool = mcpTools.find((candidate) => candidate.name === name);
      const { namespace: _bound, ...properties } = (tool?.inputSchema.properties ?? {}) as Record<
        string,
        object
      >;
      return {
        name,
        description: tool?.description,
        arguments: properties,
        required: tool?.inputSchema.required?.filter((argument) => argument !== 'namespace'),
      };
    });

    // Each argument's type, limits, pattern and description, and each tool's description.
    expect(ours).toEqual(theirs);
    expect(ours.map((tool) => [tool.name, Object.keys(tool.arguments ?? {}).sort(), tool.required])).toEqual([
      ['remember', ['event_id', 'occurred_at', 'supersedes', 'text'], ['text']],
      ['recall', ['as_of', 'explain', 'query', 'top_k'], ['query']],
    ]);
  });

  it('when topK is out of range, then memoryTools refuses it at once', async () => {
    const { client } = await tenantClient();
    expect(() => memoryTools({ client, namespace: 'x', topK: 0 })).toThrow(
      new RangeError('topK must be an integer from 1 to 100'),
    );
  });
});

describe('@text-memory/ai-sdk: memoryTools in streamText', () => {
  it('when a streamed model calls recall, then the stream carries the tool result and the next step sees the context', async () => {
    const { client } = await tenantClient();
    const namespace = uniqueNamespace('ai-sdk');
    await client.memory.write({ namespace, text: 'Frank parks on level 3' });
    const finish = (unified: 'tool-calls' | 'stop') => ({
      type: 'finish' as const,
      finishReason: { unified, raw: undefined },
      usage,
    });
    const model = new MockLanguageModelV4({
      doStream: [
        {
          stream: simulateReadableStream({
            chunks: [
              {
                type: 'tool-call',
                toolCallId: 'call-1',
                toolName: 'recall',
                input: JSON.stringify({ query: 'Frank parks level' }),
              },
              finish('tool-calls'),
            ],
          }),
        },
        {
          stream: simulateReadableStream({
            chunks: [
              { type: 'text-start', id: 't' },
              { type: 'text-delta', id: 't', delta: 'Level 3.' },
              { type: 'text-end', id: 't' },
              finish('stop'),
            ],
          }),
        },
      ],
    });

    const result = streamText({
      model,
      tools: memoryTools({ client, namespace }),
      prompt: 'Where does Frank park?',
      stopWhen: isStepCount(3),
    });

    expect(await result.text).toBe('Level 3.');
    const steps = await result.steps;
    expect(steps[0]?.toolResults[0]?.output).toMatchObject({
      context: expect.stringContaining('Frank parks on level 3'),
    });
    const prompt = model.doStreamCalls[1]?.prompt ?? [];
    expect(JSON.stringify(prompt)).toContain('Frank parks on level 3');
  });
});

describe('@text-memory/ai-sdk: memoryTools in a ToolLoopAgent', () => {
  it('when an agent made with the tools is asked, then it remembers and recalls through them', async () => {
    const { client } = await tenantClient();
    const namespace = uniqueNamespace('ai-sdk');
    const model = scriptedModel(
      callTool('call-1', 'remember', { text: 'Gina works night shifts at the harbour' }),
      callTool('call-2', 'recall', { query: 'Gina shifts harbour' }),
      answer('Night shifts.'),
    );
    const agent = new ToolLoopAgent({ model, tools: memoryTools({ client, namespace }) });

    const result = await agent.generate({
      prompt: 'Gina works night shifts at the harbour. When does she work?',
    });

    expect(result.text).toBe('Night shifts.');
    expect(seenText(model, 2, 1)).toContain('Gina works night shifts at the harbour');
  });
});
