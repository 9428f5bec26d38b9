/**
 * The same-work baseline: a bare Express 5 app that does the database work the memory service
 * does for a write and a recall, with the memory service's own code, and nothing else: no gateway, no
 * auth, no NATS, no accounting, no rendering. What the stack adds to it is our overhead; what it costs
 * is the database's work that any implementation of the contract would do. Started by the bench as a
 * child process; prints {"port":N} once listening.
 *
 * - write: the write path's claim-and-retain statement (idempotency entry, record, postings and usage
 *   row in one statement), through the memory service's shared statements, into a throwaway
 *   database with the memory schema (its usage rows are never relayed, so nobody is billed).
 * - recall: the memory service's ranking (rankWeighted) on the bench's seeded namespace, read from
 *   the memory database itself, without the usage row a recall records.
 *
 *   SAME_WORK_DATABASE_URL  throwaway database with the memory schema, for writes (the bench creates it)
 *   MEMORY_DATABASE_URL     the memory database, read by recalls
 *   SAME_WORK_TENANT_ID     the tenant whose namespaces recalls read (the bench's key's)
 *   SAME_WORK_PORT          0 (default) picks a free port
 *   SAME_WORK_POOL_SIZE     10, like the memory service's default pool
 */
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { createPgPool } from '../../libs/kit/src/database.js';
import { timeOrderedId } from '../../libs/kit/src/ids.js';
import { poolRunner } from '../../libs/kit/src/sql-runner.js';
import { rankWeighted } from '../../services/memory/src/data-access/rank-weighted.js';
import { MEMORY_SESSION_SETTINGS } from '../../services/memory/src/data-access/session-settings.js';
import { createSharedStatements } from '../../services/memory/src/data-access/shared-statements.js';
import { cueTerms } from '../../services/memory/src/domain/cue-terms.js';
import { fingerprintWrite } from '../../services/memory/src/domain/fingerprint.js';
import { tokenize } from '../../services/memory/src/domain/tokenize.js';
import { tokenizeV1 } from '../../services/memory/src/domain/tokenize-v1.js';

const required = (name: string) => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
};
const tenantId = required('SAME_WORK_TENANT_ID');
const max = Number(process.env.SAME_WORK_POOL_SIZE || 10);
// The memory service's pool settings (session settings, timeouts), so its statements plan alike.
const poolOptions = { poolSize: max, settings: MEMORY_SESSION_SETTINGS };
const writes = createPgPool(required('SAME_WORK_DATABASE_URL'), poolOptions);
const reads = createPgPool(required('MEMORY_DATABASE_URL'), poolOptions);
const retain = createSharedStatements(poolRunner(writes));

interface Body {
  namespace?: string;
  event?: { event_id?: string; occurred_at?: string; content?: { text?: string } };
  cue?: { text?: string };
  top_k?: number;
}

const app = express();
app.use(express.json({ limit: '256kb' }));

app.post('/api/v1/memory/write', async (req, res) => {
  const body = req.body as Body;
  const key = req.get('idempotency-key') ?? '';
  const text = body.event?.content?.text ?? '';
  const eventId = body.event?.event_id ?? key;
  // Time-ordered keys, as the write path makes them (random ones would cost the index more WAL).
  const id = timeOrderedId();
  const requestId = randomUUID();
  const response = { state: 'retained', idempotency_outcome: 'Accepted', memory_id: id };
  const { claimed } = await retain({
    record: {
      id,
      tenantId,
      userId: 'same-work',
      namespace: body.namespace ?? '',
      eventId,
      occurredAt: new Date(body.event?.occurred_at ?? Date.now()),
      text,
      terms: tokenize(text),
      legacyTerms: tokenizeV1(text),
      source: null,
      requestId,
    },
    idempotency: {
      key,
      fingerprint: fingerprintWrite(body as Parameters<typeof fingerprintWrite>[0], eventId),
      response,
    },
    usage: { id: timeOrderedId(), subject: 'same-work.usage', payload: { request_id: requestId } },
  });
  res.status(claimed ? 200 : 409).json(response);
});

app.post('/api/v1/memory/recall', async (req, res) => {
  const body = req.body as Body;
  const cue = cueTerms(body.cue?.text ?? '');
  const ranked = await rankWeighted(poolRunner(reads), {
    tenantId,
    namespace: body.namespace ?? '',
    terms: cue.content.map((t) => t.term),
    tieTerms: cue.function.map((t) => t.term),
    asOf: null,
    limit: body.top_k ?? 10,
  });
  const rows = ranked.legacy ? [] : ranked.rows;
  res.json({
    operation: 'memory.recall',
    related: rows.map((r) => ({ event_id: r.event_id, score: r.score, text: r.text })),
  });
});

const server = app.listen(Number(process.env.SAME_WORK_PORT || 0), '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
});

const stop = () => {
  server.close();
  server.closeAllConnections();
  void Promise.all([writes.end(), reads.end()]).finally(() => process.exit(0));
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
