import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pruneHistoryBesideRecords } from '../src/data-access/history-retention.js';
import { getSql } from '../src/data-access/prisma-client.js';
import { ownDatabase } from './support/own-database.js';

// A database of this file's own: pruning deletes every tenant's old rows, whoever stored them.
const db = ownDatabase('history_retention');
beforeAll(() => db.open());
afterAll(() => db.close());

const RETENTION_DAYS = 30;
const daysAgo = (days: number, extraMs = 0) => new Date(Date.now() - days * 86_400_000 - extraMs);

async function storeHistoryAt(tenantId: string, when: Date) {
  const run = getSql();
  const minute = new Date(Math.floor(when.getTime() / 60_000) * 60_000);
  await run(
    `INSERT INTO request_rollup (tenant_id, minute, operation, deployment_version, requests, accepted, errors,
       server_errors, timeouts, blocked, max_latency_ms) VALUES ($1, $2, 'memory.write', 'unit', 1, 1, 0, 0, 0, 0, 5)`,
    [tenantId, minute],
  );
  await run(
    `INSERT INTO latency_rollup (tenant_id, minute, operation, bucket, requests) VALUES ($1, $2, 'memory.write', 3, 1)`,
    [tenantId, minute],
  );
  await run(
    `INSERT INTO dropped_record_report (message_id, gateway_instance, dropped, reported_at) VALUES ($1, $2, 1, $3)`,
    [`${tenantId}-drop`, tenantId, when],
  );
  await run(
    `INSERT INTO usage_dead_letter (stream_sequence, reason, dead_lettered_at)
     VALUES ((SELECT coalesce(max(stream_sequence), 0) + 1 FROM usage_dead_letter), $1, $2)`,
    [tenantId, when],
  );
  await run(
    `INSERT INTO request_record_dead_letter (letter_id, gateway_instance, reason, payload, dead_lettered_at)
     VALUES ($1, $2, 'unit', '{}', $3)`,
    [`${tenantId}-letter`, tenantId, when],
  );
}

async function historyOf(tenantId: string) {
  const [row] = await getSql()<Record<string, number>>(
    `SELECT (SELECT count(*) FROM request_rollup WHERE tenant_id = $1)::int AS request_rollup,
            (SELECT count(*) FROM latency_rollup WHERE tenant_id = $1)::int AS latency_rollup,
            (SELECT count(*) FROM dropped_record_report WHERE gateway_instance = $1)::int AS drop_reports,
            (SELECT count(*) FROM usage_dead_letter WHERE reason = $1)::int AS usage_dead_letters,
            (SELECT count(*) FROM request_record_dead_letter WHERE gateway_instance = $1)::int AS record_dead_letters`,
    [tenantId],
  );
  return row;
}

const all = (n: number) => ({
  request_rollup: n,
  latency_rollup: n,
  drop_reports: n,
  usage_dead_letters: n,
  record_dead_letters: n,
});

describe('pruneHistoryBesideRecords', () => {
  it('when history is past retention, then its rollup minutes, drop reports and dead letters go and newer ones stay', async () => {
    // Arrange: one set two minutes past retention, one a day inside it.
    const old = `old-${randomUUID()}`;
    const recent = `recent-${randomUUID()}`;
    await storeHistoryAt(old, daysAgo(RETENTION_DAYS, 2 * 60_000));
    await storeHistoryAt(recent, daysAgo(RETENTION_DAYS - 1));

    // Act
    await pruneHistoryBesideRecords(getSql(), RETENTION_DAYS);

    // Assert
    expect(await historyOf(old)).toEqual(all(0));
    expect(await historyOf(recent)).toEqual(all(1));
  });

  it('when a rollup minute is only partly past retention, then it stays until all of it is', async () => {
    // Arrange: rollups of the minute that holds the retention's edge.
    const edge = `edge-${randomUUID()}`;
    await storeHistoryAt(edge, daysAgo(RETENTION_DAYS - 1));
    for (const table of ['request_rollup', 'latency_rollup']) {
      await getSql()(
        `UPDATE ${table} SET minute = date_trunc('minute', now() - make_interval(days => $2)) WHERE tenant_id = $1`,
        [edge, RETENTION_DAYS],
      );
    }

    // Act
    await pruneHistoryBesideRecords(getSql(), RETENTION_DAYS);

    // Assert
    expect(await historyOf(edge)).toEqual(all(1));
  });
});
