import { describe, expect, it } from 'vitest';
import {
  EVENTUALLY,
  logIn,
  openConsole,
  PHONE,
  screenshot,
  useBrowser,
  webStorage,
} from './support/browser.js';
import { createTenant } from './support/factories.js';
import { useStack } from './support/stack.js';

const t = useStack();
const b = useBrowser();

describe('the console at /console: logging in', () => {
  it('when the wrong password is given, then the API says why and nothing is stored', async () => {
    const tenant = await createTenant();
    const { page, errors, context } = await openConsole(b.browser, t.stack.url);

    await page.getByLabel('Email').fill(tenant.owner.email);
    await page.getByLabel('Password').fill('not-the-password-1');
    await page.getByRole('button', { name: 'Log in' }).click();

    await expect.poll(() => page.getByRole('alert').textContent(), EVENTUALLY).toContain('HTTP 401');
    expect(await webStorage(page)).toEqual({ session: {}, local: {} });
    await screenshot(page, 'login-refused');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('when an owner logs in, then the overview shows health; the token is in sessionStorage only; logout ends it', async () => {
    const tenant = await createTenant();
    const { page, errors, context } = await openConsole(b.browser, t.stack.url);

    await logIn(page, tenant.owner.email, tenant.owner.password);

    await expect
      .poll(() => page.getByRole('heading', { name: 'Overview', level: 1 }).isVisible(), EVENTUALLY)
      .toBe(true);
    await expect
      .poll(() => page.getByRole('heading', { name: /Health/ }).textContent(), EVENTUALLY)
      .toMatch(/ok|degraded/);
    const stored = await webStorage(page);
    expect(stored.local).toEqual({});
    expect(Object.keys(stored.session)).toEqual(['tm.console.session']);
    const token = stored.session['tm.console.session'] ?? '';
    expect(token).toMatch(/^ey/);
    await screenshot(page, 'overview');

    // A reload in the same tab keeps the session (sessionStorage), and the server still takes it.
    await page.reload();
    await expect.poll(() => page.getByRole('button', { name: 'Log out' }).isVisible(), EVENTUALLY).toBe(true);

    await page.getByRole('button', { name: 'Log out' }).click();
    await expect.poll(() => page.getByRole('button', { name: 'Log in' }).isVisible(), EVENTUALLY).toBe(true);
    expect(await webStorage(page)).toEqual({ session: {}, local: {} });
    const after = await t.api.get('/api/v1/control/account', { key: token });
    expect(after.status).toBe(401);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('when the console is opened at a phone width, then the navigation is there above the page', async () => {
    const tenant = await createTenant();
    const { page, errors, context } = await openConsole(b.browser, t.stack.url, PHONE);

    await logIn(page, tenant.owner.email, tenant.owner.password);

    const nav = page.getByRole('navigation', { name: 'Console' });
    await expect.poll(() => nav.isVisible(), EVENTUALLY).toBe(true);
    const [navBox, mainBox] = [await nav.boundingBox(), await page.locator('main').boundingBox()];
    expect(navBox && mainBox && navBox.y < mainBox.y && navBox.width <= PHONE.width).toBe(true);
    await screenshot(page, 'overview-phone');
    expect(errors).toEqual([]);
    await context.close();
  });
});
