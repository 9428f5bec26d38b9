import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, type BrowserContext, chromium, type Locator, type Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import { findChromium } from '../../../infra/dev/chromium.js';
import { EVENTUALLY } from './eventually.js';

/**
 * A real headless Chromium for the console's tests: Debian's `chromium` package (found or installed by
 * the test command, infra/dev/ensure-chromium.ts) driven by playwright-core. `CHROMIUM_PATH` names another.
 */
const CHROMIUM_PATH = findChromium();

/** Screenshots are test artifacts (not committed): tests/e2e/artifacts/console/<name>.png. */
export const SCREENSHOT_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'artifacts', 'console');

export const LAPTOP = { width: 1280, height: 800 };
export const PHONE = { width: 390, height: 844 };

/** One browser per test file, closed after it. Fields are set once `beforeAll` has run. */
export function useBrowser() {
  const t = {} as { browser: Browser };
  beforeAll(async () => {
    if (!CHROMIUM_PATH)
      throw new Error('No Chromium: `npm test` installs one (infra/dev/ensure-chromium.ts)');
    t.browser = await chromium.launch({
      executablePath: CHROMIUM_PATH,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
  });
  afterAll(async () => {
    await t.browser?.close();
  });
  return t;
}

export interface ConsoleTab {
  context: BrowserContext;
  page: Page;
  /**
   * Uncaught errors and console errors the page produced (a CSP violation is one, a 5xx answer another;
   * a 4xx is not, as pages show refusals themselves): expected to stay empty.
   */
  errors: string[];
}

/** Whether `url` is a call to the API (the SDK's, under /api/), not a file of the console. */
const isApiCall = (url: string | undefined) => Boolean(url && /^\/(api|v1)\//.test(new URL(url).pathname));

/** A fresh browser profile (no storage shared with other tests) on the console of `baseUrl`. */
export async function openConsole(browser: Browser, baseUrl: string, viewport = LAPTOP): Promise<ConsoleTab> {
  const context = await browser.newContext({ baseURL: baseUrl, viewport });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: baseUrl });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('console', (message) => {
    if (message.type() !== 'error') return;
    // A refused API call (4xx) is logged by the browser as a failed resource load; the page shows the
    // refusal itself. A 4xx of anything else (the icon the browser asks for, a script) is the console
    // missing a file, and a 5xx is the server failing: both stay errors, with the address they came from.
    const { url } = message.location();
    if (/status of 4\d\d\b/.test(message.text()) && isApiCall(url)) return;
    // Health answers 503 with its report when a required service missed its probe's deadline (a loaded
    // machine): that is its contract (decisions/reliability.md), and the overview shows "Health unavailable".
    if (/status of 503\b/.test(message.text()) && url?.endsWith('/api/v1/infrastructure/health')) return;
    errors.push(url ? `${message.text()} (${url})` : message.text());
  });
  await page.goto('/console/');
  return { context, page, errors };
}

/** Logs in through the login form and waits for the signed-in frame. */
export async function logIn(page: Page, email: string, password: string): Promise<void> {
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByRole('button', { name: 'Log out' }).waitFor();
}

/**
 * The console's navigation with its links shown: on a phone they are folded behind the Menu button
 * (hidden on wider screens), which this opens unless it is open.
 */
export async function openNavigation(page: Page): Promise<Locator> {
  const nav = page.getByRole('navigation', { name: 'Console' });
  const menu = nav.getByRole('button', { name: 'Menu' });
  if ((await menu.isVisible()) && (await menu.getAttribute('aria-expanded')) !== 'true') await menu.click();
  return nav;
}

/**
 * Opens a page through the console's navigation, as a user would, and waits for its heading (`label`
 * unless the page is titled otherwise). Not by URL: a reload would forget a pasted API key (held in memory).
 */
export async function goTo(page: Page, label: string, heading = label): Promise<void> {
  await openNavigation(page);
  await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: label }).click();
  await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
}

/** The data key picker's "Create a key for the console": a key made in the browser, kept for the tab. */
export async function createConsoleKey(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Create a key for the console' }).click();
  await page.getByText('Using API key').waitFor();
}

/**
 * On the Imports page with a key chosen: uploads `csv` as `fileName` (a temp file), each row rendered
 * by `{note}` into `namespace`, and waits for the estimate. The job's region.
 */
export async function estimateCsvImport(page: Page, fileName: string, csv: string, namespace: string) {
  const file = join(mkdtempSync(join(tmpdir(), 'console-import-')), fileName);
  writeFileSync(file, csv);
  await page.getByLabel(/^File/).setInputFiles(file);
  await page.getByRole('textbox', { name: 'Format string' }).fill('{note}');
  await page.getByLabel('Namespace').fill(namespace);
  await page.getByRole('button', { name: 'Upload and estimate' }).click();
  const job = page.getByRole('region', { name: `Import of ${fileName}` });
  await expect.poll(() => job.textContent(), EVENTUALLY).toContain('estimated');
  return job;
}

/** Saves the page as tests/e2e/artifacts/console/<name>.png, for people to look at. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const path = join(SCREENSHOT_DIR, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

/** What the page keeps in Web Storage (read in the page; the tests' TypeScript has no DOM types). */
export function webStorage(
  page: Page,
): Promise<{ session: Record<string, string>; local: Record<string, string> }> {
  return page.evaluate(
    '({ session: Object.fromEntries(Object.entries(sessionStorage)), local: Object.fromEntries(Object.entries(localStorage)) })',
  );
}
