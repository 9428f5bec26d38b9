import type { Page } from 'playwright-core';
import { describe, expect, it, vi } from 'vitest';
import { logIn, openConsole, PHONE, screenshot, useBrowser, webStorage } from '../support/browser.js';
import { EVENTUALLY } from '../support/eventually.js';
import { createTenant } from '../support/factories.js';
import { useStack } from '../support/stack.js';

// A browser test walks several pages; on two shared cores (a CI run beside it) one took over 30 s.
vi.setConfig({ testTimeout: 120_000 });

const t = useStack();
const b = useBrowser();

const tokenIn = async (page: Page) => (await webStorage(page)).session['tm.console.session'] ?? '';

/** WCAG contrast ratio of two `rgb(r, g, b)` colours. */
function contrast(a: string, b: string): number {
  const luminance = (colour: string) => {
    const [r = 0, g = 0, bl = 0] = (colour.match(/\d+(\.\d+)?/g) ?? []).map(Number).map((c) => {
      const s = c / 255;
      return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * bl;
  };
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

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

  it('when the account has had too many failed logins, then the page says how long to wait at once, without retrying', async () => {
    const tenant = await createTenant();
    for (let i = 0; i < 10; i++) {
      const failed = await t.api.post('/api/v1/control/sessions', {
        body: { email: tenant.owner.email, password: `not-the-password-${i}` },
      });
      expect(failed.status).toBe(401);
    }
    const { page, errors, context } = await openConsole(b.browser, t.stack.url);

    await page.getByLabel('Email').fill(tenant.owner.email);
    await page.getByLabel('Password').fill(tenant.owner.password);
    await page.getByRole('button', { name: 'Log in' }).click();

    // The SDK would otherwise wait out the Retry-After (up to 30 s) before showing anything.
    await expect
      .poll(() => page.getByRole('alert').textContent(), EVENTUALLY)
      .toMatch(/Too many failed password attempts for this account; try again in \d+ minutes.*HTTP 429/);
    expect(await webStorage(page)).toEqual({ session: {}, local: {} });
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

  it('when the console is opened at a phone width, then the navigation is one Menu button above the page, which shows the links and folds again once one is followed', async () => {
    const tenant = await createTenant();
    const { page, errors, context } = await openConsole(b.browser, t.stack.url, PHONE);

    await logIn(page, tenant.owner.email, tenant.owner.password);

    const nav = page.getByRole('navigation', { name: 'Console' });
    const menu = nav.getByRole('button', { name: 'Menu' });
    await expect.poll(() => menu.getAttribute('aria-expanded'), EVENTUALLY).toBe('false');
    expect(await nav.getByRole('link').count()).toBe(0);
    // Folded, it is one row above the page (the 16 links, wrapped, took 270 of 844 px).
    const place = async () => {
      const [navBox, mainBox] = [await nav.boundingBox(), await page.locator('main').boundingBox()];
      return {
        above: Boolean(navBox && mainBox && navBox.y < mainBox.y),
        fits: Boolean(navBox && navBox.width <= PHONE.width),
        low: Boolean(navBox && navBox.height <= 60),
      };
    };
    await expect.poll(place, EVENTUALLY).toEqual({ above: true, fits: true, low: true });
    await screenshot(page, 'overview-phone');

    await menu.click();
    await expect.poll(() => menu.getAttribute('aria-expanded'), EVENTUALLY).toBe('true');
    await expect.poll(() => nav.getByRole('link').count(), EVENTUALLY).toBeGreaterThan(10);
    await screenshot(page, 'overview-phone-menu');
    await nav.getByRole('link', { name: 'API keys' }).click();
    await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();
    await expect.poll(() => menu.getAttribute('aria-expanded'), EVENTUALLY).toBe('false');
    expect(await nav.getByRole('link').count()).toBe(0);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('when the console is opened, then it declares its own icon and the browser asks for no /favicon.ico (no 404 in its console)', async () => {
    const tenant = await createTenant();
    const { page, errors, context } = await openConsole(b.browser, t.stack.url);

    await logIn(page, tenant.owner.email, tenant.owner.password);

    // An SVG in the page itself: the browser fetches nothing for it, so nothing can be missing.
    const icon = page.locator('link[rel="icon"]');
    await expect.poll(() => icon.getAttribute('href'), EVENTUALLY).toMatch(/^data:image\/svg\+xml,/);
    const href = (await icon.getAttribute('href')) ?? '';
    expect(decodeURIComponent(href.slice(href.indexOf(',') + 1))).toMatch(
      /^<svg [^>]*xmlns=['"]http:\/\/www\.w3\.org\/2000\/svg['"][\s\S]*<\/svg>$/,
    );
    // openConsole counts a 404 of anything but an API call as an error, the icon's included.
    expect(errors).toEqual([]);
    await context.close();
  });

  it('when the session is ended elsewhere, then the next page the user opens is the login page and the token is gone', async () => {
    const tenant = await createTenant();
    const { page, errors, context } = await openConsole(b.browser, t.stack.url);
    await logIn(page, tenant.owner.email, tenant.owner.password);
    const token = await tokenIn(page);
    expect(token).toMatch(/^ey/);

    const ended = await t.api.delete('/api/v1/control/sessions/current', { key: token });
    expect(ended.status).toBeLessThan(300);
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'API keys' }).click();

    await expect.poll(() => page.getByRole('button', { name: 'Log in' }).isVisible(), EVENTUALLY).toBe(true);
    expect(await webStorage(page)).toEqual({ session: {}, local: {} });
    expect((await t.api.get('/api/v1/control/account', { key: token })).status).toBe(401);
    // Logging in again lands on the page the user was opening.
    await logIn(page, tenant.owner.email, tenant.owner.password);
    await expect
      .poll(() => page.getByRole('heading', { name: 'API keys', level: 1 }).isVisible(), EVENTUALLY)
      .toBe(true);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('when the API answers 503 while a reload checks the session, then the token is kept and "Try again" signs back in', async () => {
    const tenant = await createTenant();
    const { page, errors, context } = await openConsole(b.browser, t.stack.url);
    await logIn(page, tenant.owner.email, tenant.owner.password);
    const token = await tokenIn(page);

    const account = '**/api/v1/control/account';
    await page.route(account, (route) =>
      route.fulfill({
        status: 503,
        contentType: 'application/json',
        body: JSON.stringify({ error: { code: 'unavailable', message: 'Down for a moment' } }),
      }),
    );
    await page.reload();
    await expect
      .poll(() => page.getByRole('button', { name: 'Try again' }).isVisible(), EVENTUALLY)
      .toBe(true);
    await expect.poll(() => page.getByRole('alert').textContent(), EVENTUALLY).toContain('HTTP 503');
    expect(await tokenIn(page)).toBe(token);
    await screenshot(page, 'session-check-failed');

    await page.unroute(account);
    await page.getByRole('button', { name: 'Try again' }).click();
    await expect.poll(() => page.getByRole('button', { name: 'Log out' }).isVisible(), EVENTUALLY).toBe(true);
    expect(await tokenIn(page)).toBe(token);
    // The 503s were recorded as errors (support/browser.ts ignores only 4xx), and nothing else was.
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.filter((e) => !/status of 503/.test(e))).toEqual([]);
    await context.close();
  });

  it('when logging out cannot reach the API, then the tab still forgets the session and nothing is thrown', async () => {
    const tenant = await createTenant();
    const { page, errors, context } = await openConsole(b.browser, t.stack.url);
    await logIn(page, tenant.owner.email, tenant.owner.password);

    await page.route('**/api/v1/control/sessions/current', (route) => route.abort('failed'));
    await page.getByRole('button', { name: 'Log out' }).click();

    await expect.poll(() => page.getByRole('button', { name: 'Log in' }).isVisible(), EVENTUALLY).toBe(true);
    expect(await webStorage(page)).toEqual({ session: {}, local: {} });
    expect(errors.filter((e) => !/ERR_FAILED/.test(e))).toEqual([]);
    await context.close();
  });

  it('when the clipboard is not available, then "Copy secret" says to select the text instead of throwing', async () => {
    const tenant = await createTenant();
    const { page, errors, context } = await openConsole(b.browser, t.stack.url);
    await logIn(page, tenant.owner.email, tenant.owner.password);
    // As outside a secure context (plain http on another host): no navigator.clipboard at all.
    await page.evaluate(
      "Object.defineProperty(navigator, 'clipboard', { value: undefined, configurable: true })",
    );

    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'API keys' }).click();
    await page.getByRole('button', { name: 'Create API key' }).click();
    await page.getByLabel('Name', { exact: true }).fill('copy-key');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByRole('button', { name: 'Copy secret' }).click();

    await expect
      .poll(() => page.getByRole('region', { name: 'New API key copy-key' }).textContent(), EVENTUALLY)
      .toContain('Copy failed: select the text');
    expect(errors).toEqual([]);
    await context.close();
  });

  it("when another metrics window fails to load, then the previous window's numbers are not shown under it", async () => {
    const tenant = await createTenant();
    const { page, errors, context } = await openConsole(b.browser, t.stack.url);
    await logIn(page, tenant.owner.email, tenant.owner.password);
    await page
      .getByRole('navigation', { name: 'Console' })
      .getByRole('link', { name: 'Metrics and anomalies' })
      .click();
    const quality = page.getByRole('heading', { name: 'Errors and refusals' });
    await expect.poll(() => quality.isVisible(), EVENTUALLY).toBe(true);

    await page.route(
      (url) =>
        url.pathname.endsWith('/infrastructure/metrics') &&
        url.searchParams.get('window_minutes') === '43200',
      (route) =>
        route.fulfill({
          status: 503,
          contentType: 'application/json',
          body: JSON.stringify({ error: { code: 'unavailable', message: 'Down for a moment' } }),
        }),
    );
    await page.getByLabel('Window').selectOption({ label: 'last 30 d' });

    await expect.poll(() => page.getByRole('alert').first().textContent(), EVENTUALLY).toContain('HTTP 503');
    await expect.poll(() => quality.isVisible(), EVENTUALLY).toBe(false);
    expect(errors.filter((e) => !/status of 503/.test(e))).toEqual([]);
    await context.close();
  });

  it('when a navigation link has keyboard focus, then its ring holds 3:1 on the page and beside the blue active link', async () => {
    const tenant = await createTenant();
    const { page, errors, context } = await openConsole(b.browser, t.stack.url);
    await logIn(page, tenant.owner.email, tenant.owner.password);

    const focused = () =>
      page.evaluate('document.activeElement?.textContent') as Promise<string | null | undefined>;
    for (let n = 0; n < 10 && (await focused()) !== 'Overview'; n++) await page.keyboard.press('Tab');
    const ring = (await page.evaluate(`(() => {
      const link = document.activeElement;
      const style = getComputedStyle(link);
      return {
        visible: link.matches(':focus-visible'),
        active: link.classList.contains('active'),
        outline: style.outlineColor,
        width: style.outlineWidth,
        band: style.boxShadow,
        behind: getComputedStyle(link).backgroundColor,
      };
    })()`)) as {
      visible: boolean;
      active: boolean;
      outline: string;
      width: string;
      band: string;
      behind: string;
    };

    expect(ring).toMatchObject({ visible: true, active: true, width: '3px' });
    // Against the paper and wash the ring is drawn on, and against the paper band that separates it from
    // the active link's blue (which is all it touches).
    expect(contrast(ring.outline, 'rgb(255, 255, 255)')).toBeGreaterThanOrEqual(3);
    expect(contrast(ring.outline, 'rgb(244, 246, 248)')).toBeGreaterThanOrEqual(3);
    expect(ring.band).toMatch(/rgb\(255, 255, 255\).*inset|inset.*rgb\(255, 255, 255\)/);
    expect(ring.behind).not.toBe('rgb(255, 255, 255)');
    expect(errors).toEqual([]);
    await context.close();
  });
});
