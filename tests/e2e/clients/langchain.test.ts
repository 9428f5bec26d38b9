import { randomUUID } from 'node:crypto';
import type { Document } from '@langchain/core/documents';
import type { ToolMessage } from '@langchain/core/messages';
import { StringOutputParser } from '@langchain/core/output_parsers';
import { ChatPromptTemplate } from '@langchain/core/prompts';
import { RunnablePassthrough, RunnableSequence } from '@langchain/core/runnables';
import { ToolInputParsingException } from '@langchain/core/tools';
import { toJsonSchema } from '@langchain/core/utils/json_schema';
import { FakeChatModel } from '@langchain/core/utils/testing';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import {
  type MemoryDocumentMetadata,
  memoryTools,
  TextMemoryRetriever,
  TextMemoryToolError,
} from '@text-memory/langchain';
import { TextMemory, TextMemoryError } from '@text-memory/sdk';
import { describe, expect, it } from 'vitest';
import { createServer } from '../../../libs/clients/mcp/src/server.js';
import { contractCheckedFetch } from '../support/checked-fetch.js';
import { KEY_NOT_ACCEPTED, NO_CREDENTIAL } from '../support/credential-refusals.js';
import { createTenant, uniqueNamespace } from '../support/factories.js';
import { useStack } from '../support/stack.js';

// @text-memory/langchain as a LangChain.js program meets it: LangChain's own Runnable, prompt, tool and
// fake chat model code (from @langchain/core), the package's built dist/ (imported by its name, as a user
// does), the real stack behind the SDK. Every JSON answer is checked against the served API document.

const t = useStack();

async function tenantClient() {
  const tenant = await createTenant();
  const client = new TextMemory({
    baseUrl: t.stack.url,
    apiKey: tenant.api_key,
    fetch: contractCheckedFetch(t),
  });
  return { tenant, client };
}

/** Writes through the SDK, each with its own time, so as_of can fall between them. */
async function seed(client: TextMemory, namespace: string, memories: Array<[string, string, string?]>) {
  const written = [];
  for (const [text, occurred_at, sourceId] of memories)
    written.push(
      await client.memory.write({
        namespace,
        text,
        occurred_at,
        ...(sourceId ? { source: { type: 'direct_user_input', id: sourceId } } : {}),
      }),
    );
  return written;
}

const toolCall = (name: string, args: Record<string, unknown>) => ({
  type: 'tool_call' as const,
  id: `call_${randomUUID()}`,
  name,
  args,
});

describe('TextMemoryRetriever', () => {
  it('when invoked with a question, then each matching memory is a Document with its text and ids, score, time and source', async () => {
    const { tenant, client } = await tenantClient();
    const namespace = uniqueNamespace('lc');
    const [tea, coffee] = await seed(client, namespace, [
      ['Alice prefers green tea in the morning', '2026-03-01T08:00:00Z', 'chat-7'],
      ['Alice drinks black coffee after lunch', '2026-03-02T13:00:00Z'],
      ['Bob rides a bicycle to work', '2026-03-03T09:00:00Z'],
    ]);
    const retriever = new TextMemoryRetriever({ client, namespace });

    // "green tea" is only the tea record's: it ranks first whatever the words' weights.
    const documents = await retriever.invoke('what does Alice drink, green tea?');

    expect(documents.map((d) => d.pageContent)).toEqual([
      'Alice prefers green tea in the morning',
      'Alice drinks black coffee after lunch',
    ]);
    const [first, second] = documents as Document<MemoryDocumentMetadata>[];
    expect(first).toMatchObject({
      id: tea?.memory_id,
      metadata: {
        memory_id: tea?.memory_id,
        event_id: tea?.event_id,
        score: expect.any(Number),
        occurred_at: '2026-03-01T08:00:00.000Z',
        source: { type: 'direct_user_input', id: 'chat-7' },
        namespace,
        request_id: expect.any(String),
      },
    });
    expect(second?.metadata).toMatchObject({
      memory_id: coffee?.memory_id,
      event_id: coffee?.event_id,
      source: null,
    });
    expect(first?.metadata.score).toBeGreaterThan(second?.metadata.score ?? 1);
    // The client (and its key) stays out of what LangChain serialises for traces.
    expect(JSON.stringify(retriever)).not.toContain(tenant.api_key);
  });

  it('when topK and asOf are given, then at most topK memories come back and none written after asOf', async () => {
    const { client } = await tenantClient();
    const namespace = uniqueNamespace('lc');
    await seed(client, namespace, [
      ['meeting notes alpha', '2026-01-01T00:00:00Z'],
      ['meeting notes beta', '2026-01-15T00:00:00Z'],
      ['meeting notes gamma', '2026-05-01T00:00:00Z'],
    ]);

    const all = await new TextMemoryRetriever({ client, namespace }).invoke('meeting notes');
    const two = await new TextMemoryRetriever({ client, namespace, topK: 2 }).invoke('meeting notes');
    const before = await new TextMemoryRetriever({ client, namespace, asOf: '2026-02-01T00:00:00Z' }).invoke(
      'meeting notes',
    );
    const beforeAny = await new TextMemoryRetriever({
      client,
      namespace,
      asOf: new Date('2025-12-31T00:00:00Z'),
    }).invoke('meeting notes');

    expect(all).toHaveLength(3);
    expect(two).toHaveLength(2);
    expect(before.map((d) => d.pageContent).sort()).toEqual(['meeting notes alpha', 'meeting notes beta']);
    expect(beforeAny).toEqual([]);
  });

  it('when it is a step of a RunnableSequence, then the recalled text reaches the prompt the chat model gets', async () => {
    const { client } = await tenantClient();
    const namespace = uniqueNamespace('lc');
    await seed(client, namespace, [['Alice is allergic to peanuts', '2026-03-01T08:00:00Z']]);
    const retriever = new TextMemoryRetriever({ client, namespace, topK: 3 });
    const prompt = ChatPromptTemplate.fromMessages([
      ['system', 'Answer from these memories:\n{context}'],
      ['human', '{question}'],
    ]);
    // FakeChatModel answers with the messages it was given: what it returns is the prompt it saw.
    const chain = RunnableSequence.from([
      {
        context: retriever.pipe((docs: Document[]) => docs.map((d) => `- ${d.pageContent}`).join('\n')),
        question: new RunnablePassthrough(),
      },
      prompt,
      new FakeChatModel({}),
      new StringOutputParser(),
    ]);

    const answer = await chain.invoke('Is Alice allergic to peanuts?');

    expect(answer).toBe(
      'Answer from these memories:\n- Alice is allergic to peanuts\nIs Alice allergic to peanuts?',
    );
  });

  it('when another tenant’s key names the same namespace, then it recalls nothing of the first’s', async () => {
    const first = await tenantClient();
    const other = await tenantClient();
    const namespace = uniqueNamespace('lc');
    await seed(first.client, namespace, [
      ['the vault code is written in the red notebook', '2026-03-01T08:00:00Z'],
    ]);

    const mine = await new TextMemoryRetriever({ client: first.client, namespace }).invoke(
      'vault code notebook',
    );
    const theirs = await new TextMemoryRetriever({ client: other.client, namespace }).invoke(
      'vault code notebook',
    );
    const [, recall] = memoryTools({ client: other.client, namespace });
    const theirRecall = await recall.invoke({ query: 'vault code notebook' });

    expect(mine).toHaveLength(1);
    expect(theirs).toEqual([]);
    expect(theirRecall).toMatch(/^No stored memory in ".*" shares words with the query\.\nrequest_id: \S+$/);
    expect(theirRecall).not.toContain('vault');
  });
  it('when the key is refused, then invoke rejects with the SDK’s error saying the key was not accepted, its status and request id, never the key', async () => {
    const badKey = `tmk_${randomUUID().replaceAll('-', '')}`;
    const client = new TextMemory({ baseUrl: t.stack.url, apiKey: badKey, fetch: contractCheckedFetch(t) });

    const error = await new TextMemoryRetriever({ client, namespace: uniqueNamespace('lc') })
      .invoke('anything at all')
      .then(
        () => undefined,
        (e: unknown) => e,
      );

    expect(error).toBeInstanceOf(TextMemoryError);
    expect(error).toMatchObject({
      status: 401,
      message: KEY_NOT_ACCEPTED,
      retryable: false,
      request_id: expect.any(String),
    });
    expect(String((error as Error).message)).not.toContain(badKey);
  });

  it('when the client has no key, then invoke rejects saying to send one', async () => {
    const client = new TextMemory({ baseUrl: t.stack.url, fetch: contractCheckedFetch(t) });

    const error = await new TextMemoryRetriever({ client, namespace: uniqueNamespace('lc') })
      .invoke('anything at all')
      .then(
        () => undefined,
        (e: unknown) => e,
      );

    expect(error).toBeInstanceOf(TextMemoryError);
    expect(error).toMatchObject({ status: 401, code: 'authentication_required', message: NO_CREDENTIAL });
  });
});

describe('memoryTools: remember and recall as LangChain tools', () => {
  it('when a model’s tool calls remember and then recall, then the text is stored and recalled with its ids', async () => {
    const { client } = await tenantClient();
    const namespace = uniqueNamespace('lc');
    const [remember, recall] = memoryTools({ client, namespace });

    const stored = (await remember.invoke(
      toolCall('remember', { text: 'Carol keeps her bike in the blue shed' }),
    )) as ToolMessage;
    const found = (await recall.invoke(
      toolCall('recall', { query: 'where is Carol bike shed', top_k: 5 }),
    )) as ToolMessage;

    expect(stored).toMatchObject({
      name: 'remember',
      status: 'success',
      artifact: {
        state: 'retained',
        memory_id: expect.any(String),
        event_id: expect.stringMatching(/^evt_/),
        namespace,
        idempotency_outcome: 'Accepted',
        decision: 'memorized',
        supersession: [],
        request_id: expect.any(String),
      },
    });
    expect(stored.content).toBe(
      [
        `Remembered in namespace "${namespace}" as memory ${stored.artifact.memory_id}.`,
        `event_id: ${stored.artifact.event_id}`,
        'idempotency_outcome: Accepted',
        `request_id: ${stored.artifact.request_id}`,
      ].join('\n'),
    );
    expect(found.artifact).toMatchObject({
      state: 'retained',
      retrieval_outcome: 'matched',
      namespace,
      context: expect.stringContaining('Carol keeps her bike in the blue shed'),
      related: [
        {
          event_id: stored.artifact.event_id,
          memory_id: stored.artifact.memory_id,
          text: 'Carol keeps her bike in the blue shed',
          score: expect.any(Number),
        },
      ],
    });
    expect(found.content).toContain(`1 related memory in "${namespace}":`);
    expect(found.content).toContain('Carol keeps her bike in the blue shed');
    expect(found.content).toContain(`request_id: ${found.artifact.request_id}`);
  });

  it('when remember is retried with the same event_id and occurred_at, then the retry is Replayed and stored once', async () => {
    const { client } = await tenantClient();
    const namespace = uniqueNamespace('lc');
    const [remember] = memoryTools({ client, namespace });
    const call = {
      text: 'Dana moved to Lisbon',
      event_id: `move-${randomUUID()}`,
      occurred_at: '2026-04-01T10:00:00Z',
    };

    const first = await remember.invoke(call);
    const retry = await remember.invoke(call);
    const recalled = await client.memory.recall({ namespace, query: 'Dana Lisbon' });

    expect(first).toContain('idempotency_outcome: Accepted');
    expect(retry).toContain('idempotency_outcome: Replayed');
    expect(retry).toContain(`event_id: ${call.event_id}`);
    expect(recalled.related.map((r) => r.event_id)).toEqual([call.event_id]);
  });

  it('when remember is retried with the same event_id and no occurred_at, from a new tool set as a re-run of the script makes, then the retry is Replayed too', async () => {
    const { client } = await tenantClient();
    const namespace = uniqueNamespace('lc');
    const [remember] = memoryTools({ client, namespace });
    const [rerun] = memoryTools({ client, namespace });
    const call = { text: 'Dana keeps a cat named Miso', event_id: `cat-${randomUUID()}` };

    const first = (await remember.invoke(toolCall('remember', call))) as ToolMessage;
    const retry = (await rerun.invoke(toolCall('remember', call))) as ToolMessage;

    expect(first.artifact).toMatchObject({ idempotency_outcome: 'Accepted', event_id: call.event_id });
    expect(retry.artifact).toMatchObject({
      idempotency_outcome: 'Replayed',
      memory_id: first.artifact.memory_id,
    });
  });

  it('when the service refuses a call, then the tool fails with its code, status and request id, never the key', async () => {
    const { tenant, client } = await tenantClient();
    const namespace = uniqueNamespace('lc');
    const [remember] = memoryTools({ client, namespace });
    const event_id = `pref-${randomUUID()}`;
    await remember.invoke({ text: 'Erin likes jazz', event_id, occurred_at: '2026-04-01T10:00:00Z' });

    const conflict = await remember
      .invoke(
        toolCall('remember', { text: 'Erin likes opera', event_id, occurred_at: '2026-04-01T10:00:00Z' }),
      )
      .then(
        () => undefined,
        (error: unknown) => error,
      );

    expect(conflict).toBeInstanceOf(TextMemoryToolError);
    expect(conflict).toMatchObject({
      name: 'TextMemoryToolError',
      code: 'idempotency_conflict',
      status: 409,
      request_id: expect.any(String),
      retryable: false,
    });
    const { message, request_id } = conflict as TextMemoryToolError;
    expect(message).toMatch(/\ncode: idempotency_conflict\nstatus: 409\nrequest_id: \S+\nretryable: false$/);
    expect(message).toContain(`request_id: ${request_id}`);
    expect(message).not.toContain(tenant.api_key);
  });

  it('when the key is refused, then the tool fails saying the key was not accepted, not that none was sent', async () => {
    const badKey = `tmk_${randomUUID().replaceAll('-', '')}`;
    const client = new TextMemory({ baseUrl: t.stack.url, apiKey: badKey, fetch: contractCheckedFetch(t) });
    const [, recall] = memoryTools({ client, namespace: uniqueNamespace('lc') });

    const error = await recall.invoke(toolCall('recall', { query: 'anything' })).then(
      () => undefined,
      (e: unknown) => e,
    );

    expect(error).toBeInstanceOf(TextMemoryToolError);
    expect(error).toMatchObject({ code: 'authentication_required', status: 401 });
    expect((error as Error).message.split('\n').slice(0, 3)).toEqual([
      KEY_NOT_ACCEPTED,
      'code: authentication_required',
      'status: 401',
    ]);
    expect((error as Error).message).not.toContain(badKey);
  });

  it('when a model sends arguments outside the limits, then LangChain refuses them before anything is sent', async () => {
    const { client } = await tenantClient();
    const [remember, recall] = memoryTools({ client, namespace: uniqueNamespace('lc') });

    await expect(recall.invoke({ query: 'tea', top_k: 0 })).rejects.toBeInstanceOf(ToolInputParsingException);
    await expect(remember.invoke({ text: 'x', event_id: 'has space' })).rejects.toBeInstanceOf(
      ToolInputParsingException,
    );
  });

  it('when compared with tm-mcp’s tools, then names, descriptions and arguments are the same, less namespace', async () => {
    const { client } = await tenantClient();
    const mcp = new Client({ name: 'langchain-parity', version: '1.0.0' });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await createServer(client).connect(serverSide);
    await mcp.connect(clientSide);
    const { tools: mcpTools } = await mcp.listTools();
    await mcp.close();

    for (const tool of memoryTools({ client, namespace: 'any' })) {
      const mcpTool = mcpTools.find((candidate) => candidate.name === tool.name);
      const { namespace: _bound, ...mcpArguments } = mcpTool?.inputSchema.properties ?? {};
      // The JSON Schema LangChain sends a model for the tool: each argument's type, limits and description.
      const ours = toJsonSchema(tool.schema) as { properties: object; required: string[] };
      expect({
        name: tool.name,
        description: tool.description,
        arguments: ours.properties,
        required: ours.required,
      }).toEqual({
        name: mcpTool?.name,
        description: mcpTool?.description,
        arguments: mcpArguments,
        required: mcpTool?.inputSchema.required,
      });
    }
  });
});
