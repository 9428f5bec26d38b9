import { describe, expect, it, vi } from 'vitest';
import { createConsoleKey, goTo, logIn, openConsole, useBrowser } from '../support/browser.js';
import { tenantWithRecords } from '../support/deletions.js';
import { EVENTUALLY } from '../support/eventually.js';
import { recallBody, uniqueNamespace } from '../support/factories.js';
import { recordsInNamespace } from '../support/memory-db.js';
import { useStack } from '../support/stack.js';

// A browser test walks several pages; on two shared cores (a CI run beside it) one took over 30 s.
vi.setConfig({ testTimeout: 120_000 });

/** A browser test walks several pages; on two shared cores one takes 10-40 s. */
const TEST_MS = 180_000;

// Batches of 5 records and no wait in the DELETE: a few hundred records take many batches, and the
// console always gets the 202 and follows the job.
const t = useStack({ memoryEnv: { MEMORY_DELETE_BATCH_SIZE: '5', MEMORY_DELETE_WAIT_MS: '0' } });
const b = useBrowser();

describe('the console: deleting a namespace', () => {
  it(
    'when a namespace of 400 records is deleted, then the page shows records deleted of the total until the receipt is final',
    async () => {
      const namespace = uniqueNamespace('console-big');
      const tenant = await tenantWithRecords(t.api, namespace, 400);
      const { page, errors, context } = await openConsole(b.browser, t.stack.url);
      await logIn(page, tenant.owner.email, tenant.owner.password);
      await goTo(page, 'Namespaces');
      await createConsoleKey(page);
      // Every status read the page makes, seen on its way (not answered here).
      const polls: string[] = [];
      await page.route(
        (url) => url.pathname.startsWith('/api/v1/memory/deletions/'),
        (route) => {
          polls.push(route.request().url());
          return route.continue();
        },
      );

      const row = page.getByRole('row', { name: new RegExp(namespace) });
      await row.getByRole('button', { name: `Delete ${namespace}` }).click();
      const confirm = page.getByRole('form', { name: 'Confirm: Delete namespace' });
      await confirm.getByLabel(/to delete namespace/).fill(namespace);
      await confirm.getByRole('button', { name: 'Delete namespace' }).click();

      await expect
        .poll(
          () => page.getByText(/^Deleting: [\d,]+ of 400 records \([\d,]+ batches\)$/).count(),
          EVENTUALLY,
        )
        .toBe(1);
      const receipt = page.getByRole('region', { name: 'Deletion receipt' });
      await expect
        .poll(() => receipt.textContent(), { ...EVENTUALLY, timeout: 120_000 })
        .toContain(`Deleted 400 records from ${namespace}`);
      expect(await receipt.textContent()).toContain('not_retained');
      expect(await page.getByText(/^Deleting:/).count()).toBe(0);
      expect(polls.length).toBeGreaterThan(0);
      expect(await recordsInNamespace(tenant.tenant_id, namespace)).toBe(0);
      const after = await t.api.recall(tenant.api_key, recallBody(namespace, 'harbour crane'));
      expect(after).toMatchObject({ status: 200, body: { state: 'no_data', related: [] } });
      expect(errors).toEqual([]);
      await context.close();
    },
    TEST_MS,
  );
});
