import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Page } from 'playwright-core';
import { describe, expect, it, vi } from 'vitest';
import {
  goTo,
  LAPTOP,
  logIn,
  openConsole,
  openNavigation,
  PHONE,
  screenshot,
  useBrowser,
  webStorage,
} from '../support/browser.js';
import { API_KEYS, controlSteps, suffix, USERS } from '../support/control.js';
import { EVENTUALLY } from '../support/eventually.js';
import { recallBody, uniqueKey, uniqueNamespace, writeBody } from '../support/factories.js';
import { useStack } from '../support/stack.js';

// A browser test walks several pages; on two shared cores (a CI run beside it) one took over 30 s.
vi.setConfig({ testTimeout: 120_000 });

const t = useStack();
const b = useBrowser();
const { tenantWithSession, addUser } = controlSteps(t);

const STORAGE = '/api/v1/control/storage-connections';
const CONSENT_EVENTS = '/api/v1/control/consent/events';
const OPERATOR_TOKENS = '/api/v1/control/operator-tokens';

/** The secret a "shown once" notice holds. */
const secretIn = (page: Page, title: string) =>
  page.getByRole('region', { name: title }).locator('code.secret').textContent();

/** What the page's live regions hold: a screen reader speaks it as it changes. */
const liveRegions = (page: Page) => page.locator('[aria-live]').allTextContents();
/** The focused element, as "TAG text". */
const focused = (page: Page) =>
  page.evaluate("document.activeElement.tagName + ' ' + document.activeElement.textContent");

const writeWith = (key: string) =>
  t.api.write(key, writeBody(uniqueNamespace(), 'a console note'), uniqueKey());
const recallWith = (key: string) => t.api.recall(key, recallBody(uniqueNamespace(), 'note'));

interface ListedKey {
  id: string;
  name: string;
  status: string;
  permissions: string[];
  rotated_from_id: string | null;
}
const keysOf = async (session: string) =>
  (await t.api.get(API_KEYS, { key: session })).body.data as ListedKey[];

describe('the console: API keys', () => {
  it.each([
    ['a laptop', LAPTOP],
    ['a phone', PHONE],
  ])(
    'when a tenant holds revoked keys beside its active ones, then on %s the API keys page lists the active ones, with the counts, and the filter shows the revoked or all',
    async (_on, viewport) => {
      const tenant = await tenantWithSession();
      for (const name of [
        'filter-live-1',
        'filter-live-2',
        'filter-gone-1',
        'filter-gone-2',
        'filter-gone-3',
      ]) {
        const made = await t.api.post(API_KEYS, { key: tenant.session, body: { name } });
        expect(made.status).toBe(201);
        if (name.includes('gone'))
          expect(
            (await t.api.post(`${API_KEYS}/${made.body.id}/revoke`, { key: tenant.session })).status,
          ).toBe(200);
      }
      const listed = await keysOf(tenant.session);
      const names = (status?: string) =>
        listed
          .filter((k) => !status || k.status === status)
          .map((k) => k.name)
          .sort();
      const active = names('active');
      const revoked = names('revoked');
      expect(revoked).toEqual(['filter-gone-1', 'filter-gone-2', 'filter-gone-3']);
      const { page, errors, context } = await openConsole(b.browser, t.stack.url, viewport);
      await logIn(page, tenant.owner.email, tenant.owner.password);
      await goTo(page, 'API keys');

      const filter = page.getByRole('group', { name: 'Show', exact: true });
      const table = page.getByRole('table', { name: 'API keys' });
      const rowNames = async () => (await table.locator('tbody th[scope="row"]').allTextContents()).sort();
      // Active by default, each choice with its count.
      await expect.poll(rowNames, EVENTUALLY).toEqual(active);
      expect(await filter.getByRole('radio', { name: `Active (${active.length})` }).isChecked()).toBe(true);
      expect(await filter.getByRole('radio', { name: `Revoked (${revoked.length})` }).isChecked()).toBe(
        false,
      );
      expect(await filter.getByRole('radio', { name: `All (${listed.length})` }).isChecked()).toBe(false);
      await screenshot(page, `api-keys-filter-active-${viewport === PHONE ? 'phone' : 'laptop'}`);

      await filter.getByRole('radio', { name: /^Revoked/ }).check();
      await expect.poll(rowNames, EVENTUALLY).toEqual(revoked);
      await filter.getByRole('radio', { name: /^All/ }).check();
      await expect.poll(rowNames, EVENTUALLY).toEqual(names());
      expect(errors).toEqual([]);
      await context.close();
    },
  );

  it('when an owner creates, rotates and revokes a key, then each secret is shown once and works until rotated or revoked (then 401)', async () => {
    const tenant = await tenantWithSession();
    const { page, errors, context } = await openConsole(b.browser, t.stack.url);
    await logIn(page, tenant.owner.email, tenant.owner.password);
    await goTo(page, 'API keys');

    await page.getByRole('button', { name: 'Create API key' }).click();
    await page.getByLabel('Name', { exact: true }).fill('browser-key');
    await page.getByRole('checkbox', { name: /export:read/ }).uncheck();
    await page.getByRole('button', { name: 'Create key' }).click();
    await expect
      .poll(() => secretIn(page, 'New API key browser-key'), EVENTUALLY)
      .toMatch(/^tmk_\w{8}_\w{40}$/);
    const secret = (await secretIn(page, 'New API key browser-key')) ?? '';
    await expect
      .poll(() => page.getByRole('region', { name: 'New API key browser-key' }).textContent(), EVENTUALLY)
      .toContain('you will not see it again');
    // Announced in two words; the secret is read from the panel, whose heading has the focus.
    await expect.poll(async () => (await liveRegions(page)).join(' '), EVENTUALLY).toContain('Key created');
    expect((await liveRegions(page)).join(' ')).not.toContain(secret);
    await expect.poll(() => focused(page), EVENTUALLY).toBe('H2 New API key browser-key');
    expect(await writeWith(secret)).toMatchObject({ status: 200, body: { state: 'retained' } });
    const made = (await keysOf(tenant.session)).find((k) => k.name === 'browser-key');
    expect([...(made?.permissions ?? [])].sort()).toEqual([
      'memory:delete',
      'memory:recall',
      'memory:write',
      'telemetry:read',
    ]);
    expect(made).toMatchObject({
      status: 'active',
      storage_connection_id: tenant.storage_connection_id,
      prefix: secret.slice(0, 12),
    });
    const active = page.getByRole('row', { name: /browser-key/ }).filter({ hasText: 'active' });
    await expect.poll(() => active.textContent(), EVENTUALLY).toContain(secret.slice(0, 12));
    await screenshot(page, 'api-keys-created');

    // Dismissed, the secret is gone from the page, and it was never in Web Storage.
    await page.getByRole('button', { name: 'I have stored it' }).click();
    await expect.poll(() => page.content(), EVENTUALLY).not.toContain(secret);
    expect(JSON.stringify(await webStorage(page))).not.toContain(secret);

    // Rotate: a new secret, shown once; the old one fails at once.
    await active.getByRole('button', { name: 'Rotate browser-key' }).click();
    await active.getByRole('button', { name: 'Rotate', exact: true }).click();
    await expect.poll(() => secretIn(page, 'Rotated key browser-key'), EVENTUALLY).toMatch(/^tmk_/);
    const rotated = (await secretIn(page, 'Rotated key browser-key')) ?? '';
    expect(rotated).not.toBe(secret);
    expect((await liveRegions(page)).join(' ')).not.toContain(rotated);
    await expect.poll(() => focused(page), EVENTUALLY).toBe('H2 Rotated key browser-key');
    expect((await recallWith(rotated)).status).toBe(200);
    expect((await recallWith(secret)).status).toBe(401);
    const afterRotation = (await keysOf(tenant.session)).filter((k) => k.name === 'browser-key');
    expect(afterRotation.map((k) => [k.status, k.rotated_from_id])).toEqual(
      expect.arrayContaining([
        ['revoked', null],
        ['active', made?.id],
      ]),
    );
    await expect.poll(() => page.getByRole('row', { name: /browser-key/ }).count(), EVENTUALLY).toBe(2);

    // Revoke the rotated key: confirmed in the browser, refused by the API from the next request.
    await expect.poll(() => active.textContent(), EVENTUALLY).toContain(rotated.slice(0, 12));
    await active.getByRole('button', { name: 'Revoke browser-key' }).click();
    await active.getByRole('button', { name: 'Revoke', exact: true }).click();
    await expect.poll(() => active.count(), EVENTUALLY).toBe(0);
    expect((await writeWith(rotated)).status).toBe(401);
    expect(
      (await keysOf(tenant.session)).filter((k) => k.name === 'browser-key').map((k) => k.status),
    ).toEqual(['revoked', 'revoked']);
    await screenshot(page, 'api-keys');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('when an owner edits a key, then its name and permissions change and its storage is detached and attached again', async () => {
    const tenant = await tenantWithSession();
    const created = await t.api.post(API_KEYS, { key: tenant.session, body: { name: 'to-edit' } });
    const { page, errors, context } = await openConsole(b.browser, t.stack.url);
    await logIn(page, tenant.owner.email, tenant.owner.password);
    await goTo(page, 'API keys');

    await page.getByRole('button', { name: 'Edit to-edit' }).click();
    // Named by the key, whose name changes on the way.
    const form = page.getByRole('region', { name: /^Edit key / });
    await form.getByLabel('Name', { exact: true }).fill('edited-key');
    await form.getByRole('checkbox', { name: /memory:delete/ }).uncheck();
    await form.getByRole('button', { name: 'Save name and permissions' }).click();
    await expect.poll(() => form.textContent(), EVENTUALLY).toContain('Saved.');
    await form.getByRole('button', { name: 'Detach' }).click();
    await form.getByRole('button', { name: 'Detach', exact: true }).click();
    await expect.poll(() => form.textContent(), EVENTUALLY).toContain('detached');

    const detached = await t.api.get(`${API_KEYS}/${created.body.id}`, { key: tenant.session });
    expect(detached.body).toMatchObject({ name: 'edited-key', storage_connection_id: null });
    expect([...detached.body.permissions].sort()).toEqual([
      'export:read',
      'memory:recall',
      'memory:write',
      'telemetry:read',
    ]);
    expect((await writeWith(created.body.key)).status).toBe(403);
    await expect
      .poll(() => page.getByRole('row', { name: /edited-key/ }).textContent(), EVENTUALLY)
      .toContain('none');

    await form.getByRole('button', { name: 'Attach' }).click();
    await expect.poll(() => form.textContent(), EVENTUALLY).toContain('attached');
    const attached = await t.api.get(`${API_KEYS}/${created.body.id}`, { key: tenant.session });
    expect(attached.body.storage_connection_id).toBe(tenant.storage_connection_id);
    expect((await writeWith(created.body.key)).status).toBe(200);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('when a viewer opens the keys, then the list is there without Create, Edit or Revoke; the API refuses its key creation (403)', async () => {
    const tenant = await tenantWithSession();
    const viewer = await addUser(tenant.session, 'viewer');
    const { page, errors, context } = await openConsole(b.browser, t.stack.url, PHONE);
    await logIn(page, viewer.email, viewer.password);
    await goTo(page, 'API keys');

    await expect
      .poll(() => page.getByRole('row', { name: /bootstrap/ }).textContent(), EVENTUALLY)
      .toContain('active');
    expect(await page.getByRole('button', { name: /Create|Revoke|Rotate|Edit/ }).count()).toBe(0);
    const navigation = await openNavigation(page);
    await navigation.getByRole('link', { name: 'API keys' }).waitFor();
    expect(await navigation.getByRole('link', { name: 'Operator tokens' }).count()).toBe(0);
    const session = await t.api.login(viewer.email, viewer.password);
    const refused = await t.api.post(API_KEYS, { key: session, body: { name: 'viewer-key' } });
    expect(refused).toMatchObject({ status: 403, body: { details: { code: 'permission_denied' } } });
    await screenshot(page, 'api-keys-viewer-phone');
    expect(errors).toEqual([]);
    await context.close();
  });
});

describe('the console: the remote MCP endpoint beside the keys', () => {
  it('when an owner creates a key, then the MCP configuration holds it while it is shown, and an MCP client given that configuration remembers and recalls', async () => {
    const tenant = await tenantWithSession();
    const { page, errors, context } = await openConsole(b.browser, t.stack.url);
    await logIn(page, tenant.owner.email, tenant.owner.password);
    await goTo(page, 'API keys');
    const card = page.getByRole('region', { name: 'Remote MCP endpoint' });
    await expect.poll(() => card.textContent(), EVENTUALLY).toContain(`${t.stack.url}/mcp`);
    expect(await card.locator('pre').textContent()).toContain('"Authorization": "Bearer tmk_…"');

    await page.getByRole('button', { name: 'Create API key' }).click();
    await page.getByLabel('Name', { exact: true }).fill('agent-key');
    await page.getByRole('button', { name: 'Create key' }).click();
    await expect.poll(() => secretIn(page, 'New API key agent-key'), EVENTUALLY).toMatch(/^tmk_/);
    const secret = (await secretIn(page, 'New API key agent-key')) ?? '';
    await expect.poll(() => card.locator('pre').textContent(), EVENTUALLY).toContain(`Bearer ${secret}`);
    await card.getByRole('button', { name: 'Copy the MCP client configuration' }).click();
    await expect.poll(() => card.getByRole('button', { name: /^Copied/ }).count(), EVENTUALLY).toBe(1);
    const copied = JSON.parse(String(await page.evaluate('navigator.clipboard.readText()')));
    await screenshot(page, 'api-keys-mcp');

    // The configuration as a client reads it: the URL and the header, nothing else.
    const entry = copied.mcpServers['text-memory'];
    expect(entry).toEqual({
      type: 'http',
      url: `${t.stack.url}/mcp`,
      headers: { Authorization: `Bearer ${secret}` },
    });
    const client = new Client({ name: 'console-config', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(entry.url), { requestInit: { headers: entry.headers } }),
    );
    try {
      const namespace = uniqueNamespace('console-mcp');
      await client.callTool({ name: 'remember', arguments: { namespace, text: 'Fay takes the 8:15 train' } });
      const recalled = await client.callTool({
        name: 'recall',
        arguments: { namespace, query: 'Fay train' },
      });
      expect(recalled.structuredContent).toMatchObject({ related: [{ text: 'Fay takes the 8:15 train' }] });
    } finally {
      await client.close();
    }

    // Dismissed, the secret leaves the configuration too: the placeholder is back.
    await page.getByRole('button', { name: 'I have stored it' }).click();
    await expect.poll(() => page.content(), EVENTUALLY).not.toContain(secret);
    expect(await card.locator('pre').textContent()).toContain('Bearer tmk_…');
    expect(errors).toEqual([]);
    await context.close();
  });
});

describe('the console: a key for the data pages', () => {
  it('when an owner creates a key for the console, then it holds only write, recall and delete, its secret is dismissable, and it is revoked from the keys page (then 401)', async () => {
    const tenant = await tenantWithSession();
    const { page, errors, context } = await openConsole(b.browser, t.stack.url);
    await logIn(page, tenant.owner.email, tenant.owner.password);
    await goTo(page, 'Playground');

    await page.getByRole('button', { name: 'Create a key for the console' }).click();
    const panel = page.getByRole('region', { name: /^New API key console / });
    await expect.poll(() => panel.locator('code.secret').textContent(), EVENTUALLY).toMatch(/^tmk_/);
    const secret = (await panel.locator('code.secret').textContent()) ?? '';
    await expect.poll(() => focused(page), EVENTUALLY).toMatch(/^H2 New API key console /);
    const picker = page.getByRole('region', { name: 'API key in use' });
    await expect.poll(() => picker.textContent(), EVENTUALLY).toContain(secret.slice(0, 12));
    await expect
      .poll(() => picker.locator('.hint').last().textContent(), EVENTUALLY)
      .toContain('is listed on the API keys page, where it can be revoked');
    // An owner's key would get all five by default; this one gets what the data pages use.
    const made = (await keysOf(tenant.session)).find((k) => k.name.startsWith('console '));
    expect(made).toMatchObject({ status: 'active' });
    expect([...(made?.permissions ?? [])].sort()).toEqual(['memory:delete', 'memory:recall', 'memory:write']);
    expect((await writeWith(secret)).status).toBe(200);

    await panel.getByRole('button', { name: 'I have stored it' }).click();
    await expect.poll(() => page.content(), EVENTUALLY).not.toContain(secret);
    await expect
      .poll(() => picker.textContent(), EVENTUALLY)
      .toContain(`Using API key ${secret.slice(0, 12)}`);

    await picker.getByRole('link', { name: 'API keys' }).click();
    await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();
    const row = page.getByRole('row').filter({ hasText: made?.name ?? '-' });
    await row.getByRole('button', { name: `Revoke ${made?.name}` }).click();
    await row.getByRole('button', { name: 'Revoke', exact: true }).click();
    await expect.poll(() => row.textContent(), EVENTUALLY).toContain('revoked');
    expect((await writeWith(secret)).status).toBe(401);
    expect(errors).toEqual([]);
    await context.close();
  });
});

describe('the console: users and roles', () => {
  it('when an owner adds a developer and then makes them a viewer, then the API has both changes', async () => {
    const tenant = await tenantWithSession();
    const email = `dev-${suffix()}@example.test`;
    const password = `pw-${suffix()}-${suffix()}`;
    const { page, errors, context } = await openConsole(b.browser, t.stack.url);
    await logIn(page, tenant.owner.email, tenant.owner.password);
    await goTo(page, 'Users and roles');

    await page.getByRole('button', { name: 'Add user' }).click();
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Initial password').fill(password);
    await page.getByLabel('Role', { exact: true }).selectOption('developer');
    await page.getByRole('button', { name: 'Add user' }).click();

    await expect.poll(() => page.getByRole('row', { name: email }).isVisible(), EVENTUALLY).toBe(true);
    const userOf = async () =>
      (
        (await t.api.get(USERS, { key: tenant.session })).body.data as Array<{ email: string; role: string }>
      ).find((u) => u.email === email);
    expect(await userOf()).toMatchObject({ role: 'developer', status: 'active' });
    expect((await t.api.login(email, password)).length).toBeGreaterThan(20);

    await page.getByLabel(`Role of ${email}`).selectOption('viewer');
    await page.getByRole('button', { name: `Save role of ${email}` }).click();
    await expect.poll(() => page.getByText(`${email} is now viewer.`).isVisible(), EVENTUALLY).toBe(true);
    expect(await userOf()).toMatchObject({ role: 'viewer' });
    await expect
      .poll(() => page.getByRole('region', { name: 'Roles', exact: true }).textContent(), EVENTUALLY)
      .toContain('operator-tokens:manage');
    await screenshot(page, 'users');
    expect(errors).toEqual([]);
    await context.close();
  });
});

describe('the console: an admin and the owner', () => {
  it('when an admin opens the users, then "owner" is not offered and the owner\'s row has no controls; the API refuses an admin\'s owner (403)', async () => {
    const tenant = await tenantWithSession();
    const admin = await addUser(tenant.session, 'admin');
    const developer = await addUser(tenant.session, 'developer');
    const { page, errors, context } = await openConsole(b.browser, t.stack.url);
    await logIn(page, admin.email, admin.password);
    await goTo(page, 'Users and roles');

    // The developer's row is managed, with every role but owner.
    const developerRole = page.getByLabel(`Role of ${developer.email}`);
    await expect
      .poll(() => developerRole.locator('option').allTextContents(), EVENTUALLY)
      .toEqual(['admin', 'developer', 'viewer']);
    await expect
      .poll(() => page.getByRole('button', { name: `Disable ${developer.email}` }).count(), EVENTUALLY)
      .toBe(1);
    // The owner's row shows the role and status only.
    const ownerRow = page.getByRole('row').filter({ hasText: tenant.owner.email });
    await expect.poll(() => ownerRow.getByRole('cell').first().textContent(), EVENTUALLY).toBe('owner');
    expect(await ownerRow.getByRole('combobox').count()).toBe(0);
    expect(await ownerRow.getByRole('button').count()).toBe(0);
    // Nor is a new user made an owner.
    await page.getByRole('button', { name: 'Add user' }).click();
    await expect
      .poll(() => page.getByLabel('Role', { exact: true }).locator('option').allTextContents(), EVENTUALLY)
      .toEqual(['admin', 'developer', 'viewer']);

    // What the page does not offer, the API refuses.
    const session = await t.api.login(admin.email, admin.password);
    const promoted = await t.api.patch(`${USERS}/${developer.id}`, { key: session, body: { role: 'owner' } });
    expect(promoted).toMatchObject({ status: 403, body: { details: { code: 'permission_denied' } } });
    const users = (await t.api.get(USERS, { key: tenant.session })).body.data as Array<{
      email: string;
      role: string;
      status: string;
    }>;
    expect(users.find((u) => u.email === tenant.owner.email)).toMatchObject({
      role: 'owner',
      status: 'active',
    });
    expect(users.find((u) => u.email === developer.email)).toMatchObject({ role: 'developer' });
    expect(errors).toEqual([]);
    await context.close();
  });
});

describe('the console: storage connections', () => {
  it('when an owner adds a customer-owned connection and disables it, then the secret is never shown back and the API has it disabled', async () => {
    const tenant = await tenantWithSession();
    const secret = `db-secret-${suffix()}`;
    const { page, errors, context } = await openConsole(b.browser, t.stack.url);
    await logIn(page, tenant.owner.email, tenant.owner.password);
    await goTo(page, 'Storage connections');

    await page.getByRole('button', { name: 'Add connection' }).click();
    await page.getByLabel('Name', { exact: true }).fill('warehouse');
    await page.getByRole('radio', { name: /Customer-owned/ }).check();
    await page.getByLabel('Host').fill('db.example.test');
    await page.getByLabel('Port').fill('6543');
    await page.getByLabel('Database').fill('memories');
    await page.getByLabel('Username').fill('tm_app');
    await page.getByLabel('SSL mode').selectOption('require');
    await page.getByLabel('Secret (password)').fill(secret);
    await page.getByRole('button', { name: 'Add connection' }).click();

    const row = page.getByRole('row', { name: /warehouse/ });
    await expect.poll(() => row.textContent(), EVENTUALLY).toContain('secret configured');
    await expect
      .poll(() => row.textContent(), EVENTUALLY)
      .toContain('tm_app@db.example.test:6543/memories (ssl require)');
    expect(await page.content()).not.toContain(secret);

    await row.getByRole('button', { name: 'Disable warehouse' }).click();
    await row.getByRole('button', { name: 'Disable', exact: true }).click();
    await expect.poll(() => row.textContent(), EVENTUALLY).toContain('disabled');

    const listed = await t.api.get(STORAGE, { key: tenant.session });
    expect(listed.body.data.find((c: { name: string }) => c.name === 'warehouse')).toMatchObject({
      kind: 'customer_owned',
      status: 'disabled',
      dispatch: 'control_plane_only',
      secret_configured: true,
      settings: { engine: 'postgresql', host: 'db.example.test', port: 6543, ssl_mode: 'require' },
    });
    expect(JSON.stringify(listed.body)).not.toContain(secret);
    await screenshot(page, 'storage');
    expect(errors).toEqual([]);
    await context.close();
  });
});

describe('the console: consent', () => {
  it('when a user revokes and grants consent, then both changes are in the audit trail with their request ids', async () => {
    const tenant = await tenantWithSession();
    const { page, errors, context } = await openConsole(b.browser, t.stack.url);
    await logIn(page, tenant.owner.email, tenant.owner.password);
    await goTo(page, 'Consent');

    await page.getByRole('button', { name: 'Revoke consent' }).click();
    await page.getByRole('button', { name: 'Revoke', exact: true }).click();
    await expect
      .poll(() => page.getByRole('button', { name: 'Grant consent' }).isVisible(), EVENTUALLY)
      .toBe(true);
    expect((await writeWith(tenant.api_key)).body.state).toBe('not_retained');
    await page.getByRole('button', { name: 'Grant consent' }).click();
    await expect
      .poll(() => page.getByRole('button', { name: 'Revoke consent' }).isVisible(), EVENTUALLY)
      .toBe(true);

    const events = (await t.api.get(CONSENT_EVENTS, { key: tenant.session })).body.data as Array<{
      state: string;
      request_id: string;
    }>;
    expect(events.slice(0, 2).map((e) => e.state)).toEqual(['granted', 'revoked']);
    const trail = page.getByRole('table', { name: /Consent changes/ });
    await expect.poll(() => trail.getByRole('row').count(), EVENTUALLY).toBe(events.length + 1);
    for (const event of events.slice(0, 2)) {
      const row = trail.getByRole('row', { name: new RegExp(event.request_id) });
      await expect.poll(() => row.textContent(), EVENTUALLY).toMatch(new RegExp(`${event.state}.*you`));
    }
    await screenshot(page, 'consent');
    expect(errors).toEqual([]);
    await context.close();
  });
});

describe('the console: account', () => {
  it('when a user changes the password, then the new one logs in, the old one does not, and other sessions end', async () => {
    const tenant = await tenantWithSession();
    const next = `new-pw-${suffix()}-${suffix()}`;
    const { page, errors, context } = await openConsole(b.browser, t.stack.url);
    await logIn(page, tenant.owner.email, tenant.owner.password);
    await goTo(page, 'Account');
    await expect
      .poll(() => page.getByRole('region', { name: 'Signed in' }).textContent(), EVENTUALLY)
      .toContain(tenant.tenant_id);
    await screenshot(page, 'account');

    await page.getByLabel('Current password').fill(tenant.owner.password);
    await page.getByLabel('New password', { exact: true }).fill(next);
    await page.getByLabel('New password again').fill(next);
    await page.getByRole('button', { name: 'Change password' }).click();
    await expect.poll(() => page.getByText('Password changed.').isVisible(), EVENTUALLY).toBe(true);

    expect((await t.api.get('/api/v1/control/account', { key: tenant.session })).status).toBe(401);
    expect(
      (
        await t.api.post('/api/v1/control/sessions', {
          body: { email: tenant.owner.email, password: tenant.owner.password },
        })
      ).status,
    ).toBe(401);
    await page.getByRole('button', { name: 'Log out' }).click();
    await logIn(page, tenant.owner.email, next);
    expect(errors).toEqual([]);
    await context.close();
  });
});

describe('the console: account, a weak password', () => {
  it("when a user picks a common password, then the form shows the server's reason and the password is unchanged", async () => {
    const tenant = await tenantWithSession();
    const { page, errors, context } = await openConsole(b.browser, t.stack.url);
    await logIn(page, tenant.owner.email, tenant.owner.password);
    await goTo(page, 'Account');

    await page.getByLabel('Current password').fill(tenant.owner.password);
    await page.getByLabel('New password', { exact: true }).fill('password1234');
    await page.getByLabel('New password again').fill('password1234');
    await page.getByRole('button', { name: 'Change password' }).click();

    await expect
      .poll(() => page.getByRole('alert').textContent(), EVENTUALLY)
      .toMatch(/new_password is too easy to guess \(this is .*commonly used password\).*HTTP 400/);
    const stillOld = await t.api.post('/api/v1/control/sessions', {
      body: { email: tenant.owner.email, password: tenant.owner.password },
    });
    expect(stillOld.status).toBe(201);
    expect(errors).toEqual([]);
    await context.close();
  });
});

describe('the console: operator tokens', () => {
  it('when an owner issues a token for 48 hours and revokes it, then it was shown once and the API has it revoked', async () => {
    const tenant = await tenantWithSession();
    const { page, errors, context } = await openConsole(b.browser, t.stack.url);
    await logIn(page, tenant.owner.email, tenant.owner.password);
    await goTo(page, 'Operator tokens');

    await page.getByLabel('Name', { exact: true }).fill('diagnostics');
    await page.getByLabel(/Expires after/).fill('48');
    await page.getByRole('button', { name: 'Issue token' }).click();
    await expect.poll(() => secretIn(page, 'New operator token diagnostics'), EVENTUALLY).toMatch(/^tmo_/);
    const token = (await secretIn(page, 'New operator token diagnostics')) ?? '';
    await expect.poll(async () => (await liveRegions(page)).join(' '), EVENTUALLY).toContain('Token issued');
    expect((await liveRegions(page)).join(' ')).not.toContain(token);
    await expect.poll(() => focused(page), EVENTUALLY).toBe('H2 New operator token diagnostics');
    const issued = (await t.api.get(OPERATOR_TOKENS, { key: tenant.session })).body.data[0];
    const hours = (Date.parse(issued.expires_at) - Date.parse(issued.created_at)) / 3_600_000;
    expect(Math.round(hours)).toBe(48);
    await screenshot(page, 'operator-tokens');

    const row = page.getByRole('row', { name: /diagnostics/ });
    await row.getByRole('button', { name: 'Revoke diagnostics' }).click();
    await row.getByRole('button', { name: 'Revoke', exact: true }).click();
    await expect.poll(() => row.textContent(), EVENTUALLY).toContain('revoked');
    const after = (await t.api.get(OPERATOR_TOKENS, { key: tenant.session })).body.data[0];
    expect(after).toMatchObject({ id: issued.id, status: 'revoked' });
    expect(errors).toEqual([]);
    await context.close();
  });
});
