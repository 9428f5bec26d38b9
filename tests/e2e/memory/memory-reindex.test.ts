import pg from 'pg';
import { describe, expect, it, vi } from 'vitest';
import { goTo, logIn, openConsole, useBrowser } from '../support/browser.js';
import { EVENTUALLY, eventually } from '../support/eventually.js';
import { createTenant, recallBody, uniqueKey, uniqueNamespace, writeBody } from '../support/factories.js';
import { stackEnv, useStack } from '../support/stack.js';

// A browser page and a re-index that must first be held, then finish, on two shared cores.
vi.setConfig({ testTimeout: 120_000 });

/**
 * The re-index's progress as an operator sees it: the memory service's health report, the gateway's
 * health and release record, and the console's health card. A namespace is made legacy in the memory
 * database as the upgrade left it (a pending memory_reindex row); one of its records is held FOR UPDATE
 * (as a forget in progress holds it), so the worker's batches wait and fail until it is let go.
 */
const t = useStack({ memoryEnv: { REINDEX_POLL_MS: '100', REINDEX_BATCH_SIZE: '5' } });
const b = useBrowser();

async function memoryDb() {
  const client = new pg.Client({ connectionString: stackEnv().memoryDbUrl });
  await client.connect();
  return client;
}

const reindexOf = async () => (await t.api.get('/api/v1/infrastructure/health')).body.services.memory.reindex;

describe('re-index progress in health, the release record and the console', () => {
  it('when a namespace is waiting for its re-index, then health, the release record and the console show it, and once done the console no longer does', async () => {
    const tenant = await createTenant();
    const namespace = uniqueNamespace('legacy');
    for (let i = 0; i < 12; i++) {
      const res = await t.api.write(tenant.api_key, writeBody(namespace, `walking note ${i}`), uniqueKey());
      expect(res.status).toBe(200);
    }
    // Nothing was ever re-indexed here (a fresh install): no block.
    expect(await reindexOf()).toBeUndefined();

    const holder = await memoryDb();
    const db = await memoryDb();
    try {
      await holder.query('BEGIN');
      await holder.query(
        `SELECT 1 FROM memory_record WHERE tenant_id = $1 AND namespace = $2 ORDER BY event_id LIMIT 1 FOR UPDATE`,
        [tenant.tenant_id, namespace],
      );
      await db.query(`INSERT INTO memory_reindex (tenant_id, namespace, records_total) VALUES ($1, $2, 12)`, [
        tenant.tenant_id,
        namespace,
      ]);
      const waiting = {
        namespaces_pending: 1,
        namespaces_indexing: 0,
        namespaces_cleaning: 0,
        namespaces_completed: 0,
        namespaces_total: 1,
        records_done: 0,
        records_total: 12,
      };

      await expect.poll(reindexOf, EVENTUALLY).toEqual(waiting);
      // Health's readings: public on the health route, and on the release record's operator view only.
      const health = await eventually(async () => {
        const res = await t.api.get('/api/v1/infrastructure/health');
        expect(res.body.services.memory.reindex).toEqual(waiting);
        return res;
      });
      expect(health.status).toBe(200);
      // Meanwhile recall ranks it by the old index.
      const recalled = await t.api.recall(tenant.api_key, recallBody(namespace, 'walking'));
      expect(recalled.body.ranking.model_version).toBe('deterministic-lexical-v1');

      const { page, errors, context } = await openConsole(b.browser, t.stack.url);
      await logIn(page, tenant.owner.email, tenant.owner.password);
      const card = page.locator('.card', { has: page.getByRole('heading', { name: /Health/ }) });
      await expect
        .poll(() => card.getByText('0 of 12 records re-indexed', { exact: false }).count(), EVENTUALLY)
        .toBe(1);
      expect(await card.getByRole('progressbar').getAttribute('value')).toBe('0');

      await holder.query('COMMIT');
      await expect.poll(reindexOf, EVENTUALLY).toEqual({
        ...waiting,
        namespaces_pending: 0,
        namespaces_completed: 1,
        records_done: 12,
      });
      expect(
        (await t.api.recall(tenant.api_key, recallBody(namespace, 'walked'))).body.ranking.model_version,
      ).toBe('deterministic-lexical-v2');
      // The overview reads health when it opens: away and back.
      await goTo(page, 'Connect an app');
      await goTo(page, 'Overview');
      await card.waitFor();
      expect(await card.getByText('records re-indexed', { exact: false }).count()).toBe(0);
      expect(await card.getByRole('progressbar').count()).toBe(0);
      expect(errors).toEqual([]);
      await context.close();
    } finally {
      await holder.query('ROLLBACK').catch(() => undefined);
      await holder.end();
      await db.end();
    }
  });
});
