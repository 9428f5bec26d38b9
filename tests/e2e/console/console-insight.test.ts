import { randomUUID } from 'node:crypto';
import type { Locator } from 'playwright-core';
import { describe, expect, it, vi } from 'vitest';
import { CHARGES, publishPastUsage } from '../support/billing.js';
import { goTo, logIn, openConsole, PHONE, screenshot, useBrowser } from '../support/browser.js';
import { controlSteps } from '../support/control.js';
import { EVENTUALLY } from '../support/eventually.js';
import { createTenant, recallBody, uniqueKey, uniqueNamespace, writeBody } from '../support/factories.js';
import { useStack } from '../support/stack.js';
import { eventsFor } from '../support/telemetry.js';

// A browser test walks several pages; on two shared cores (a CI run beside it) one took over 30 s.
vi.setConfig({ testTimeout: 120_000 });

const t = useStack();
const b = useBrowser();
const { addUser } = controlSteps(t);

/** A test walks several pages, each waiting for telemetry or billing to catch up: on two shared cores, more than the default 30 s. */
const TEST_TIMEOUT = 120_000;
/** `n` latency cells (p50, p95, p99, max). */
const ms = (n: number) => Array.from({ length: n }, () => expect.stringMatching(/^[\d.,]+ ms$/));

/**
 * The cells of the first table row whose header names `operation` (header first), or [] while there is
 * none: read cell by cell, since a row's text runs its numbers together.
 */
const cellsOf = (table: Locator, operation: string) =>
  table
    .getByRole('row')
    .filter({ has: table.page().getByRole('rowheader', { name: operation, exact: true }) })
    .first()
    .locator('th, td')
    .allTextContents()
    .catch(() => []);

/** The cells of a table's column by its header (a chart's table for screen readers), and their sum. */
async function column(table: Locator, header: string) {
  const headers = await table.locator('thead th').allTextContents();
  const cells = await table
    .locator(`tbody tr > :nth-child(${headers.indexOf(header) + 1})`)
    .allTextContents();
  return { cells, sum: cells.reduce((sum, cell) => sum + (Number(cell.replace(/[^\d.]/g, '')) || 0), 0) };
}

/** A write, two recalls and a recall the API refuses (400), with request ids to find them by. */
async function traffic(apiKey: string) {
  const namespace = uniqueNamespace();
  const ids = { write: `write-${randomUUID()}`, invalid: `invalid-${randomUUID()}` };
  const write = await t.api.write(apiKey, writeBody(namespace, 'the console reads this'), uniqueKey(), {
    'X-Request-Id': ids.write,
  });
  expect(write.status).toBe(200);
  for (let i = 0; i < 2; i++)
    expect((await t.api.recall(apiKey, recallBody(namespace, 'console'))).status).toBe(200);
  const invalid = await t.api.post('/api/v1/memory/recall', {
    key: apiKey,
    body: recallBody(namespace, 'console', { top_k: 0 }),
    headers: { 'X-Request-Id': ids.invalid },
  });
  expect(invalid.status).toBe(400);
  await eventsFor(t.api, apiKey, [ids.write, ids.invalid]);
  return ids;
}

/** Publishes pending usage and waits until the ledger holds `count` charges of the tenant. */
async function chargesRecorded(session: string, count: number) {
  await t.stack.memory.flushOutbox();
  await expect
    .poll(async () => (await t.api.get(CHARGES, { key: session })).body.paging?.total, EVENTUALLY)
    .toBeGreaterThanOrEqual(count);
  return (await t.api.get(CHARGES, { key: session })).body.data as Array<{
    id: string;
    request_id: string;
    operation: string;
    state: string;
  }>;
}

describe('the console: what happened and what it cost', () => {
  it(
    'when requests were made with an API key, then the overview, metrics and events pages show them, the refused one as failed',
    async () => {
      const tenant = await createTenant();
      const ids = await traffic(tenant.api_key);
      const { page, errors, context } = await openConsole(b.browser, t.stack.url);
      await logIn(page, tenant.owner.email, tenant.owner.password);

      // Overview: the health card as before (its state is console-login's to check: on a loaded machine a
      // ping may time out), and the last hour per operation.
      await expect
        .poll(() => page.getByRole('heading', { name: /Health/ }).textContent(), EVENTUALLY)
        .toMatch(/Health (ok|degraded|unavailable)/);
      const lastHour = page.getByRole('table', { name: 'Requests per operation in the last hour' });
      await expect
        .poll(() => cellsOf(lastHour, 'memory.write'), EVENTUALLY)
        .toEqual(['memory.write', '1', ...ms(4)]);
      await expect
        .poll(() => cellsOf(lastHour, 'memory.recall'), EVENTUALLY)
        .toEqual(['memory.recall', '3', ...ms(4)]);
      await expect
        .poll(() => page.getByRole('heading', { name: /Anomalies/ }).textContent(), EVENTUALLY)
        .toMatch(/ok|anomalous|no_data/);
      await page.getByRole('heading', { name: 'Usage, last 30 days' }).waitFor();
      await screenshot(page, 'insight-overview');

      // Metrics: the operation rows with their counts, the failed recall in the error rate.
      await goTo(page, 'Metrics and anomalies');
      const perOperation = page.getByRole('table', { name: 'Latency per operation' });
      await expect
        .poll(() => cellsOf(perOperation, 'memory.recall'), EVENTUALLY)
        .toEqual(['memory.recall', '3', ...ms(4)]);
      await expect
        .poll(() => cellsOf(perOperation, 'memory.write'), EVENTUALLY)
        .toEqual(['memory.write', '1', ...ms(4)]);
      await expect
        .poll(() => cellsOf(page.getByRole('table', { name: 'Operation mix' }), 'memory.recall'), EVENTUALLY)
        .toEqual(['memory.recall', '3', expect.stringMatching(/%/)]);
      const errorsCard = page.getByRole('region', { name: 'Errors and refusals' });
      await expect.poll(() => errorsCard.textContent(), EVENTUALLY).toMatch(/1 failed/);
      // Another window reads again and is kept in the address.
      await page.getByLabel('Window').selectOption({ label: 'last 24 h' });
      await expect.poll(() => page.url(), EVENTUALLY).toContain('window=1440');
      await expect
        .poll(() => cellsOf(perOperation, 'memory.write'), EVENTUALLY)
        .toEqual(['memory.write', '1', ...ms(4)]);
      await screenshot(page, 'insight-metrics');

      // Events: the write's row with its operation and status; the refused recall as failed, with its code.
      await goTo(page, 'Events');
      const writeRow = page
        .getByRole('row')
        .filter({ has: page.getByRole('button', { name: `Details of ${ids.write}` }) });
      await expect
        .poll(() => writeRow.textContent({ timeout: 200 }).catch(() => ''), EVENTUALLY)
        .toMatch(/memory\.write.*200.*accepted/);
      const invalidRow = page
        .getByRole('row')
        .filter({ has: page.getByRole('button', { name: `Details of ${ids.invalid}` }) });
      await expect
        .poll(() => invalidRow.textContent(), EVENTUALLY)
        .toMatch(/memory\.recall.*validation_failed.*400.*failed/);
      await page.getByRole('button', { name: `Details of ${ids.invalid}` }).click();
      const details = page.getByRole('region', { name: `Request ${ids.invalid}` });
      await expect.poll(() => details.textContent(), EVENTUALLY).toMatch(/Error code\s*validation_failed/);
      // Filtered on the server: the failed request is the one row, and the page says the rows match.
      await page.getByLabel('Outcome').selectOption('failed');
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await expect
        .poll(() => page.getByRole('button', { name: /^Details of / }).allTextContents(), EVENTUALLY)
        .toEqual([`Details of ${ids.invalid}`]);
      await expect.poll(() => page.getByText(/^Page 1: 1 matching rows,/).count(), EVENTUALLY).toBe(1);
      await screenshot(page, 'insight-events');
      expect(errors).toEqual([]);
      await context.close();
    },
    TEST_TIMEOUT,
  );

  it(
    'when the events are filtered by operation and time, then the server finds every matching row, page by page, and nothing else',
    async () => {
      const tenant = await createTenant();
      const namespace = uniqueNamespace();
      const recalls: string[] = [];
      for (let i = 0; i < 30; i++) {
        const id = `recall-${randomUUID()}`;
        recalls.push(id);
        const recall = await t.api.post('/api/v1/memory/recall', {
          key: tenant.api_key,
          body: recallBody(namespace, 'console'),
          headers: { 'X-Request-Id': id },
        });
        expect(recall.status).toBe(200);
        // A write between recalls: a filter of the loaded page alone would show a few recalls per page.
        expect(
          (await t.api.write(tenant.api_key, writeBody(namespace, `note ${i}`), uniqueKey())).status,
        ).toBe(200);
      }
      await eventsFor(t.api, tenant.api_key, recalls);

      const { page, errors, context } = await openConsole(b.browser, t.stack.url);
      await logIn(page, tenant.owner.email, tenant.owner.password);
      await goTo(page, 'Events');
      await page.getByLabel('Rows per page').selectOption('25');
      await page.getByLabel('Operation').fill('memory.recall');
      await page.getByRole('button', { name: 'Apply filters' }).click();
      // Page 1: 25 recalls, the newest first; page 2: the other 5. No write on either.
      const operations = () => page.getByRole('rowheader').allTextContents();
      const detailsOf = () =>
        page
          .getByRole('button', { name: /^Details of / })
          .allTextContents()
          .then((names) => names.map((name) => name.replace('Details of ', '')));
      await expect.poll(detailsOf, EVENTUALLY).toEqual([...recalls].reverse().slice(0, 25));
      await expect.poll(operations, EVENTUALLY).toEqual(Array(25).fill('memory.recall'));
      await page.getByRole('button', { name: 'Next page' }).click();
      await expect.poll(detailsOf, EVENTUALLY).toEqual([...recalls].reverse().slice(25));
      await expect.poll(operations, EVENTUALLY).toEqual(Array(5).fill('memory.recall'));
      await expect
        .poll(() => page.getByRole('button', { name: 'Next page' }).isDisabled(), EVENTUALLY)
        .toBe(true);
      await screenshot(page, 'insight-events-filtered');

      // A time range after every request: nothing matches, and the page says so.
      await page.getByLabel('From', { exact: true }).fill('2099-01-01T00:00');
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await expect
        .poll(() => page.getByText('No request in the history matches the filters.').count(), EVENTUALLY)
        .toBe(1);
      expect(await page.getByRole('button', { name: /^Details of / }).count()).toBe(0);
      // Cleared, the whole history is back, writes included.
      await page.getByRole('button', { name: 'Clear' }).click();
      await expect
        .poll(operations, EVENTUALLY)
        .toEqual(expect.arrayContaining(['memory.write', 'memory.recall']));
      expect(errors).toEqual([]);
      await context.close();
    },
    TEST_TIMEOUT,
  );

  it(
    "when an owner voids a charge through the typed confirmation, then billing shows the window's usage and the API reports the charge void",
    async () => {
      const tenant = await createTenant();
      const session = await t.api.login(tenant.owner.email, tenant.owner.password);
      await traffic(tenant.api_key);
      const charges = await chargesRecorded(session, 3);
      const write = charges.find((c) => c.operation === 'memory.write');
      if (!write) throw new Error('no write charge');

      const { page, errors, context } = await openConsole(b.browser, t.stack.url);
      await logIn(page, tenant.owner.email, tenant.owner.password);
      await goTo(page, 'Usage and billing');

      const usage = page.getByRole('region', { name: 'Usage, last 24 h' });
      await expect.poll(() => usage.textContent(), EVENTUALLY).toMatch(/Billable requests\s*3(?!\d)/);
      const perOperation = page.getByRole('table', { name: 'Usage per operation' });
      // A day in 15-minute buckets: the usage chart's numbers add up to the window's totals.
      const usageChart = page.getByRole('table', { name: 'Usage per 15 min' });
      await expect.poll(() => column(usageChart, 'Billable requests'), EVENTUALLY).toMatchObject({ sum: 3 });
      await expect.poll(() => column(usageChart, 'Units'), EVENTUALLY).toMatchObject({ sum: 3 });
      await expect
        .poll(() => cellsOf(perOperation, 'memory.write'), EVENTUALLY)
        .toEqual(['memory.write', '1', '1', '$0.0001']);
      await expect
        .poll(() => cellsOf(perOperation, 'memory.recall'), EVENTUALLY)
        .toEqual(['memory.recall', '2', '2', '$0.0001']);

      await page.getByRole('button', { name: `Void the charge of request ${write.request_id}` }).click();
      await page.getByLabel("Reason (kept in the charge's history)").fill('test traffic');
      const confirm = page.getByRole('button', { name: 'Void charge', exact: true });
      await expect.poll(() => confirm.isDisabled(), EVENTUALLY).toBe(true);
      await page.getByLabel('Type void to void charge').fill('void');
      await screenshot(page, 'insight-billing-void');
      await confirm.click();

      await expect
        .poll(() => page.getByText(`Charge ${write.id} is now void.`).isVisible(), EVENTUALLY)
        .toBe(true);
      const voided = await t.api.get(CHARGES, { key: session, query: { state: 'void' } });
      expect(voided.body.data).toEqual([
        expect.objectContaining({
          id: write.id,
          state: 'void',
          history: expect.arrayContaining([
            expect.objectContaining({ to: 'void', reason: 'test traffic', actor_user_id: tenant.user_id }),
          ]),
        }),
      ]);
      // The usage totals read again: the voided write's charge is counted as voided.
      await expect.poll(() => usage.textContent(), EVENTUALLY).toMatch(/Voided\s*\$0\.0001/);
      // The charges chart leaves the void one out: the two recalls' $0.00005 each.
      const chargesChart = page.getByRole('table', { name: 'Charges per 15 min' });
      await expect
        .poll(async () => Math.round((await column(chargesChart, 'Charges (USD)')).sum * 1e8), EVENTUALLY)
        .toBe(10_000);
      await page.getByRole('button', { name: 'Create invoice' }).waitFor();
      await screenshot(page, 'insight-billing');
      expect(errors).toEqual([]);
      await context.close();
    },
    TEST_TIMEOUT,
  );

  it(
    'when an owner closes a past month into an invoice, then it is listed with its charges and total and the API has them invoiced; the open month is refused with the reason',
    async () => {
      const tenant = await createTenant();
      const session = await t.api.login(tenant.owner.email, tenant.owner.password);
      await publishPastUsage(t.stack.env.natsUrl, tenant, ['2026-09-03T10:00:00Z', '2026-09-20T12:00:00Z']);
      await chargesRecorded(session, 2);

      const { page, errors, context } = await openConsole(b.browser, t.stack.url);
      await logIn(page, tenant.owner.email, tenant.owner.password);
      await goTo(page, 'Usage and billing');
      const invoices = page.getByRole('region', { name: 'Invoices' });
      await invoices.getByText('No invoice yet.').waitFor();
      const month = invoices.getByLabel('Month (UTC)');
      const create = invoices.getByRole('button', { name: 'Create invoice' });

      await month.fill(new Date().toISOString().slice(0, 7));
      await create.click();
      await expect
        .poll(() => invoices.getByRole('alert').textContent(), EVENTUALLY)
        .toMatch(/has not closed yet.*HTTP 409 · already_exists/);
      await month.fill('2026-09');
      await create.click();

      await expect
        .poll(() => invoices.getByText('Invoice for 2026-09: 2 charges, $0.0002.').isVisible(), EVENTUALLY)
        .toBe(true);
      // The list reloads after the confirmation shows: wait for the new row, not just the message.
      await expect
        .poll(() => cellsOf(invoices.getByRole('table', { name: 'Invoices' }), '2026-09'), EVENTUALLY)
        .toEqual(['2026-09', '2', '$0.0002', expect.any(String)]);
      await expect.poll(() => invoices.getByRole('alert').count(), EVENTUALLY).toBe(0);
      const invoiced = await t.api.get(CHARGES, { key: session, query: { state: 'invoiced' } });
      expect(invoiced.body.paging.total).toBe(2);
      await screenshot(page, 'insight-billing-invoice');
      expect(errors).toEqual([]);
      await context.close();
    },
    TEST_TIMEOUT,
  );

  it(
    'when a viewer opens billing at a phone width, then charges are listed without Void or Create invoice',
    async () => {
      const tenant = await createTenant();
      const session = await t.api.login(tenant.owner.email, tenant.owner.password);
      const viewer = await addUser(session, 'viewer');
      await traffic(tenant.api_key);
      await chargesRecorded(session, 3);

      const { page, errors, context } = await openConsole(b.browser, t.stack.url, PHONE);
      await logIn(page, viewer.email, viewer.password);
      await goTo(page, 'Usage and billing');

      await expect.poll(() => page.getByText(/Charges 1–3 of 3/).isVisible(), EVENTUALLY).toBe(true);
      expect(await page.getByRole('button', { name: /^Void/ }).count()).toBe(0);
      expect(await page.getByRole('button', { name: 'Create invoice' }).count()).toBe(0);
      await expect.poll(() => page.getByText('No invoice yet.').isVisible(), EVENTUALLY).toBe(true);
      await screenshot(page, 'insight-billing-viewer-phone');
      expect(errors).toEqual([]);
      await context.close();
    },
    TEST_TIMEOUT,
  );
});
