import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  createConsoleKey,
  estimateCsvImport,
  goTo,
  logIn,
  openConsole,
  openNavigation,
  PHONE,
  screenshot,
  useBrowser,
  webStorage,
} from '../support/browser.js';
import { EVENTUALLY } from '../support/eventually.js';
import { createTenant, recallBody, uniqueKey, uniqueNamespace, writeBody } from '../support/factories.js';
import { recordSecrets } from '../support/log-capture.js';
import { useStack } from '../support/stack.js';
import { type StubHub, startStubHub } from '../support/stub-hub.js';

// A browser test walks several pages; on two shared cores (a CI run beside it) one took over 30 s.
vi.setConfig({ testTimeout: 120_000 });

/** A browser test walks several pages; on two shared cores one takes 10-40 s. */
const TEST_MS = 120_000;

// A stand-in model hub for the dataset import: these machines reach no hub (tests/e2e/imports/hub-imports.test.ts).
let hub: StubHub;
beforeAll(async () => {
  hub = await startStubHub();
});
afterAll(() => hub?.close());

const t = useStack({ templateEnv: () => ({ ...hub.env, IMPORT_POLL_MS: '200' }) });
const b = useBrowser();

describe('the console: data pages through an API key', () => {
  it(
    'when an owner writes and recalls in the playground, then the namespace is listed, exported as JSON, and deleted by its typed name',
    async () => {
      const tenant = await createTenant();
      const namespace = uniqueNamespace('console');
      const text = 'The lighthouse keeper feeds seven orange cats every morning';
      const { page, errors, context } = await openConsole(b.browser, t.stack.url);
      await logIn(page, tenant.owner.email, tenant.owner.password);
      await goTo(page, 'Playground');
      await createConsoleKey(page);
      // The key's secret is shown once, and kept for the tab only: in its sessionStorage, as the tab's key.
      await expect.poll(() => page.locator('code.secret').textContent(), EVENTUALLY).toMatch(/^tmk_/);
      const secret = (await page.locator('code.secret').textContent()) ?? '';
      const { session: kept, local } = await webStorage(page);
      expect(JSON.stringify(local)).not.toContain(secret);
      expect(Object.keys(kept).filter((name) => kept[name]?.includes(secret))).toEqual([
        'tm.console.tab-key',
      ]);

      const write = page.getByRole('region', { name: 'Write', exact: true });
      await write.getByLabel('Namespace').fill(namespace);
      await write.getByLabel('Text').fill(text);
      await expect.poll(() => write.getByLabel(/Event id/).inputValue(), EVENTUALLY).toMatch(/^evt_/);
      await write.getByRole('button', { name: 'Write' }).click();
      const written = page.getByRole('region', { name: 'Write answer' });
      await expect.poll(() => written.textContent(), EVENTUALLY).toContain('retained');
      await expect.poll(() => written.textContent(), EVENTUALLY).toContain('memorized');
      await expect.poll(() => written.textContent(), EVENTUALLY).toContain('deterministic-lexical-v2');

      const recall = page.getByRole('region', { name: 'Recall', exact: true });
      await recall.getByLabel('Namespace').fill(namespace);
      await recall.getByLabel('Cue').fill('orange cats lighthouse');
      await recall.getByRole('button', { name: 'Recall' }).click();
      const recalled = page.getByRole('region', { name: 'Recall answer' });
      await expect.poll(() => recalled.getByRole('rowheader').first().textContent(), EVENTUALLY).toBe(text);
      await expect.poll(() => recalled.textContent(), EVENTUALLY).toContain('matched');
      await expect.poll(() => recalled.locator('pre').textContent(), EVENTUALLY).toContain(text);
      await screenshot(page, 'playground');
      // The API's own recall finds what the page wrote.
      const viaApi = await t.api.recall(tenant.api_key, recallBody(namespace, 'lighthouse'));
      expect(viaApi.body.related.map((r: { text: string }) => r.text)).toEqual([text]);

      await goTo(page, 'Namespaces');
      const row = page.getByRole('row', { name: new RegExp(namespace) });
      await expect.poll(() => row.getByRole('cell').first().textContent(), EVENTUALLY).toBe('1');

      const [download] = await Promise.all([
        page.waitForEvent('download'),
        row.getByRole('button', { name: `Export ${namespace}` }).click(),
      ]);
      expect(download.suggestedFilename()).toBe(`export-${namespace}.json`);
      const exported = JSON.parse(readFileSync(await download.path(), 'utf8'));
      expect(exported.records.map((r: { text: string }) => r.text)).toEqual([text]);
      expect(exported.selection.namespaces).toEqual([namespace]);
      await screenshot(page, 'namespaces');

      await row.getByRole('button', { name: `Delete ${namespace}` }).click();
      const confirm = page.getByRole('form', { name: 'Confirm: Delete namespace' });
      const button = confirm.getByRole('button', { name: 'Delete namespace' });
      await confirm.getByLabel(/to delete namespace/).fill(namespace.slice(0, -1));
      await expect.poll(() => button.isDisabled(), EVENTUALLY).toBe(true);
      await confirm.getByLabel(/to delete namespace/).fill(namespace);
      await screenshot(page, 'namespaces-delete');
      await button.click();
      const receipt = page.getByRole('region', { name: 'Deletion receipt' });
      await expect
        .poll(() => receipt.textContent(), EVENTUALLY)
        .toContain(`Deleted 1 records from ${namespace}`);
      await expect
        .poll(() => page.getByRole('row', { name: new RegExp(namespace) }).count(), EVENTUALLY)
        .toBe(0);
      const after = await t.api.recall(tenant.api_key, recallBody(namespace, 'lighthouse'));
      expect(after.body.state).toBe('no_data');
      expect(after.body.related).toEqual([]);

      // Revoked through the API, the console's key is refused, and the page says so.
      const session = await t.api.login(tenant.owner.email, tenant.owner.password);
      const keys = await t.api.get('/api/v1/control/api-keys', { key: session });
      const consoleKey = keys.body.data.find((k: { prefix: string }) => secret.startsWith(k.prefix));
      expect(
        (await t.api.post(`/api/v1/control/api-keys/${consoleKey.id}/revoke`, { key: session })).status,
      ).toBe(200);
      await goTo(page, 'Playground');
      await recall.getByLabel('Cue').fill('lighthouse');
      await recall.getByRole('button', { name: 'Recall' }).click();
      await expect.poll(() => recall.getByRole('alert').textContent(), EVENTUALLY).toContain('HTTP 401');
      await expect.poll(() => recall.textContent(), EVENTUALLY).toContain('unknown, revoked');
      await screenshot(page, 'playground-revoked-key');
      expect(errors).toEqual([]);
      await context.close();
    },
    TEST_MS,
  );

  it(
    'when a recalled memory is forgotten in the playground, then it leaves the answer after a second yes, and the API no longer finds it; recalled with Explain, the one left shows its terms',
    async () => {
      const tenant = await createTenant();
      const namespace = uniqueNamespace('console-forget');
      const kept = await t.api.write(
        tenant.api_key,
        writeBody(namespace, 'The harbour bell rings at noon', { event_id: 'evt-bell' }),
        uniqueKey(),
      );
      const gone = await t.api.write(
        tenant.api_key,
        writeBody(namespace, 'The harbour gate code is 4711', { event_id: 'evt-gate' }),
        uniqueKey(),
      );
      expect([kept.status, gone.status]).toEqual([200, 200]);
      const { page, errors, context } = await openConsole(b.browser, t.stack.url);
      await logIn(page, tenant.owner.email, tenant.owner.password);
      await goTo(page, 'Playground');
      await createConsoleKey(page);

      const recall = page.getByRole('region', { name: 'Recall', exact: true });
      await recall.getByLabel('Namespace').fill(namespace);
      await recall.getByLabel('Cue').fill('harbour');
      await recall.getByRole('button', { name: 'Recall' }).click();
      const recalled = page.getByRole('region', { name: 'Recall answer' });
      await expect.poll(() => recalled.getByRole('rowheader').count(), EVENTUALLY).toBe(2);
      await recalled.getByRole('button', { name: 'Forget evt-gate' }).click();
      const question = recalled.getByRole('group', { name: 'Forget this memory for good?' });
      await screenshot(page, 'playground-forget');
      await question.getByRole('button', { name: 'Forget' }).click();

      await expect
        .poll(() => recalled.getByRole('status').textContent(), EVENTUALLY)
        .toContain(`Forgotten: memory ${gone.body.memory_id}`);
      await expect
        .poll(() => recalled.getByRole('rowheader').allTextContents(), EVENTUALLY)
        .toEqual(['The harbour bell rings at noon']);
      const viaApi = await t.api.get(`/v1/memories/${gone.body.memory_id}`, { key: tenant.api_key });
      expect(viaApi.status).toBe(404);
      const stillThere = await t.api.recall(tenant.api_key, recallBody(namespace, 'harbour'));
      expect(stillThere.body.related.map((r: { event_id: string }) => r.event_id)).toEqual(['evt-bell']);

      // Explained, the record left shows which of the cue's terms it holds, with their weights.
      await recall.getByLabel(/Explain/).check();
      await recall.getByLabel('Cue').fill('The harbour bell gate');
      await recall.getByRole('button', { name: 'Recall' }).click();
      const terms = recalled.getByRole('table', { name: 'Terms of evt-bell' });
      await expect
        .poll(() => terms.getByRole('row').allTextContents(), EVENTUALLY)
        .toEqual([
          'TermWeightMatched',
          expect.stringMatching(/^harbour[\d.]+✓ yes$/),
          expect.stringMatching(/^bell[\d.]+✓ yes$/),
          expect.stringMatching(/^gate[\d.]+✗ no$/),
        ]);
      await expect.poll(() => recalled.textContent(), EVENTUALLY).toContain('do not score): the ✓');
      await screenshot(page, 'playground-explain');
      expect(errors).toEqual([]);
      await context.close();
    },
    TEST_MS,
  );

  it(
    'when a CSV with one empty row is imported, then the estimate, the progress to completion and the failed row are shown',
    async () => {
      const tenant = await createTenant();
      const namespace = uniqueNamespace('import');
      const { page, errors, context } = await openConsole(b.browser, t.stack.url);
      await logIn(page, tenant.owner.email, tenant.owner.password);
      await goTo(page, 'Imports');
      await createConsoleKey(page);

      // Row 2 has no note, so it renders empty and fails as empty_render; the others are retained.
      const job = await estimateCsvImport(
        page,
        'visits.csv',
        'note,city\nAda met the harbour master,Lisbon\n,Porto\nGrace fixed the tide clock,Faro\n',
        namespace,
      );
      await expect.poll(() => job.textContent(), EVENTUALLY).toMatch(/Rows3/);
      await expect.poll(() => job.textContent(), EVENTUALLY).toMatch(/Rows rendering empty1/);
      await expect.poll(() => job.textContent(), EVENTUALLY).toMatch(/Estimated cost\$/);
      await screenshot(page, 'imports-estimate');

      await job.getByRole('button', { name: 'Start import of 3 rows' }).click();
      await expect.poll(() => job.textContent(), EVENTUALLY).toContain('completed');
      await expect
        .poll(() => job.textContent(), EVENTUALLY)
        .toContain('3 of 3 rows processed: 2 retained, 1 failed.');
      await expect
        .poll(() => job.getByRole('progressbar', { name: 'Progress' }).getAttribute('value'), EVENTUALLY)
        .toBe('3');
      const failures = job.getByRole('table', { name: /Failed rows/ });
      await expect.poll(() => failures.getByRole('row').count(), EVENTUALLY).toBe(2);
      await expect.poll(() => failures.textContent(), EVENTUALLY).toContain('empty_render');
      await screenshot(page, 'imports');
      const imported = await t.api.recall(tenant.api_key, recallBody(namespace, 'harbour tide'));
      expect(imported.body.related.map((r: { text: string }) => r.text).sort()).toEqual([
        'Ada met the harbour master',
        'Grace fixed the tide clock',
      ]);
      expect(errors).toEqual([]);
      await context.close();
    },
    TEST_MS,
  );

  it(
    'when a format placeholder matches no column of the CSV, then the upload is refused with the placeholder and the columns named, and no estimate appears',
    async () => {
      const tenant = await createTenant();
      const { page, errors, context } = await openConsole(b.browser, t.stack.url);
      await logIn(page, tenant.owner.email, tenant.owner.password);
      await goTo(page, 'Imports');
      await createConsoleKey(page);
      const file = join(mkdtempSync(join(tmpdir(), 'console-import-')), 'typo.csv');
      writeFileSync(file, 'note,city\nAda met the harbour master,Lisbon\n');

      await page.getByLabel(/^File/).setInputFiles(file);
      await page.getByRole('textbox', { name: 'Format string' }).fill('{nots} in {city}');
      await page.getByLabel('Namespace').fill(uniqueNamespace('import-typo'));
      await page.getByRole('button', { name: 'Upload and estimate' }).click();
      const alert = page.getByRole('alert');
      await expect
        .poll(() => alert.textContent(), EVENTUALLY)
        .toContain(
          'Placeholder {nots} matches no column of the file (columns: note, city); name a column, or give a default: {nots|…}',
        );

      expect(await alert.textContent()).toContain('HTTP 400 · validation_failed');
      expect(await page.getByRole('region', { name: 'Import of typo.csv' }).count()).toBe(0);
      expect(errors).toEqual([]);
      await context.close();
    },
    TEST_MS,
  );

  it(
    'when the progress reads fail for a while, then a notice shows and progress resumes; the import is found again through the navigation, by ?import= after a reload, and by its id',
    async () => {
      const tenant = await createTenant();
      const namespace = uniqueNamespace('reopen');
      const { page, errors, context } = await openConsole(b.browser, t.stack.url);
      await logIn(page, tenant.owner.email, tenant.owner.password);
      await goTo(page, 'Imports');
      await createConsoleKey(page);
      const job = await estimateCsvImport(
        page,
        'tides.csv',
        'note,place\nThe tide turns at noon,Faro\n,Porto\nThe ferry waits for the tide,Lagos\n',
        namespace,
      );
      const id = new URL(page.url()).searchParams.get('import') ?? '';
      expect(id).toMatch(/^[0-9a-f-]{36}$/);

      // The gateway answers the first three progress reads 503 (the SDK tries each read twice).
      let refused = 0;
      await page.route(
        (url) => url.pathname === `/v1/imports/${id}`,
        (route) =>
          route.request().method() === 'GET' && refused++ < 3
            ? route.fulfill({
                status: 503,
                contentType: 'application/json',
                body: JSON.stringify({
                  error: 'Service unavailable',
                  retryable: true,
                  details: { code: 'service_unavailable' },
                }),
              })
            : route.continue(),
      );
      await job.getByRole('button', { name: 'Start import of 3 rows' }).click();
      await expect
        .poll(() => job.getByRole('status').textContent(), EVENTUALLY)
        .toContain("Could not read the import's progress (Service unavailable); trying again in 2 s.");
      await expect.poll(() => job.textContent(), EVENTUALLY).toContain('completed');
      await expect
        .poll(() => job.textContent(), EVENTUALLY)
        .toContain('3 of 3 rows processed: 2 retained, 1 failed.');
      await expect.poll(() => job.getByRole('status').count(), EVENTUALLY).toBe(0);
      expect(refused).toBeGreaterThanOrEqual(3);
      await page.unrouteAll();
      const viaApi = await t.api.get(`/v1/imports/${id}`, { key: tenant.api_key });
      expect(viaApi.body).toMatchObject({ id, state: 'completed', total: 3, retained: 2, failed: 1 });

      const shown = async () => {
        const reopened = page.getByRole('region', { name: /Import of tides.csv/ });
        await expect.poll(() => reopened.textContent(), EVENTUALLY).toContain('completed');
        await expect
          .poll(() => reopened.textContent(), EVENTUALLY)
          .toContain('3 of 3 rows processed: 2 retained, 1 failed.');
        const failures = reopened.getByRole('table', { name: /Failed rows/ });
        await expect.poll(() => failures.getByRole('row').count(), EVENTUALLY).toBe(2);
        await expect.poll(() => failures.textContent(), EVENTUALLY).toContain('empty_render');
        return reopened;
      };
      // Away and back through the navigation (whose link has no ?import=): the import is open again.
      await goTo(page, 'Playground');
      await goTo(page, 'Imports');
      await shown();
      expect(new URL(page.url()).searchParams.get('import')).toBe(id);

      // A reload keeps the tab's key and the import: the address opens it.
      await page.goto(`/console/imports?import=${id}`);
      const reloaded = await shown();
      await screenshot(page, 'imports-reopened');

      // Closed, then opened by its id.
      await reloaded.getByRole('button', { name: 'Close' }).click();
      await expect.poll(() => page.getByRole('region', { name: /Import of/ }).count(), EVENTUALLY).toBe(0);
      expect(new URL(page.url()).searchParams.get('import')).toBeNull();
      const opener = page.getByRole('region', { name: 'Open an import by id' });
      await opener.getByLabel('Import id').fill(id);
      await opener.getByRole('button', { name: 'Open import' }).click();
      await shown();
      // The three 503s this test injected are recorded (support/browser.ts fails on a 5xx); nothing else is.
      expect(errors.filter((e) => !/status of 503/.test(e))).toEqual([]);
      expect(errors.length).toBeGreaterThan(0);
      await context.close();
    },
    TEST_MS,
  );

  it(
    'when a gated hub dataset is imported with a token, then its estimate, progress and failed row are shown and the token is kept nowhere in the page',
    async () => {
      const tenant = await createTenant();
      const namespace = uniqueNamespace('hub');
      const token = `hf_${randomUUID().replaceAll('-', '')}`;
      recordSecrets([token]);
      const dataset = `stub-org/console-${randomUUID().slice(0, 8)}`;
      // Row 0 has no topic, so `{topic}` renders empty there.
      const rows = Array.from({ length: 5 }, (_, i) => ({
        name: `Person ${i}`,
        ...(i === 0 ? {} : { topic: `Person ${i} studies topic ${i}` }),
      }));
      hub.add({
        id: dataset,
        sha: 'a'.repeat(40),
        configs: { default: { train: rows } },
        columns: ['name', 'topic'],
        token,
      });
      const { page, errors, context } = await openConsole(b.browser, t.stack.url);
      await logIn(page, tenant.owner.email, tenant.owner.password);
      await goTo(page, 'Imports');
      await createConsoleKey(page);

      await page.getByRole('radio', { name: 'A hub dataset' }).check();
      await page.getByLabel('Dataset id (owner/name)').fill(dataset);
      await expect.poll(() => page.getByLabel('Split').inputValue(), EVENTUALLY).toBe('train');
      const tokenField = page.getByLabel(/^Hub token/);
      expect(await tokenField.getAttribute('type')).toBe('password');
      await tokenField.fill(token);
      await page.getByRole('textbox', { name: 'Format string' }).fill('{topic}');
      await page.getByLabel('Namespace').fill(namespace);
      await page.getByRole('button', { name: 'Estimate the dataset' }).click();
      const job = page.getByRole('region', { name: `Import of ${dataset} (default/train)` });
      await expect.poll(() => job.textContent(), EVENTUALLY).toContain('estimated');
      await expect.poll(() => job.textContent(), EVENTUALLY).toMatch(/Rows5/);
      await expect.poll(() => job.textContent(), EVENTUALLY).toContain(`Dataset revision ${'a'.repeat(40)}`);
      // The token went to the hub, and stays neither in the form nor anywhere the page keeps things.
      expect(
        hub.requests.some(
          (r) => r.url.includes(encodeURIComponent(dataset)) && r.authorization === `Bearer ${token}`,
        ),
      ).toBe(true);
      await expect.poll(() => tokenField.inputValue(), EVENTUALLY).toBe('');
      const stored = await page.evaluate(
        'JSON.stringify({ ...sessionStorage, ...localStorage }) + document.cookie',
      );
      expect(String(stored)).not.toContain(token);
      expect(await page.content()).not.toContain(token);

      await job.getByRole('button', { name: 'Start import of 5 rows' }).click();
      await expect.poll(() => job.textContent(), EVENTUALLY).toContain('completed');
      await expect
        .poll(() => job.textContent(), EVENTUALLY)
        .toContain('5 of 5 rows processed: 4 retained, 1 failed.');
      const failures = job.getByRole('table', { name: /Failed rows/ });
      await expect.poll(() => failures.getByRole('row').count(), EVENTUALLY).toBe(2);
      await expect.poll(() => failures.textContent(), EVENTUALLY).toContain('empty_render');
      await screenshot(page, 'imports-dataset');
      const id = new URL(page.url()).searchParams.get('import') ?? '';
      const viaApi = await t.api.get(`/v1/imports/${id}`, { key: tenant.api_key });
      expect(viaApi.body).toMatchObject({
        state: 'completed',
        total: 5,
        retained: 4,
        failed: 1,
        dataset: { id: dataset, config: 'default', split: 'train', revision: 'a'.repeat(40) },
      });
      const imported = await t.api.recall(tenant.api_key, recallBody(namespace, 'studies topic'));
      expect(imported.body.related).toHaveLength(4);
      expect(errors).toEqual([]);
      await context.close();
    },
    TEST_MS,
  );

  it(
    'when a template is created in the browser, then a memory made from it is shown and readable by id; the marketplace is searchable',
    async () => {
      const tenant = await createTenant();
      const name = `visit_${randomUUID().slice(0, 6)}`;
      const { page, errors, context } = await openConsole(b.browser, t.stack.url);
      await logIn(page, tenant.owner.email, tenant.owner.password);
      await goTo(page, 'Templates');
      await createConsoleKey(page);

      await page.getByRole('button', { name: 'New template' }).click();
      const editor = page.getByRole('form', { name: 'New template' });
      await editor.getByLabel('Template name').fill(name);
      await editor.getByLabel('Format string (optional)').fill('{person} visited {place|somewhere}');
      await editor.getByLabel('Field 1 name').fill('person');
      await editor.getByLabel('Field 1 required').check();
      await editor.getByRole('button', { name: 'Add field' }).click();
      await editor.getByLabel('Field 2 name').fill('place');
      await editor.getByRole('button', { name: 'Create template' }).click();
      await expect
        .poll(() => page.getByText(`Saved ${name}, revision 1.`).isVisible(), EVENTUALLY)
        .toBe(true);
      const listed = await t.api.get(`/v1/templates/${name}`, { key: tenant.api_key });
      expect(listed.body.fields.map((f: { name: string }) => f.name)).toEqual(['person', 'place']);

      await page.getByRole('button', { name: `Create a memory from ${name}` }).click();
      const form = page.getByRole('region', { name: `Create a memory from template ${name}` });
      await form.getByLabel('person (required)').fill('Ada');
      await form.getByLabel('place', { exact: true }).fill('the observatory');
      await form.getByRole('button', { name: 'Create memory' }).click();
      const created = page.getByRole('region', { name: 'Created memory' });
      await expect
        .poll(() => created.locator('pre').textContent(), EVENTUALLY)
        .toBe('Ada visited the observatory');
      const memoryId = (await created.locator('code').first().textContent()) ?? '';
      const read = await t.api.get(`/v1/memories/${memoryId}`, { key: tenant.api_key });
      expect(read.status).toBe(200);
      expect(read.body.text).toBe('Ada visited the observatory');
      expect(read.body.data).toEqual({ person: 'Ada', place: 'the observatory' });

      // An edit is the template's next revision (sent with If-Match on the one read).
      await page.getByRole('button', { name: `Edit ${name}` }).click();
      const edit = page.getByRole('form', { name: `Edit ${name} (revision 1)` });
      await edit.getByLabel('Format string (optional)').fill('{person} went to {place|somewhere}');
      await edit.getByRole('button', { name: 'Save revision' }).click();
      await expect
        .poll(() => page.getByText(`Saved ${name}, revision 2.`).isVisible(), EVENTUALLY)
        .toBe(true);
      const updated = await t.api.get(`/v1/templates/${name}`, { key: tenant.api_key });
      expect([updated.body.revision, updated.body.format]).toEqual([2, '{person} went to {place|somewhere}']);

      const market = page.getByRole('region', { name: 'Marketplace' });
      await market.getByLabel('Category').selectOption('meetings');
      await market.getByRole('button', { name: 'Search', exact: true }).click();
      await expect.poll(() => market.getByRole('row').count(), EVENTUALLY).toBeGreaterThan(1);
      await market
        .getByRole('button', { name: /^View / })
        .first()
        .click();
      await expect
        .poll(() => market.getByRole('region', { name: 'Template definition' }).textContent(), EVENTUALLY)
        .toContain('meetings');
      await screenshot(page, 'templates');
      expect(errors).toEqual([]);
      await context.close();
    },
    TEST_MS,
  );

  it(
    'when a viewer signs in, then the playground, templates and imports are not listed, export and delete are not offered, and at phone width the table scrolls within the page',
    async () => {
      const tenant = await createTenant();
      const namespace = uniqueNamespace('viewer');
      const write = await t.api.write(
        tenant.api_key,
        {
          contract_version: 'v1',
          namespace,
          event: { occurred_at: new Date().toISOString(), content: { text: 'seen by a viewer' } },
        },
        `evt_${randomUUID()}`,
      );
      expect(write.status).toBe(200);
      const session = await t.api.login(tenant.owner.email, tenant.owner.password);
      const viewer = {
        email: `viewer-${randomUUID().slice(0, 8)}@example.test`,
        password: `pw-${randomUUID()}`,
      };
      const added = await t.api.post('/api/v1/control/users', {
        key: session,
        body: { ...viewer, role: 'viewer' },
      });
      expect(added.status).toBe(201);

      const { page, errors, context } = await openConsole(b.browser, t.stack.url, PHONE);
      await logIn(page, viewer.email, viewer.password);
      // A viewer's role holds neither memory:write nor memory:recall: the pages that only write and
      // recall are not listed, while the telemetry they can read is.
      const navigation = await openNavigation(page);
      await navigation.getByRole('link', { name: 'Namespaces' }).waitFor();
      for (const label of ['Playground', 'Templates', 'Imports']) {
        expect(await navigation.getByRole('link', { name: label }).count()).toBe(0);
      }

      await goTo(page, 'Namespaces');
      const row = page.getByRole('row', { name: new RegExp(namespace) });
      await expect.poll(() => row.getByRole('cell').first().textContent(), EVENTUALLY).toBe('1');
      expect(await page.getByRole('button', { name: /^(Export|Delete) / }).count()).toBe(0);
      expect(await page.getByRole('region', { name: 'API key in use' }).count()).toBe(0);
      await expect
        .poll(async () => Number(await page.evaluate('document.documentElement.scrollWidth')), EVENTUALLY)
        .toBeLessThanOrEqual(PHONE.width);
      await screenshot(page, 'namespaces-viewer-phone');
      // Typed in the address bar, the playground says the role does not allow it, and offers no key.
      await page.goto('/console/playground');
      await expect
        .poll(() => page.getByRole('alert').textContent(), EVENTUALLY)
        .toContain('Your role does not allow this page');
      expect(await page.getByRole('button', { name: 'Write' }).count()).toBe(0);
      expect(errors).toEqual([]);
      await context.close();
    },
    TEST_MS,
  );
});
