import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import type { Page } from 'playwright-core';
import { describe, expect, it, vi } from 'vitest';
import { ensurePython } from '../../../infra/dev/python.js';
import { goTo, logIn, openConsole, screenshot, useBrowser, webStorage } from '../support/browser.js';
import { API_KEYS, controlSteps } from '../support/control.js';
import { EVENTUALLY } from '../support/eventually.js';
import { recallBody } from '../support/factories.js';
import { useStack } from '../support/stack.js';

// A browser test walks several pages; on two shared cores (a CI run beside it) one took over 30 s.
vi.setConfig({ testTimeout: 120_000 });

const t = useStack();
const b = useBrowser();
const { tenantWithSession, addUser } = controlSteps(t);

const SNIPPETS = ['TypeScript SDK', 'CLI', 'MCP server for an agent', 'Remote MCP endpoint', 'Python SDK'];

/** The text of each snippet, by its title. */
const snippetTexts = async (page: Page) =>
  Object.fromEntries(
    await Promise.all(
      SNIPPETS.map(async (title) => [
        title,
        (await page.getByRole('region', { name: title, exact: true }).locator('pre').textContent()) ?? '',
      ]),
    ),
  );

/**
 * Runs the SDK snippet as the page gives it, saved as quickstart.mjs in an empty project whose
 * node_modules holds this repository's SDK (what installing its tarball gives): its output.
 */
async function runSdkSnippet(text: string, apiKey: string): Promise<string> {
  const project = mkdtempSync(join(tmpdir(), 'console-snippet-'));
  mkdirSync(join(project, 'node_modules', '@text-memory'), { recursive: true });
  symlinkSync(resolve('libs/clients/sdk'), join(project, 'node_modules', '@text-memory', 'sdk'));
  writeFileSync(join(project, 'quickstart.mjs'), text);
  const { stdout } = await promisify(execFile)(process.execPath, ['quickstart.mjs'], {
    cwd: project,
    env: { ...process.env, TM_API_KEY: apiKey },
  });
  return stdout;
}

/**
 * Runs the Python snippet as the page gives it, saved as app.py, with this repository's Python SDK on
 * the path (what installing its wheel gives) and httpx, its one dependency, from Debian's packages.
 */
async function runPythonSnippet(text: string, apiKey: string): Promise<string> {
  const python = await ensurePython(['httpx'], 'The Python SDK snippet', () => undefined);
  const project = mkdtempSync(join(tmpdir(), 'console-snippet-'));
  writeFileSync(join(project, 'app.py'), text);
  const { stdout } = await promisify(execFile)(python, ['app.py'], {
    cwd: project,
    env: {
      ...process.env,
      TM_API_KEY: apiKey,
      PYTHONPATH: resolve('libs/clients/python/src'),
      PYTHONDONTWRITEBYTECODE: '1',
    },
  });
  return stdout;
}

type KeyRow = { id: string; name: string; permissions: string[]; status: string; revoked_at: string | null };

const consoleKeysOf = async (session: string) =>
  ((await t.api.get(API_KEYS, { key: session })).body.data as KeyRow[]).filter((k) =>
    k.name.startsWith('console '),
  );

/** On the Playground, "Create a key for the console": the secret the panel shows once. */
async function takeTabKey(page: Page): Promise<string> {
  await goTo(page, 'Playground');
  await page
    .getByRole('region', { name: 'API key in use' })
    .getByRole('button', { name: 'Create a key for the console' })
    .click();
  const panel = page.getByRole('region', { name: /^New API key console \(tab\) / });
  await expect.poll(() => panel.locator('code.secret').textContent(), EVENTUALLY).toMatch(/^tmk_/);
  return (await panel.locator('code.secret').textContent()) ?? '';
}

/**
 * What the tab key keeper (the console's service worker, tab-key-keeper.ts) has done so far:
 * revocations waiting out its grace, keys a page held again, keys revoked. Asked from `page`.
 */
const keeperState = (page: Page) =>
  page.evaluate(`(async () => {
    const [registration] = await navigator.serviceWorker.getRegistrations();
    const worker = registration?.active;
    if (!worker) return null;
    const channel = new MessageChannel();
    const answer = new Promise((resolve) => { channel.port1.onmessage = (event) => resolve(event.data); });
    worker.postMessage({ type: 'state' }, [channel.port2]);
    return answer;
  })()`);

/** Past the keeper's 10 s grace, on a loaded machine: a bound against hangs, not a speed check. */
const PAST_GRACE = { timeout: 45_000, interval: 250 };

/** The tab's key, once revoked: refused on the data plane, and listed as revoked. */
async function expectRevoked(session: string, secret: string): Promise<void> {
  await expect
    .poll(() => t.api.recall(secret, recallBody('first-steps', 'anything')), EVENTUALLY)
    .toMatchObject({ status: 401, body: { details: { code: 'authentication_required' } } });
  expect(await consoleKeysOf(session)).toEqual([
    expect.objectContaining({ status: 'revoked', revoked_at: expect.any(String) }),
  ]);
}

describe('the console: first steps', () => {
  it('when an owner opens Connect an app, then the base URL and five snippets are there without a secret, the Python one through the Python SDK, and a copy gives the snippet', async () => {
    const tenant = await tenantWithSession();
    const { page, errors, context } = await openConsole(b.browser, t.stack.url);
    await logIn(page, tenant.owner.email, tenant.owner.password);
    // The overview points a new user there.
    const connect = page.getByRole('region', { name: 'Connect an app' });
    await expect.poll(() => connect.textContent(), EVENTUALLY).toContain(t.stack.url);
    await connect.getByRole('link', { name: /Snippets for the TypeScript and Python SDKs/ }).click();
    await page.getByRole('heading', { name: 'Connect an app', level: 1 }).waitFor();

    await expect
      .poll(() => page.getByRole('region', { name: 'Base URL' }).textContent(), EVENTUALLY)
      .toContain(t.stack.url);
    const texts = await snippetTexts(page);
    expect(texts['TypeScript SDK']).toContain(`new TextMemory({ baseUrl: "${t.stack.url}"`);
    expect(texts['TypeScript SDK']).toContain('node quickstart.mjs');
    expect(texts.CLI).toContain(`export TM_BASE_URL=${t.stack.url}`);
    expect(texts.CLI).toContain('tm recall -n notes');
    expect(JSON.parse(texts['MCP server for an agent'] ?? '')).toEqual({
      mcpServers: {
        'text-memory': {
          command: 'tm-mcp',
          env: { TM_BASE_URL: t.stack.url, TM_API_KEY: 'tmk_…', TM_NAMESPACE: 'my-assistant' },
        },
      },
    });
    expect(JSON.parse(texts['Remote MCP endpoint'] ?? '')).toEqual({
      mcpServers: {
        'text-memory': {
          type: 'http',
          url: `${t.stack.url}/mcp`,
          headers: { Authorization: 'Bearer tmk_…' },
        },
      },
    });
    // The Python SDK as its README shows it: the package, the client, write and recall; no raw HTTP.
    const python = texts['Python SDK'] ?? '';
    expect(python).toContain('pip install');
    expect(python).toContain('from text_memory import TextMemory');
    expect(python).toContain(`with TextMemory("${t.stack.url}", api_key=os.environ["TM_API_KEY"]) as tm:`);
    expect(python).toContain('tm.memory.write(namespace="notes", text=');
    expect(python).toContain('tm.memory.recall(namespace="notes", query=');
    expect(python).not.toContain('urllib');
    // Nothing on the page says the Python SDK is still to come.
    expect(await page.locator('main').textContent()).not.toMatch(/on its way|until then/i);
    // No secret: the placeholder where the key goes, in every snippet.
    for (const text of Object.values(texts)) {
      expect(text).toContain('tmk_…');
      expect(text).not.toMatch(/tmk_\w{8}_\w{40}/);
    }

    const sdk = page.getByRole('region', { name: 'TypeScript SDK', exact: true });
    await sdk.getByRole('button', { name: /Copy the TypeScript SDK snippet/ }).click();
    await expect.poll(() => sdk.getByRole('button', { name: /^Copied/ }).count(), EVENTUALLY).toBe(1);
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(texts['TypeScript SDK']);
    await screenshot(page, 'connect');
    expect(errors).toEqual([]);
    await context.close();
  });

  it("when an owner opens a data page, then one click creates the console's key for the tab, which the data pages keep and the snippets then hold", async () => {
    const tenant = await tenantWithSession();
    const { page, errors, context } = await openConsole(b.browser, t.stack.url);
    await logIn(page, tenant.owner.email, tenant.owner.password);
    await goTo(page, 'Playground');
    const picker = page.getByRole('region', { name: 'API key in use' });
    await expect
      .poll(() => page.locator('.notice').first().textContent(), EVENTUALLY)
      .toContain('Create a key for the console above (one click)');

    await picker.getByRole('button', { name: 'Create a key for the console' }).click();
    const panel = page.getByRole('region', { name: /^New API key console \(tab\) / });
    await expect.poll(() => panel.locator('code.secret').textContent(), EVENTUALLY).toMatch(/^tmk_/);
    const secret = (await panel.locator('code.secret').textContent()) ?? '';
    // The page is usable at once; the key is named for the tab and holds what the data pages use.
    await page.getByRole('region', { name: 'Write', exact: true }).waitFor();
    const made = await consoleKeysOf(tenant.session);
    expect(made).toEqual([
      expect.objectContaining({
        name: expect.stringMatching(/^console \(tab\) \d{4}-\d\d-\d\d \d\d:\d\d UTC$/),
      }),
    ]);
    expect([...(made[0]?.permissions ?? [])].sort()).toEqual([
      'memory:delete',
      'memory:recall',
      'memory:write',
    ]);
    expect((await t.api.recall(secret, recallBody('first-steps', 'anything'))).status).toBe(200);
    await panel.getByRole('button', { name: 'I have stored it' }).click();

    // Kept for the tab: another data page uses it, and after another key it is taken back, not made again.
    await goTo(page, 'Templates');
    await expect
      .poll(() => picker.textContent(), EVENTUALLY)
      .toContain(`Using API key ${secret.slice(0, 12)}… (this tab's key, ${made[0]?.name})`);
    await picker.getByRole('button', { name: 'Use another key' }).click();
    await picker.getByRole('button', { name: `Use this tab's key (${secret.slice(0, 12)}…)` }).click();
    await expect
      .poll(() => picker.textContent(), EVENTUALLY)
      .toContain(`Using API key ${secret.slice(0, 12)}`);
    expect(await consoleKeysOf(tenant.session)).toHaveLength(1);

    // The snippets hold the key this tab created (and only that one), ready to run.
    await goTo(page, 'Connect an app');
    await expect
      .poll(() => page.getByRole('region', { name: 'API key', exact: true }).textContent(), EVENTUALLY)
      .toContain(`The snippets hold this tab's key, ${made[0]?.name}`);
    const texts = await snippetTexts(page);
    expect(texts.CLI).toContain(`export TM_API_KEY=${secret}`);
    expect(texts['TypeScript SDK']).toContain(`TM_API_KEY=${secret} node quickstart.mjs`);
    expect(JSON.parse(texts['MCP server for an agent'] ?? '').mcpServers['text-memory'].env.TM_API_KEY).toBe(
      secret,
    );
    expect(JSON.parse(texts['Remote MCP endpoint'] ?? '').mcpServers['text-memory'].headers).toEqual({
      Authorization: `Bearer ${secret}`,
    });
    // The SDK snippet runs as it is, as a .mjs file: it writes, then recalls what it wrote.
    expect(await runSdkSnippet(texts['TypeScript SDK'] ?? '', secret)).toContain(
      'The ferry to Porto leaves at noon',
    );
    // So does the Python one, with the Python SDK.
    expect(await runPythonSnippet(texts['Python SDK'] ?? '', secret)).toContain(
      'The ferry to Porto leaves at noon',
    );
    // Kept for the tab only: in its sessionStorage, never in localStorage.
    const storage = await webStorage(page);
    expect(storage.session['tm.console.tab-key']).toContain(secret);
    expect(JSON.stringify(storage.local)).not.toContain(secret);
    await screenshot(page, 'connect-with-tab-key');
    expect(errors).toEqual([]);
    await context.close();
  });

  it("when an owner logs out after creating the console's key, then the key is revoked: the data plane refuses it and the key list says so", async () => {
    const tenant = await tenantWithSession();
    const { page, errors, context } = await openConsole(b.browser, t.stack.url);
    await logIn(page, tenant.owner.email, tenant.owner.password);
    const secret = await takeTabKey(page);
    expect((await t.api.recall(secret, recallBody('first-steps', 'anything'))).status).toBe(200);

    await page.getByRole('button', { name: 'Log out' }).click();
    await page.getByRole('button', { name: 'Log in' }).waitFor();
    await expectRevoked(tenant.session, secret);
    expect(errors).toEqual([]);
    await context.close();
  });

  it("when an owner reloads the page after creating the console's key, then the tab keeps that same key, still active once the keeper's grace has passed", async () => {
    const tenant = await tenantWithSession();
    const { page, errors, context } = await openConsole(b.browser, t.stack.url);
    await logIn(page, tenant.owner.email, tenant.owner.password);
    const secret = await takeTabKey(page);

    await page.reload();
    await page.getByRole('button', { name: 'Log out' }).waitFor();
    const picker = page.getByRole('region', { name: 'API key in use' });
    await expect
      .poll(() => picker.textContent(), EVENTUALLY)
      .toContain(`Using API key ${secret.slice(0, 12)}`);
    // The page that went asked for the key's revocation; the page that came held it again.
    await expect.poll(() => keeperState(page), PAST_GRACE).toEqual({ pending: 0, kept: 1, revoked: 0 });
    expect((await t.api.recall(secret, recallBody('first-steps', 'anything'))).status).toBe(200);
    expect(await consoleKeysOf(tenant.session)).toEqual([
      expect.objectContaining({ status: 'active', revoked_at: null }),
    ]);
    // The snippets still hold it: what the user copied before the reload keeps working.
    await goTo(page, 'Connect an app');
    await expect
      .poll(() => page.getByRole('region', { name: 'CLI', exact: true }).textContent(), EVENTUALLY)
      .toContain(`export TM_API_KEY=${secret}`);
    expect(errors).toEqual([]);
    await context.close();
  });

  it("when the tab that created the console's key is closed, then that key is revoked and another tab's key stays active", async () => {
    const tenant = await tenantWithSession();
    const { page, errors, context } = await openConsole(b.browser, t.stack.url);
    await logIn(page, tenant.owner.email, tenant.owner.password);
    const closing = await takeTabKey(page);
    // A second tab of the same browser: its own session and its own key.
    const other = await context.newPage();
    await other.goto('/console/');
    await logIn(other, tenant.owner.email, tenant.owner.password);
    const staying = await takeTabKey(other);

    await page.close();

    await expect
      .poll(() => t.api.recall(closing, recallBody('first-steps', 'anything')), PAST_GRACE)
      .toMatchObject({ status: 401, body: { details: { code: 'authentication_required' } } });
    await expect.poll(() => keeperState(other), PAST_GRACE).toEqual({ pending: 0, kept: 0, revoked: 1 });
    expect((await t.api.recall(staying, recallBody('first-steps', 'anything'))).status).toBe(200);
    expect((await consoleKeysOf(tenant.session)).map((k) => k.status).sort()).toEqual(['active', 'revoked']);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('when a viewer opens Connect an app, then the snippets are there with the placeholder and no key is offered', async () => {
    const tenant = await tenantWithSession();
    const viewer = await addUser(tenant.session, 'viewer');
    const { page, errors, context } = await openConsole(b.browser, t.stack.url);
    await logIn(page, viewer.email, viewer.password);
    await goTo(page, 'Connect an app');
    const key = page.getByRole('region', { name: 'API key', exact: true });
    await expect.poll(() => key.textContent(), EVENTUALLY).toContain('Ask an owner or admin');
    expect(await page.getByRole('button', { name: /Create a key/ }).count()).toBe(0);
    expect(await page.getByRole('link', { name: 'Playground' }).count()).toBe(0);
    const texts = await snippetTexts(page);
    expect(texts.CLI).toContain('export TM_API_KEY=tmk_…');
    expect(errors).toEqual([]);
    await context.close();
  });
});
