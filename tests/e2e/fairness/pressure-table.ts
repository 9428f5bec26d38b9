import { connect, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { CONTRACT_VERSION, LIMITS } from '@tm/contracts';
import type { FaultStack, Tenant } from '../faults/fault-stack.js';
import { commonWords } from '../support/common-words.js';
import { HangingReceiver } from './hanging-receiver.js';
import { AddressedClient, STRANGER_ADDRESS } from './second-address.js';

/** Tenant A: a tenant of its own per row, its owner's session, its client on 127.0.0.2. */
export interface TenantA {
  tenant: Tenant;
  /** A session of A's owner, taken before the row (the login flood locks A's logins out). */
  token: string;
  client: AddressedClient;
  namespace: string;
}

export interface PressureContext {
  stack: FaultStack;
  a: TenantA;
  /** Unique per row and run: A's idempotency keys start with it. */
  tag: string;
  /** Something worth a line in the report that is not by itself a failure. */
  note: (text: string) => void;
  /** Something B saw beside its load (its own logins in the login row) that fails the row. */
  fail: (text: string) => void;
}

/** One pressure, set up before B's quiet run so that only A's traffic differs between the two runs. */
export interface PressureSession {
  /** A's pressure, kept up until `until` (epoch ms); what A started may go on past it (an import). */
  run: (until: number) => Promise<void>;
  /** Undo what A set up (endpoints, receivers), so the next row starts clean. */
  cleanup?: () => Promise<void>;
}

export interface Pressure {
  id: string;
  /** The row's label in docs/reliability.md. */
  title: string;
  prepare: (ctx: PressureContext) => Promise<PressureSession>;
}

/** The gateway's defaults the rows push against (services/gateway/src/config.ts). */
const MAX_CONNECTIONS_PER_ADDRESS = 64;
/** Webhook endpoints a tenant may register (services/webhooks/src/config.ts, WEBHOOKS_MAX_ENDPOINTS). */
const MAX_ENDPOINTS = 20;
/** Rows in one import (services/template/src/config.ts, IMPORT_MAX_ROWS). */
const IMPORT_MAX_ROWS = 100_000;
const OCCURRED_AT = '2026-11-25T00:00:00.000Z';
/**
 * A stalled connection counts as held once open this long: the gateway closes one over the cap as it
 * accepts it, which took up to a second at load average 30 (1 s counted all 80 as held), and answers a
 * held one 408 only after the body's 10 s idle time-out.
 */
const HELD_AFTER_MS = 3_000;

/** `n` workers each running `body` until `until`. */
const workers = (n: number, until: number, body: (worker: number) => Promise<unknown>) =>
  Promise.all(
    Array.from({ length: n }, async (_, worker) => {
      while (Date.now() < until) await body(worker);
    }),
  );

/** Words made of letters from a counter: every one distinct, so each adds its own postings. */
function distinctWords(from: number, chars: number): { text: string; next: number } {
  let text = '';
  let n = from;
  while (true) {
    let word = '';
    for (let k = n; word.length === 0 || k > 0; k = Math.floor(k / 26))
      word += String.fromCharCode(97 + (k % 26));
    if (text.length + word.length + 1 > chars) break;
    text += text ? ` ${word}` : word;
    n++;
  }
  return { text, next: n };
}

const write = (a: TenantA, key: string, text: string) =>
  a.client.json(
    'POST',
    '/api/v1/memory/write',
    {
      contract_version: CONTRACT_VERSION,
      namespace: a.namespace,
      idempotency_key: key,
      event: { occurred_at: OCCURRED_AT, content: { text } },
    },
    a.tenant.apiKey,
  );

const batch = (a: TenantA, items: { key: string; text: string }[]) =>
  a.client.json(
    'POST',
    '/api/v1/memory/write/batch',
    {
      contract_version: CONTRACT_VERSION,
      namespace: a.namespace,
      items: items.map((i) => ({
        idempotency_key: i.key,
        event: { occurred_at: OCCURRED_AT, content: { text: i.text } },
      })),
    },
    a.tenant.apiKey,
  );

/**
 * A holds more connections than the per-address cap, each a write's headers with a Content-Length of
 * 4 KiB and one byte of body, then nothing: every one waits out the body's idle time-out (408) and
 * is opened again at once. The cap's refusals are paced 100 ms apart rather than a busy loop.
 */
const stalledConnections: Pressure = {
  id: 'stalled-connections',
  title: `A holds ${MAX_CONNECTIONS_PER_ADDRESS + 16} stalled connections (headers and one byte of body) from 127.0.0.2`,
  prepare: async (ctx) => ({
    run: async (until) => {
      const open = new Set<Socket>();
      const stats = { opened: 0, refused: 0, answered408: 0, otherAnswers: 0, held: 0, mostHeld: 0 };
      const head = [
        'POST /api/v1/memory/write HTTP/1.1',
        `Host: ${ctx.a.client.host}:${ctx.a.client.port}`,
        `Authorization: Bearer ${ctx.a.tenant.apiKey}`,
        'Content-Type: application/json',
        'Content-Length: 4096',
        '',
        '{',
      ].join('\r\n');
      const stallOne = () =>
        new Promise<void>((resolve) => {
          const socket = connect({
            host: ctx.a.client.host,
            port: ctx.a.client.port,
            localAddress: ctx.a.client.localAddress,
          });
          open.add(socket);
          stats.opened++;
          let answer = '';
          let held = false;
          const heldTimer = setTimeout(() => {
            held = true;
            stats.held++;
            stats.mostHeld = Math.max(stats.mostHeld, stats.held);
          }, HELD_AFTER_MS);
          socket.on('connect', () => socket.write(head));
          socket.on('data', (d: Buffer) => {
            answer += d.toString('latin1');
          });
          socket.on('error', () => {});
          socket.on('close', () => {
            clearTimeout(heldTimer);
            open.delete(socket);
            if (held) stats.held--;
            if (answer.startsWith('HTTP/1.1 408')) stats.answered408++;
            else if (answer) stats.otherAnswers++;
            else if (!held) stats.refused++;
            resolve();
          });
        });
      await workers(MAX_CONNECTIONS_PER_ADDRESS + 16, until, async () => {
        const began = Date.now();
        await Promise.race([stallOne(), sleep(Math.max(0, until - Date.now()))]);
        if (Date.now() - began < HELD_AFTER_MS) await sleep(100);
      });
      for (const socket of open) socket.destroy();
      ctx.note(
        `A opened ${stats.opened} connections, held at most ${stats.mostHeld} at once (open ${HELD_AFTER_MS / 1000} s or more); ${stats.refused} closed at once (the cap), ${stats.answered408} answered 408, ${stats.otherAnswers} answered otherwise`,
      );
    },
  }),
};

/** Distinct batches of text A cycles through; more are never accepted in one window (the text budget). */
const DISTINCT_BATCHES = 3;

/**
 * The batch route's largest body, back to back: LIMITS.writeBatchMaxItems items of LIMITS.textMaxChars
 * characters each, every word distinct (each adds its own postings), one batch after another, each
 * item under a key of its own. The texts are made before B's quiet window: made while B's load ran,
 * in the same process, they held its clients' event loop (100 to 200 ms a batch) and B's latencies
 * counted the harness's own work.
 */
const largestBatch: Pressure = {
  id: 'largest-batch',
  title: `A sends the largest batch back to back (${LIMITS.writeBatchMaxItems} items × ${LIMITS.textMaxChars.toLocaleString('en')} characters of distinct words)`,
  prepare: async (ctx) => {
    let word = 0;
    const texts = Array.from({ length: DISTINCT_BATCHES }, () =>
      Array.from({ length: LIMITS.writeBatchMaxItems }, () => {
        const made = distinctWords(word, LIMITS.textMaxChars);
        word = made.next;
        return made.text;
      }),
    );
    return {
      run: async (until) => {
        let sent = 0;
        await workers(1, until, async () => {
          const set = texts[sent % DISTINCT_BATCHES] ?? [];
          const items = set.map((text, i) => ({ key: `${ctx.tag}-b${sent}-${i}`, text }));
          sent++;
          await batch(ctx.a, items);
        });
        ctx.note(`A sent ${sent} batches (${ctx.a.client.summary()})`);
      },
    };
  },
};

/**
 * A registers as many webhook endpoints as a tenant may, all at a receiver that takes each delivery
 * and never answers, and writes: every write is that many deliveries, each held until the webhooks
 * service's attempt time-out.
 */
const hangingWebhooks: Pressure = {
  id: 'hanging-webhooks',
  title: `A has ${MAX_ENDPOINTS} webhook endpoints that never answer, and writes`,
  prepare: async (ctx) => {
    const receiver = await HangingReceiver.start();
    const ids: string[] = [];
    for (let i = 0; i < MAX_ENDPOINTS; i++) {
      const created = await ctx.a.client.json(
        'POST',
        '/api/v1/control/webhook-endpoints',
        { url: receiver.url(`hang/${i}`), events: ['memory.retained'], description: `hanging ${i}` },
        ctx.a.token,
      );
      if (created.status !== 201) throw new Error(`A's endpoint ${i}: ${created.status}`);
      ids.push(String(created.body.id));
    }
    return {
      run: async (until) => {
        let n = 0;
        await workers(4, until, async () => {
          await write(ctx.a, `${ctx.tag}-w${n++}`, `hanging endpoint note ${n}`);
          await sleep(50);
        });
        ctx.note(
          `A wrote ${n} memories (${ctx.a.client.summary()}); its receiver held ${receiver.held} deliveries`,
        );
      },
      cleanup: async () => {
        for (const id of ids)
          await ctx.a.client.json(
            'DELETE',
            `/api/v1/control/webhook-endpoints/${id}`,
            undefined,
            ctx.a.token,
          );
        await receiver.stop();
      },
    };
  },
};

/**
 * Failed logins for A's owner from one stranger's address, 32 at a time, wave after wave; meanwhile
 * B's owner logs in (from 127.0.0.1) once a second, and must get in every time.
 */
const loginFlood: Pressure = {
  id: 'login-flood',
  title: `32 concurrent failed logins at a time for A's owner from ${STRANGER_ADDRESS} (B's owner logs in meanwhile)`,
  prepare: async (ctx) => ({
    run: async (until) => {
      const stranger = new AddressedClient(ctx.stack.baseUrl, STRANGER_ADDRESS);
      const b = new Map<string, number>();
      const bLoginMs: number[] = [];
      const bLogins = workers(1, until, async () => {
        let kind: string;
        const began = Date.now();
        try {
          const res = await fetch(`${ctx.stack.baseUrl}/api/v1/control/sessions`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(ctx.stack.tenant.owner),
            signal: AbortSignal.timeout(10_000),
          });
          const body = (await res.json().catch(() => ({}))) as { details?: { code?: string } };
          kind = `${res.status}${body.details?.code ? ` ${body.details.code}` : ''}`;
        } catch (err) {
          kind = `no answer (${(err as Error).name})`;
        }
        bLoginMs.push(Date.now() - began);
        b.set(kind, (b.get(kind) ?? 0) + 1);
        await sleep(1_000);
      });
      let n = 0;
      const flood = workers(1, until, () =>
        Promise.all(
          Array.from({ length: 32 }, () =>
            stranger.json('POST', '/api/v1/control/sessions', {
              email: ctx.a.tenant.owner.email,
              password: `not the password ${n++}`,
            }),
          ),
        ),
      );
      await Promise.all([bLogins, flood]);
      stranger.close();
      const bSummary = [...b].map(([kind, k]) => `${kind} ×${k}`).join(', ');
      ctx.note(
        `the stranger tried ${n} logins (${stranger.summary()}); B's owner: ${bSummary}, worst ${Math.max(0, ...bLoginMs)} ms`,
      );
      const refused = [...b].filter(([kind]) => !kind.startsWith('201')).reduce((s, [, k]) => s + k, 0);
      if (refused) ctx.fail(`B's owner was refused ${refused} of its logins (${bSummary})`);
    },
  }),
};

/**
 * Recalls with the longest cue the contract allows (LIMITS.cueMaxChars), all common words that A's
 * namespace holds 500 records of, top_k at its maximum, 8 at a time without a pause.
 */
const heaviestCues: Pressure = {
  id: 'heaviest-cues',
  title: `A recalls with the longest cue (${LIMITS.cueMaxChars.toLocaleString('en')} characters of common words), 8 at a time`,
  prepare: async (ctx) => {
    for (let b = 0; b < 5; b++) {
      const res = await batch(
        ctx.a,
        Array.from({ length: LIMITS.writeBatchMaxItems }, (_, i) => ({
          key: `${ctx.tag}-seed-${b}-${i}`,
          text: commonWords(2_000, b * 100 + i),
        })),
      );
      if (res.status !== 200) throw new Error(`A's records: ${res.status}`);
    }
    ctx.a.client.answers.clear();
    return {
      run: async (until) => {
        let n = 0;
        await workers(8, until, () =>
          ctx.a.client.json(
            'POST',
            '/api/v1/memory/recall',
            {
              contract_version: CONTRACT_VERSION,
              namespace: ctx.a.namespace,
              cue: { text: commonWords(LIMITS.cueMaxChars, n++) },
              top_k: LIMITS.topK.max,
            },
            ctx.a.tenant.apiKey,
          ),
        );
        ctx.note(`A sent ${n} recalls (${ctx.a.client.summary()})`);
      },
    };
  },
};

/**
 * The largest document import a tenant may start: IMPORT_MAX_ROWS rows (14 MB of CSV, under the
 * 20 MiB upload bound), uploaded, estimated and started inside the row's window.
 */
const hugeImport: Pressure = {
  id: 'huge-import',
  title: `A uploads and starts the largest import (${IMPORT_MAX_ROWS.toLocaleString('en')} rows, 14 MB of CSV)`,
  prepare: async (ctx) => {
    const rows = Array.from({ length: IMPORT_MAX_ROWS }, (_, i) => `row ${i} ${commonWords(130, i)}`);
    const csv = `text\n${rows.join('\n')}\n`;
    return {
      run: async (until) => {
        const form = new FormData();
        form.set('format', '{text}');
        form.set('namespace', ctx.a.namespace);
        form.set('file', new Blob([csv], { type: 'text/csv' }), 'huge.csv');
        const uploaded = await ctx.a.client.form('/v1/imports', form, ctx.a.tenant.apiKey);
        const id = String(uploaded.body.id);
        const started =
          uploaded.status === 201
            ? await ctx.a.client.json('POST', `/v1/imports/${id}/start`, undefined, ctx.a.tenant.apiKey)
            : undefined;
        let processed = 0;
        while (started?.status === 202 && Date.now() < until) {
          await sleep(1_000);
          const job = await ctx.a.client.json('GET', `/v1/imports/${id}`, undefined, ctx.a.tenant.apiKey);
          processed = Number(job.body.processed ?? processed);
        }
        await sleep(Math.max(0, until - Date.now()));
        ctx.note(
          `A's import of ${(csv.length / 1e6).toFixed(1)} MB: upload ${uploaded.status}, start ${started?.status ?? '—'}, ${processed} rows processed by the window's end (${ctx.a.client.summary()})`,
        );
      },
    };
  },
};

/** The rows in the order they run: the import, which goes on past its window, last. */
export const PRESSURES: Pressure[] = [
  stalledConnections,
  largestBatch,
  hangingWebhooks,
  loginFlood,
  heaviestCues,
  hugeImport,
];

export function pressureById(id: string): Pressure {
  const found = PRESSURES.find((p) => p.id === id);
  if (!found) throw new Error(`no pressure "${id}" (${PRESSURES.map((p) => p.id).join(', ')})`);
  return found;
}
