import type { Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it, vi } from 'vitest';
import {
  goTo,
  logIn,
  openConsole,
  openNavigation,
  PHONE,
  screenshot,
  useBrowser,
  webStorage,
} from '../support/browser.js';
import { controlSteps, suffix } from '../support/control.js';
import { EVENTUALLY } from '../support/eventually.js';
import { uniqueKey, uniqueNamespace, writeBody } from '../support/factories.js';
import { recordSecrets } from '../support/log-capture.js';
import { useStack } from '../support/stack.js';
import { useReceiver, WEBHOOK_ENDPOINTS } from '../support/webhooks.js';

// The console's webhook pages in a real Chromium, against the stack and a receiver on 127.0.0.1
// (the stack allows loopback). Retries 200 ms apart: a failing endpoint is given up on within a second.
vi.setConfig({ testTimeout: 120_000 });

const t = useStack({ webhooksEnv: { WEBHOOKS_RETRY_SCHEDULE_MS: '200,200,200' } });
const b = useBrowser();
const { tenantWithSession, addUser } = controlSteps(t);
const receiver = useReceiver();

interface Endpoint {
  id: string;
  url: string;
  events: string[];
  enabled: boolean;
  disabled_reason: string | null;
}
const endpointsOf = async (session: string) =>
  (await t.api.get(WEBHOOK_ENDPOINTS, { key: session })).body.data as Endpoint[];

/** The secret a "shown once" panel holds. */
const secretIn = (page: Page, title: string) =>
  page.getByRole('region', { name: title }).locator('code.secret').textContent();

async function writeOne(apiKey: string) {
  const res = await t.api.write(
    apiKey,
    writeBody(uniqueNamespace('console-hooks'), 'a hooked note'),
    uniqueKey(),
  );
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  await t.stack.memory.flushOutbox();
  return res.body as { memory_id: string };
}

const disabledNotice = (page: Page) => page.locator('.notice', { hasText: 'This endpoint is disabled' });

/** The deliveries table's rows' text, read after pressing Refresh (polled: deliveries are asynchronous). */
const deliveryRows = async (page: Page) => {
  await page.getByRole('button', { name: 'Refresh' }).click();
  return page
    .getByRole('table', { name: /Deliveries/ })
    .locator('tbody tr')
    .allTextContents();
};

describe('the console: webhook endpoints', () => {
  it('when an owner adds an endpoint, then its secret is shown once and copies, a delivery appears in the log, redeliver sends it again, and edit, rotate and delete work', async () => {
    const tenant = await tenantWithSession({ consent: true });
    const path = `/console/${suffix()}`;
    const url = `${receiver.url}${path}`;
    const { page, errors, context } = await openConsole(b.browser, t.stack.url);
    await logIn(page, tenant.owner.email, tenant.owner.password);
    await goTo(page, 'Webhooks');

    // Add: the secret is shown once, with a Copy button that puts it on the clipboard.
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await page.getByLabel('Endpoint URL').fill(url);
    await page.getByRole('checkbox', { name: /^namespace\.deleted/ }).check();
    await page.getByLabel('Description (optional)').fill('console receiver');
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const panel = `Signing secret for ${url}`;
    await expect.poll(() => secretIn(page, panel), EVENTUALLY).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const secret = (await secretIn(page, panel)) ?? '';
    recordSecrets([secret]);
    await page.getByRole('region', { name: panel }).getByRole('button', { name: 'Copy secret' }).click();
    await expect.poll(() => page.evaluate('navigator.clipboard.readText()'), EVENTUALLY).toBe(secret);
    const row = page.getByRole('row', { name: new RegExp(url) });
    await expect.poll(() => row.textContent(), EVENTUALLY).toContain('enabled');
    expect(await row.textContent()).toContain('memory.retainednamespace.deleted');
    await screenshot(page, 'webhooks-added');
    await page.getByRole('button', { name: 'I have stored it' }).click();
    await expect.poll(() => page.content(), EVENTUALLY).not.toContain(secret);
    expect(JSON.stringify(await webStorage(page))).not.toContain(secret);
    const [created] = await endpointsOf(tenant.session);
    expect(created).toMatchObject({
      url,
      events: ['memory.retained', 'namespace.deleted'],
      description: 'console receiver',
      include_text: false,
      enabled: true,
    });

    // A retained memory reaches the receiver, signed with the secret the page showed, and the log shows it.
    const written = await writeOne(tenant.api_key);
    await row.getByRole('link', { name: `Deliveries of ${url}` }).click();
    await page.getByRole('heading', { name: 'Webhook deliveries', level: 1 }).waitFor();
    await expect.poll(() => deliveryRows(page), EVENTUALLY).toEqual([expect.stringContaining('succeeded')]);
    const [first] = await deliveryRows(page);
    expect(first).toMatch(/memory\.retainedmsg_\S+succeeded1 attempt/);
    expect(first).toContain('200');
    const [request] = receiver.at(path);
    expect(
      new Webhook(secret).verify(request?.body ?? '', (request?.headers ?? {}) as Record<string, string>),
    ).toMatchObject({ type: 'memory.retained', data: { memory_id: written.memory_id } });
    await screenshot(page, 'webhook-deliveries');

    // Redeliver: the same message again; the page follows the pending delivery to its second attempt.
    const messageId = String(request?.headers['webhook-id']);
    await page.getByRole('button', { name: `Redeliver ${messageId}` }).click();
    await expect.poll(() => receiver.at(path).length, EVENTUALLY).toBe(2);
    expect(receiver.at(path)[1]?.headers['webhook-id']).toBe(messageId);
    await expect
      .poll(() => page.getByRole('table', { name: /Deliveries/ }).textContent(), EVENTUALLY)
      .toMatch(/succeeded2 attempts/);

    // Edit: other events, disabled.
    await page.getByRole('link', { name: 'All endpoints' }).click();
    await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();
    await row.getByRole('button', { name: `Edit ${url}` }).click();
    const form = page.getByRole('region', { name: `Edit endpoint ${url}` });
    await form.getByRole('checkbox', { name: /^memory\.retained/ }).uncheck();
    await form.getByRole('checkbox', { name: /^namespace\.deleted/ }).uncheck();
    await form.getByRole('checkbox', { name: /^memory\.deleted/ }).check();
    await form.getByRole('checkbox', { name: /^Enabled/ }).uncheck();
    await form.getByRole('button', { name: 'Save endpoint' }).click();
    await expect.poll(() => form.textContent(), EVENTUALLY).toContain('Saved.');
    await expect.poll(() => row.textContent(), EVENTUALLY).toContain('disabled');
    expect(await endpointsOf(tenant.session)).toMatchObject([
      { id: created?.id, events: ['memory.deleted'], enabled: false, disabled_reason: null },
    ]);
    await form.getByRole('button', { name: 'Close' }).click();

    // Rotate, confirmed: a new secret, shown once.
    await row.getByRole('button', { name: `Rotate the secret of ${url}` }).click();
    await row.getByRole('button', { name: 'Rotate', exact: true }).click();
    const rotatedPanel = `New signing secret for ${url}`;
    await expect.poll(() => secretIn(page, rotatedPanel), EVENTUALLY).toMatch(/^whsec_/);
    const rotated = (await secretIn(page, rotatedPanel)) ?? '';
    recordSecrets([rotated]);
    expect(rotated).not.toBe(secret);

    // Delete, confirmed: the row and the endpoint are gone.
    await row.getByRole('button', { name: `Delete ${url}` }).click();
    await row.getByRole('button', { name: 'Delete', exact: true }).click();
    await expect.poll(() => row.count(), EVENTUALLY).toBe(0);
    expect(await endpointsOf(tenant.session)).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('when every attempt fails, then the service’s reason is shown on both pages, and after Enable endpoint a redelivery succeeds', async () => {
    const tenant = await tenantWithSession({ consent: true });
    const path = `/console/${suffix()}`;
    const created = await t.api.post(WEBHOOK_ENDPOINTS, {
      key: tenant.session,
      body: { url: `${receiver.url}${path}`, events: ['memory.retained'] },
    });
    recordSecrets([created.body.secret]);
    receiver.answer(path, 500, 500, 500, 500);
    await writeOne(tenant.api_key);
    await expect.poll(async () => (await endpointsOf(tenant.session))[0]?.enabled, EVENTUALLY).toBe(false);
    const { page, errors, context } = await openConsole(b.browser, t.stack.url);
    await logIn(page, tenant.owner.email, tenant.owner.password);

    await goTo(page, 'Webhooks');
    const row = page.getByRole('row', { name: new RegExp(path) });
    await expect.poll(() => row.textContent(), EVENTUALLY).toMatch(/disableddelivery \S+ failed 4 attempts/);
    await row.getByRole('link', { name: /Deliveries of/ }).click();
    await page.getByRole('heading', { name: 'Webhook deliveries', level: 1 }).waitFor();
    await expect
      .poll(() => disabledNotice(page).textContent(), EVENTUALLY)
      .toMatch(/failed 4 attempts over \d+ ms; last: HTTP 500/);
    await expect
      .poll(() => deliveryRows(page), EVENTUALLY)
      .toEqual([expect.stringMatching(/failed4 attempts/)]);
    expect(await page.getByRole('button', { name: /^Redeliver/ }).isDisabled()).toBe(true);
    await screenshot(page, 'webhook-deliveries-disabled');

    await page.getByRole('button', { name: 'Enable endpoint' }).click();
    await expect
      .poll(() => page.getByRole('button', { name: /^Redeliver/ }).isDisabled(), EVENTUALLY)
      .toBe(false);
    await page.getByRole('button', { name: /^Redeliver/ }).click();
    await expect.poll(() => receiver.at(path).length, EVENTUALLY).toBe(5);
    await expect
      .poll(() => page.getByRole('table', { name: /Deliveries/ }).textContent(), EVENTUALLY)
      .toMatch(/succeeded5 attempts/);
    expect(await disabledNotice(page).count()).toBe(0);
    expect((await endpointsOf(tenant.session))[0]).toMatchObject({ enabled: true, disabled_reason: null });
    expect(errors).toEqual([]);
    await context.close();
  });

  it('when a developer signs in, then Webhooks is not in the navigation and its address says the role does not allow it; an admin has it', async () => {
    const tenant = await tenantWithSession();
    const developer = await addUser(tenant.session, 'developer');
    const admin = await addUser(tenant.session, 'admin');

    const dev = await openConsole(b.browser, t.stack.url, PHONE);
    await logIn(dev.page, developer.email, developer.password);
    // On a phone the links are behind the Menu button: opened, so that the list is the whole one.
    const devLinks = await (await openNavigation(dev.page)).getByRole('link').allTextContents();
    expect(devLinks).toContain('Overview');
    await dev.page.goto('/console/webhooks');
    await expect
      .poll(() => dev.page.getByRole('alert').textContent(), EVENTUALLY)
      .toBe('Your role does not allow this page (webhooks:manage).');
    const adm = await openConsole(b.browser, t.stack.url);
    await logIn(adm.page, admin.email, admin.password);
    await goTo(adm.page, 'Webhooks');
    await expect.poll(() => adm.page.getByText('No endpoints yet.').count(), EVENTUALLY).toBe(1);

    expect(devLinks).not.toContain('Webhooks');
    expect(devLinks).not.toContain('Webhook deliveries');
    expect(dev.errors).toEqual([]);
    expect(adm.errors).toEqual([]);
    await dev.context.close();
    await adm.context.close();
  });
});
