import type { Locator, Page } from 'playwright-core';
import { describe, expect, it, vi } from 'vitest';
import { axeViolations } from '../support/axe.js';
import {
  goTo,
  logIn,
  openConsole,
  openNavigation,
  PHONE,
  screenshot,
  useBrowser,
} from '../support/browser.js';
import { API_KEYS, controlSteps, suffix, USERS } from '../support/control.js';
import { EVENTUALLY } from '../support/eventually.js';
import { recallBody, uniqueKey, writeBody } from '../support/factories.js';
import { useStack } from '../support/stack.js';

// A browser test walks several pages; on two shared cores (a CI run beside it) one took over 30 s.
vi.setConfig({ testTimeout: 120_000 });

const t = useStack();
const b = useBrowser();
const { tenantWithSession } = controlSteps(t);

const STORAGE = '/api/v1/control/storage-connections';

/** The common laptop width the new-user trial used (half of such screens are 1366 px wide). */
const WIDE = { width: 1366, height: 768 };

interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Where an element is drawn, in page pixels (null when it is not drawn). */
const boxOf = (locator: Locator): Promise<Box | null> => locator.boundingBox({ timeout: 1_000 });

/** `inner` lies within `outer`, to half a pixel (sub-pixel rounding). */
const within = (inner: Box, outer: Box) =>
  inner.x >= outer.x - 0.5 &&
  inner.y >= outer.y - 0.5 &&
  inner.x + inner.width <= outer.x + outer.width + 0.5 &&
  inner.y + inner.height <= outer.y + outer.height + 0.5;

/**
 * What sticks out: each of `parts` drawn outside `container`'s box, named by its text or label. Empty
 * when everything lies within.
 */
async function outside(container: Locator, parts: Locator): Promise<string[]> {
  const frame = await boxOf(container);
  if (!frame) return ['(container not drawn)'];
  const out: string[] = [];
  for (const part of await parts.all()) {
    const box = await boxOf(part);
    if (box && !within(box, frame)) {
      const name = (await part.getAttribute('aria-label')) ?? (await part.textContent()) ?? '';
      out.push(`${await part.evaluate((e) => e.tagName)} ${name.trim().slice(0, 40)}`);
    }
  }
  return out;
}

/**
 * The page's own width beyond the window; the tables whose box scrolls sideways (wider content than
 * room), and of those the ones a keyboard cannot scroll (the box neither takes focus nor has a name).
 */
const overflow = (page: Page): Promise<{ page: number; tables: string[]; unreachable: string[] }> =>
  page.evaluate(`(() => {
    const scrolling = [...document.querySelectorAll('.table-scroll')].filter(
      (box) => box.scrollWidth > box.clientWidth + 1,
    );
    const name = (box) => box.querySelector('caption')?.textContent ?? '(table)';
    return {
      page: Math.max(0, document.documentElement.scrollWidth - window.innerWidth),
      tables: scrolling.map(name),
      unreachable: scrolling
        .filter((box) => box.tabIndex !== 0 || !box.getAttribute('aria-labelledby'))
        .map(name),
    };
  })()`);

describe("the console's API keys page at 1366 × 768", () => {
  it("when an owner opens the API keys page and its create form, then every field lies within the form's card and every row's actions are in the window", async () => {
    const tenant = await tenantWithSession();
    // A tenant after a while: a customer-owned connection with a long name (offered in the form's
    // select), and keys of other users (listed by email) with long names and every permission.
    const connection = await t.api.post(STORAGE, {
      key: tenant.session,
      body: {
        kind: 'customer_owned',
        name: 'analytics-warehouse-postgresql-eu-west-1-primary',
        settings: {
          engine: 'postgresql',
          host: 'db.customer.example',
          port: 6543,
          database: 'memories',
          username: 'svc',
        },
        secret: `secret-${suffix()}`,
      },
    });
    expect(connection.status).toBe(201);
    const colleague = {
      email: `integration-service-account-${suffix()}@analytics.example.test`,
      password: `pw-${suffix()}-${suffix()}`,
    };
    const user = await t.api.post(USERS, { key: tenant.session, body: { ...colleague, role: 'admin' } });
    expect(user.status).toBe(201);
    const theirs = await t.api.login(colleague.email, colleague.password);
    for (const name of ['ingest-worker-production-eu-west', 'console (tab) 2026-11-26 09:41:07', 'ci']) {
      const made = await t.api.post(API_KEYS, { key: theirs, body: { name } });
      expect(made.status).toBe(201);
    }
    const { page, errors, context } = await openConsole(b.browser, t.stack.url, WIDE);
    await logIn(page, tenant.owner.email, tenant.owner.password);
    await goTo(page, 'API keys');
    const rows = page.getByRole('row').filter({ has: page.getByRole('button', { name: /^Revoke / }) });
    await expect.poll(() => rows.count(), EVENTUALLY).toBe(4);

    await page.getByRole('button', { name: 'Create API key' }).click();
    const form = page.getByRole('form', { name: 'Create an API key' });
    await form.waitFor();
    await screenshot(page, 'wide-api-keys-create');
    await expect
      .poll(() => outside(form, form.locator('input, select, textarea, fieldset, label, button')), EVENTUALLY)
      .toEqual([]);

    // Every row's Edit, Rotate and Revoke is drawn inside the window, without scrolling the table.
    const actions = page.getByRole('button', { name: /^(Edit|Rotate|Revoke) / });
    await expect.poll(() => actions.count(), EVENTUALLY).toBe(12);
    // Across, the window; down, anywhere on the page (a long list scrolls the page, as it should).
    const window = { x: 0, y: -1e6, width: WIDE.width, height: 2e6 };
    await expect
      .poll(async () => {
        const off: string[] = [];
        for (const action of await actions.all()) {
          const box = await boxOf(action);
          if (!box || !within(box, window)) off.push((await action.getAttribute('aria-label')) ?? '?');
        }
        return off;
      }, EVENTUALLY)
      .toEqual([]);
    await expect.poll(() => overflow(page), EVENTUALLY).toEqual({ page: 0, tables: [], unreachable: [] });
    await screenshot(page, 'wide-api-keys-of-colleagues');
    expect(errors).toEqual([]);
    await context.close();
  });
});

// Every page at a laptop's width and a phone's (390 × 844): no sideways scrolling of the page, a table
// scrolls inside its own focusable box, and axe finds nothing serious.
describe.each([
  ['1366 × 768', WIDE],
  ['390 × 844', PHONE],
])('the console at %s', (_size, viewport) => {
  it('when an owner walks every page, then no page is wider than the window, no table scrolls unless its box takes focus, and axe finds nothing serious', async () => {
    const tenant = await tenantWithSession();
    // Rows as long as the API allows where the pages list them: a namespace of 128 characters (one
    // word), its write and recall (events, metrics, usage), a refused request and an unknown path.
    const namespace = `layout-${'n'.repeat(100)}-${suffix()}`.slice(0, 128);
    expect((await t.api.write(tenant.api_key, writeBody(namespace, 'a note'), uniqueKey())).status).toBe(200);
    expect((await t.api.recall(tenant.api_key, recallBody(namespace, 'note'))).status).toBe(200);
    expect((await t.api.recall(tenant.api_key, recallBody(namespace, 'note', { top_k: 0 }))).status).toBe(
      400,
    );
    expect((await t.api.get(`/api/v1/${'x'.repeat(150)}`, { key: tenant.api_key })).status).toBe(404);
    const { page, errors, context } = await openConsole(b.browser, t.stack.url, viewport);
    await logIn(page, tenant.owner.email, tenant.owner.password);
    const links = (await openNavigation(page)).getByRole('link');
    const labels = await links.allTextContents();
    expect(labels.length).toBeGreaterThan(10);
    for (const label of labels) {
      await goTo(page, label);
      // Whatever the page loads has arrived (its tables are drawn) before its width is measured.
      await page.waitForLoadState('networkidle');
      await expect.poll(() => page.getByText(/^Loading/).count(), EVENTUALLY).toBe(0);
      await screenshot(
        page,
        `${viewport === PHONE ? 'phone' : 'wide'}-${label.toLowerCase().replaceAll(/\W+/g, '-')}`,
      );
      // On a laptop every table fits; on a phone a wide one scrolls inside its box, which takes focus.
      await expect
        .poll(async () => {
          const { page: beyond, tables, unreachable } = await overflow(page);
          return { label, page: beyond, unreachable, ...(viewport === WIDE && { tables }) };
        }, EVENTUALLY)
        .toEqual({ label, page: 0, unreachable: [], ...(viewport === WIDE && { tables: [] }) });
      await expect
        .poll(async () => ({ label, serious: await axeViolations(page) }), EVENTUALLY)
        .toEqual({
          label,
          serious: [],
        });
    }
    expect(errors).toEqual([]);
    await context.close();
  });
});
