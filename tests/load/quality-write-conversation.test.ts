// How the quality bench writes a conversation (quality/write-conversation.ts): batches of 100, each
// sent again, unchanged, after a 429 or a 503.
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { writeConversation } from './quality/write-conversation.js';

type Answer = (body: { items: unknown[] }, res: ServerResponse) => void;

/** A stand-in gateway answering each request with the next of `answers` (the last one repeats). */
async function fakeGateway(answers: Answer[]) {
  const received: Array<{ path: string | undefined; auth: string | undefined; body: { items: unknown[] } }> =
    [];
  const server = createServer((req: IncomingMessage, res) => {
    let text = '';
    req.on('data', (chunk) => {
      text += chunk;
    });
    req.on('end', () => {
      const body = JSON.parse(text);
      received.push({ path: req.url, auth: req.headers.authorization, body });
      (answers[received.length - 1] ?? (answers.at(-1) as Answer))(body, res);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { received, server, baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

const retained: Answer = (body, res) => {
  const total = body.items.length;
  res.setHeader('content-type', 'application/json');
  res.end(
    JSON.stringify({
      item_counts: { total, accepted: total, replayed: 0, conflict: 0, invalid: 0, failed: 0 },
    }),
  );
};
const status =
  (code: number, headers: Record<string, string> = {}): Answer =>
  (_body, res) => {
    res.writeHead(code, { 'content-type': 'application/json', ...headers });
    res.end('{"retryable":true}');
  };

const turns = Array.from({ length: 150 }, (_, i) => ({
  diaId: `D1:${i + 1}`,
  text: `Ana: turn ${i + 1}`,
  occurredAt: new Date(Date.UTC(2023, 4, 8, 13, 56, i)).toISOString(),
}));

describe('writeConversation', () => {
  it('when a conversation has 150 turns, then it is written in batches of 100 and 50, each turn its dia id as event id and its own key', async () => {
    const gateway = await fakeGateway([retained]);
    try {
      await writeConversation({ baseUrl: gateway.baseUrl, apiKey: 'k' }, 'ns', 'run-conv', turns);
    } finally {
      gateway.server.close();
    }

    expect(gateway.received.map((r) => [r.path, r.auth, r.body.items.length])).toEqual([
      ['/api/v1/memory/write/batch', 'Bearer k', 100],
      ['/api/v1/memory/write/batch', 'Bearer k', 50],
    ]);
    expect(gateway.received[1]?.body).toEqual({
      contract_version: 'v1',
      namespace: 'ns',
      items: turns.slice(100).map((t) => ({
        idempotency_key: `run-conv-${t.diaId}`,
        event: { event_id: t.diaId, occurred_at: t.occurredAt, content: { text: t.text } },
      })),
    });
  });

  it('when a batch is answered 503, then 429 with Retry-After, then it is sent again unchanged until retained', async () => {
    const gateway = await fakeGateway([status(503), status(429, { 'retry-after': '0.1' }), retained]);
    try {
      await writeConversation({ baseUrl: gateway.baseUrl, apiKey: 'k' }, 'ns', 'run-conv', turns.slice(0, 3));
    } finally {
      gateway.server.close();
    }

    expect(gateway.received).toHaveLength(3);
    expect(gateway.received[1]?.body).toEqual(gateway.received[0]?.body);
    expect(gateway.received[2]?.body).toEqual(gateway.received[0]?.body);
  });

  it('when items are refused for good (400), then the write fails naming the first refused item', async () => {
    const gateway = await fakeGateway([
      (body, res) => {
        res.setHeader('content-type', 'application/json');
        res.end(
          JSON.stringify({
            item_counts: {
              total: body.items.length,
              accepted: 0,
              replayed: 0,
              conflict: 0,
              invalid: 1,
              failed: 0,
            },
            results: [{ index: 0, status: 400, body: { error: 'bad' } }],
          }),
        );
      },
    ]);
    try {
      await expect(
        writeConversation({ baseUrl: gateway.baseUrl, apiKey: 'k' }, 'ns', 'run-conv', turns.slice(0, 1)),
      ).rejects.toThrow(/turns 1-1 answered 200 .*first refused item: .*"status":400/);
    } finally {
      gateway.server.close();
    }
  });
});
