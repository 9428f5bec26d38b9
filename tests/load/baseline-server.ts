/**
 * The baseline the write path is compared with: a bare Express 5 app that parses the same JSON body
 * and does one INSERT per request through a pg pool, nothing else (no auth, no bus, no transaction,
 * no idempotency ledger). Started by the bench as a child process; prints {"port":N} once listening.
 *
 *   BASELINE_DATABASE_URL  database to write into (the bench creates and drops it)
 *   BASELINE_PORT          0 (default) picks a free port
 *   BASELINE_POOL_SIZE     10, like the memory service's default pool
 */
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import express from 'express';
import pg from 'pg';

const databaseUrl = process.env.BASELINE_DATABASE_URL;
if (!databaseUrl) throw new Error('BASELINE_DATABASE_URL is required');

const pool = new pg.Pool({
  connectionString: databaseUrl,
  max: Number(process.env.BASELINE_POOL_SIZE || 10),
});
await pool.query(`
  CREATE TABLE IF NOT EXISTS baseline_event (
    id uuid PRIMARY KEY,
    idempotency_key text NOT NULL,
    namespace text NOT NULL,
    event_id text NOT NULL,
    occurred_at timestamptz NOT NULL,
    text text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
  )`);

interface WriteBody {
  namespace?: string;
  event?: { event_id?: string; occurred_at?: string; content?: { text?: string } };
}

const app = express();
app.use(express.json({ limit: '256kb' }));
app.post('/api/v1/memory/write', async (req, res) => {
  const body = req.body as WriteBody;
  const key = req.get('idempotency-key') ?? '';
  const id = randomUUID();
  await pool.query(
    'INSERT INTO baseline_event (id, idempotency_key, namespace, event_id, occurred_at, text) VALUES ($1, $2, $3, $4, $5, $6)',
    [
      id,
      key,
      body.namespace ?? '',
      body.event?.event_id ?? key,
      body.event?.occurred_at ?? new Date(),
      body.event?.content?.text ?? '',
    ],
  );
  res.json({ state: 'retained', idempotency_outcome: 'Accepted', memory_id: id });
});

const server = app.listen(Number(process.env.BASELINE_PORT || 0), '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
});

const stop = () => {
  server.close();
  server.closeAllConnections();
  void pool.end().finally(() => process.exit(0));
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
