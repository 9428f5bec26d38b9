import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closePrisma, getPrisma, getSql, initPrisma } from '../src/data-access/prisma-client.js';
import { rankByOverlap } from '../src/data-access/rank-by-overlap.js';

const run = promisify(execFile);
const serviceDir = join(import.meta.dirname, '..');
const server = process.env.TEST_PG_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const dbName = `tmt_migrate_${process.pid}_${Date.now().toString(36)}`;
const dbUrl = Object.assign(new URL(server), { pathname: `/${dbName}` }).toString();

async function admin(sql: string) {
  const c = new pg.Client({ connectionString: server });
  await c.connect();
  await c.query(sql);
  await c.end();
}

beforeAll(async () => {
  await admin(`CREATE DATABASE "${dbName}"`);
  await run(join(serviceDir, 'node_modules', '.bin', 'prisma'), ['migrate', 'deploy'], {
    cwd: serviceDir,
    env: { ...process.env, MEMORY_DATABASE_URL: dbUrl },
  });
  initPrisma(dbUrl, 2);
});
afterAll(async () => {
  await closePrisma();
  await admin(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`);
});

describe('memory migrations', () => {
  it('when every migration is applied to an empty database, then all are recorded and each model can be queried', async () => {
    const prisma = getPrisma();
    const dirs = readdirSync(join(serviceDir, 'prisma', 'migrations'), { withFileTypes: true }).filter((d) =>
      d.isDirectory(),
    );
    const applied = await prisma.$queryRaw<
      Array<{ n: bigint }>
    >`SELECT count(*) AS n FROM _prisma_migrations WHERE finished_at IS NOT NULL`;

    expect(Number(applied[0]?.n)).toBe(dirs.length);
    await expect(prisma.memoryRecord.findFirst()).resolves.toBeNull();
    await expect(prisma.supersessionRelation.findFirst()).resolves.toBeNull();
    await expect(prisma.idempotencyEntry.findFirst()).resolves.toBeNull();
    await expect(prisma.outboxMessage.findFirst()).resolves.toBeNull();
    await expect(prisma.memoryTerm.findFirst()).resolves.toBeNull();
    await expect(
      rankByOverlap(getSql(), { tenantId: 't', namespace: 'n', cueTerms: ['a'], asOf: null, limit: 1 }),
    ).resolves.toEqual([]);
  });

  it('then recall counts overlap on the postings primary key, scoped first and ordered by term', async () => {
    const prisma = getPrisma();
    const rows = await prisma.$queryRaw<Array<{ indexdef: string }>>`
      SELECT indexdef FROM pg_indexes WHERE tablename = 'memory_term' AND indexname = 'memory_term_pkey'`;
    expect(rows[0]?.indexdef).toContain('(scope_key, term, occurred_at, memory_id)');
  });
});
