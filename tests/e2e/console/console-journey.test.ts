import type { Page } from 'playwright-core';
import { describe, expect, it, vi } from 'vitest';
import {
  createConsoleKey,
  estimateCsvImport,
  goTo,
  logIn,
  openConsole,
  screenshot,
  useBrowser,
} from '../support/browser.js';
import { EVENTUALLY } from '../support/eventually.js';
import { createTenant, recallBody, uniqueNamespace } from '../support/factories.js';
import { useStack } from '../support/stack.js';

// A browser test walks several pages; on two shared cores (a CI run beside it) one took over 30 s.
vi.setConfig({ testTimeout: 120_000 });

// The issue's journey in one browser tab, every step through the console: the pages' own
// files test each page in depth; this one proves a new tenant can go from login to deletion.
const JOURNEY_MS = 240_000;

const t = useStack();
const b = useBrowser();

/** Through the navigation, as a user would (a reload would forget the API key held in the tab). */

/** Reads what a page shows, going away and back until `predicate` holds (telemetry and billing lag). */
async function revisit(page: Page, label: string, read: () => Promise<string | null>) {
  await goTo(page, 'Overview');
  await goTo(page, label);
  return (await read()) ?? '';
}

describe('the console: a new tenant from login to deleting its namespace', () => {
  it(
    'when an owner creates a key, writes and recalls with it, sees it in events and usage, revokes it, imports a CSV and deletes the namespace, then each step shows and holds in the API',
    async () => {
      const tenant = await createTenant();
      const namespace = uniqueNamespace('journey');
      const text = 'The night ferry to Skye leaves at eleven from the north pier';
      const { page, errors, context } = await openConsole(b.browser, t.stack.url);

      // Log in, create a key on the keys page: its secret shown once.
      await logIn(page, tenant.owner.email, tenant.owner.password);
      await goTo(page, 'API keys');
      await page.getByRole('button', { name: 'Create API key' }).click();
      await page.getByLabel('Name', { exact: true }).fill('journey-key');
      await page.getByRole('button', { name: 'Create key' }).click();
      const created = page.getByRole('region', { name: 'New API key journey-key' });
      await expect.poll(() => created.locator('code.secret').textContent(), EVENTUALLY).toMatch(/^tmk_/);
      const secret = (await created.locator('code.secret').textContent()) ?? '';
      await screenshot(page, 'journey-api-keys');
      await page.getByRole('button', { name: 'I have stored it' }).click();

      // The playground: paste the key, write, recall.
      await goTo(page, 'Playground');
      await page.getByLabel('API key for data calls').fill(secret);
      await page.getByRole('button', { name: 'Use key' }).click();
      await page.getByText('Using API key').waitFor();
      const write = page.getByRole('region', { name: 'Write', exact: true });
      await write.getByLabel('Namespace').fill(namespace);
      await write.getByLabel('Text').fill(text);
      await write.getByRole('button', { name: 'Write' }).click();
      const written = page.getByRole('region', { name: 'Write answer' });
      await expect.poll(() => written.textContent(), EVENTUALLY).toContain('retained');
      // The answer names its request: the events page must show that very request.
      await expect.poll(() => written.textContent(), EVENTUALLY).toMatch(/Request id\s*req_/);
      const requestId = /Request id\s*(req_[0-9a-f-]{36})/.exec((await written.textContent()) ?? '')?.[1];
      expect(requestId).toBeDefined();
      const recall = page.getByRole('region', { name: 'Recall', exact: true });
      await recall.getByLabel('Namespace').fill(namespace);
      await recall.getByLabel('Cue').fill('night ferry Skye');
      await recall.getByRole('button', { name: 'Recall' }).click();
      const recalled = page.getByRole('region', { name: 'Recall answer' });
      await expect.poll(() => recalled.getByRole('rowheader').first().textContent(), EVENTUALLY).toBe(text);
      await screenshot(page, 'journey-playground');

      // The write in the events, then in the usage (billing follows the outbox: it may lag).
      const writeRow = page
        .getByRole('row')
        .filter({ has: page.getByRole('button', { name: `Details of ${requestId}` }) });
      await expect
        .poll(
          () => revisit(page, 'Events', () => writeRow.textContent({ timeout: 500 }).catch(() => '')),
          EVENTUALLY,
        )
        .toMatch(/memory\.write.*200.*accepted/);
      await screenshot(page, 'journey-events');
      await t.stack.memory.flushOutbox();
      await expect
        .poll(
          () =>
            revisit(page, 'Usage and billing', () =>
              page.getByRole('region', { name: 'Usage, last 24 h' }).textContent(),
            ),
          EVENTUALLY,
        )
        .toMatch(/Billable requests\s*2(?!\d)/);
      await screenshot(page, 'journey-usage');

      // Revoke the key on the keys page; the playground's next recall is refused.
      await goTo(page, 'API keys');
      const row = page.getByRole('row', { name: /journey-key/ }).filter({ hasText: 'active' });
      await row.getByRole('button', { name: 'Revoke journey-key' }).click();
      await row.getByRole('button', { name: 'Revoke', exact: true }).click();
      await expect
        .poll(() => page.getByRole('row', { name: /journey-key/ }).textContent(), EVENTUALLY)
        .toContain('revoked');
      await goTo(page, 'Playground');
      await recall.getByLabel('Cue').fill('ferry');
      await recall.getByRole('button', { name: 'Recall' }).click();
      await expect.poll(() => recall.getByRole('alert').textContent(), EVENTUALLY).toContain('HTTP 401');
      expect((await t.api.recall(secret, recallBody(namespace, 'ferry'))).status).toBe(401);
      await screenshot(page, 'journey-refused');

      // A CSV import with a new console key, watched to completion.
      await goTo(page, 'Imports');
      await page.getByRole('button', { name: 'Use another key' }).click();
      await createConsoleKey(page);
      const job = await estimateCsvImport(
        page,
        'harbour.csv',
        'note\nThe harbour opens at six\nTide tables hang by the door\n',
        namespace,
      );
      await job.getByRole('button', { name: 'Start import of 2 rows' }).click();
      await expect.poll(() => job.textContent(), EVENTUALLY).toContain('completed');
      await expect
        .poll(() => job.textContent(), EVENTUALLY)
        .toContain('2 of 2 rows processed: 2 retained, 0 failed.');
      await screenshot(page, 'journey-import');

      // The namespace now holds three records; delete it by typing its name.
      await goTo(page, 'Namespaces');
      const listed = page.getByRole('row', { name: new RegExp(namespace) });
      await expect.poll(() => listed.getByRole('cell').first().textContent(), EVENTUALLY).toBe('3');
      await listed.getByRole('button', { name: `Delete ${namespace}` }).click();
      const confirm = page.getByRole('form', { name: 'Confirm: Delete namespace' });
      await confirm.getByLabel(/to delete namespace/).fill(namespace);
      await confirm.getByRole('button', { name: 'Delete namespace' }).click();
      await expect
        .poll(() => page.getByRole('region', { name: 'Deletion receipt' }).textContent(), EVENTUALLY)
        .toContain(`Deleted 3 records from ${namespace}`);
      await screenshot(page, 'journey-deleted');
      const after = await t.api.recall(tenant.api_key, recallBody(namespace, 'harbour ferry'));
      expect(after.body).toMatchObject({ state: 'no_data', related: [] });

      expect(errors).toEqual([]);
      await context.close();
    },
    JOURNEY_MS,
  );
});
