import { RESERVED_NAMESPACE_PREFIX } from '@tm/contracts';
import type { Page } from 'playwright-core';
import { describe, expect, it, vi } from 'vitest';
import { logIn, openConsole, screenshot, useBrowser, webStorage } from '../support/browser.js';
import { controlSteps } from '../support/control.js';
import { EVENTUALLY } from '../support/eventually.js';
import { memoryDbCount, recordsInNamespace } from '../support/memory-db.js';
import { useStack } from '../support/stack.js';
import { eventsFor } from '../support/telemetry.js';

// A browser test walks several pages; on two shared cores (a CI run beside it) one took over 30 s.
vi.setConfig({ testTimeout: 120_000 });

const t = useStack();
const b = useBrowser();
const { tenantWithSession, addUser } = controlSteps(t);

const OPERATOR_TOKENS = '/api/v1/control/operator-tokens';
const CONSENT = '/api/v1/control/consent';

/** A token of the right shape that no tenant was ever issued: refused like a wrong one. */
const UNKNOWN_OPERATOR_TOKEN = `tmo_${'a'.repeat(8)}_${'b'.repeat(40)}`;

/** A tenant, its owner's session, and an operator token the owner issued through the API. */
async function operatorTenant() {
  const tenant = await tenantWithSession();
  const issued = await t.api.post(OPERATOR_TOKENS, { key: tenant.session, body: { name: 'console smoke' } });
  expect(issued.status).toBe(201);
  return { ...tenant, operatorToken: issued.body.token as string };
}

/** Every memory record the tenant holds under the smoke test's reserved prefix. */
const smokeRecordsOf = (tenantId: string) =>
  memoryDbCount(
    'SELECT count(*) AS n FROM memory_record WHERE tenant_id = $1 AND starts_with(namespace, $2)',
    [tenantId, RESERVED_NAMESPACE_PREFIX],
  );

const smokeSection = (page: Page) => page.getByRole('region', { name: 'Smoke test', exact: true });

/** Signs in and pastes the API key into the Overview's smoke-test section (held in the tab's memory). */
async function openSmokeTest(page: Page, user: { email: string; password: string }, apiKey: string) {
  await logIn(page, user.email, user.password);
  const section = smokeSection(page);
  await section.getByLabel('API key for data calls').fill(apiKey);
  await section.getByRole('button', { name: 'Use key' }).click();
  await section.getByText('Using API key').waitFor();
  return section;
}

/**
 * Runs the smoke test with `operatorToken` in its field (empty: none is sent), and waits for the
 * route's answer: what the page shows next is this run's, never the one before.
 */
async function run(page: Page, operatorToken: string) {
  const section = smokeSection(page);
  await section.getByLabel('Operator token').fill(operatorToken);
  await Promise.all([
    page.waitForResponse(
      (response) => new URL(response.url()).pathname === '/api/v1/infrastructure/smoke-test',
    ),
    section.getByRole('button', { name: 'Run smoke test' }).click(),
  ]);
}

/** The cells of the report table's row for `step`. */
const stepRow = (page: Page, step: string) =>
  smokeSection(page)
    .getByRole('table', { name: 'Smoke test steps' })
    .getByRole('row', { name: new RegExp(`^${step}`) })
    .locator('th, td')
    .allTextContents();

describe('the console: smoke test', () => {
  it('when an owner runs it with an API key and an operator token, then every step passed, the API recorded that run, and the token is kept nowhere', async () => {
    const tenant = await operatorTenant();
    const { page, errors, context } = await openConsole(b.browser, t.stack.url);
    const section = await openSmokeTest(page, tenant.owner, tenant.api_key);
    const tokenField = section.getByLabel('Operator token');
    expect(await tokenField.getAttribute('type')).toBe('password');

    await run(page, tenant.operatorToken);
    const report = section.getByRole('region', { name: 'Smoke test report' });
    await expect.poll(() => report.textContent(), EVENTUALLY).toContain('All steps passed.');
    for (const step of ['write', 'recall', 'delete']) {
      await expect
        .poll(() => stepRow(page, step), EVENTUALLY)
        .toEqual([step, 'passed', expect.stringMatching(/./), expect.stringMatching(/^\d+\.\d$/)]);
    }
    expect(await section.getByRole('alert').count()).toBe(0);
    await screenshot(page, 'smoke-test');

    // The run the page shows is the one the API recorded: its request, by this key, and its namespace left empty.
    await expect
      .poll(() => report.locator('code').first().textContent(), EVENTUALLY)
      .toMatch(/^tm-smoke-test\/.+/);
    const requestId = (await report.locator('code').nth(1).textContent()) ?? '';
    const namespace = (await report.locator('code').first().textContent()) ?? '';
    const events = await eventsFor(t.api, tenant.session, [requestId]);
    expect(events.find((e) => e.request_id === requestId)).toMatchObject({
      operation: 'infrastructure.smoke_test',
      key_id: tenant.key_id,
      status: 200,
      state: 'passed',
    });
    expect(await recordsInNamespace(tenant.tenant_id, namespace)).toBe(0);

    // The operator token went to the API and stays in no storage; after logging out and in, it is gone.
    const stored = JSON.stringify(await webStorage(page)) + String(await page.evaluate('document.cookie'));
    expect(stored).not.toContain(tenant.operatorToken);
    await page.getByRole('button', { name: 'Log out' }).click();
    await openSmokeTest(page, tenant.owner, tenant.api_key);
    expect(await section.getByLabel('Operator token').inputValue()).toBe('');
    expect(await section.getByRole('region', { name: 'Smoke test report' }).count()).toBe(0);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('when the operator token is missing or unknown, then the 403 operator_capability_required is shown without a report, and nothing was written', async () => {
    const tenant = await operatorTenant();
    const { page, errors, context } = await openConsole(b.browser, t.stack.url);
    const section = await openSmokeTest(page, tenant.owner, tenant.api_key);

    for (const operatorToken of ['', UNKNOWN_OPERATOR_TOKEN]) {
      await run(page, operatorToken);
      const alert = section.getByRole('alert');
      await expect.poll(() => alert.textContent(), EVENTUALLY).toContain('operator_capability_required');
      await expect
        .poll(() => alert.textContent(), EVENTUALLY)
        .toContain('This diagnostic needs a valid operator token (X-Operator-Token) for your tenant');
      await expect.poll(() => alert.textContent(), EVENTUALLY).toContain('HTTP 403');
      expect(await section.getByRole('region', { name: 'Smoke test report' }).count()).toBe(0);
      expect(await section.getByRole('table').count()).toBe(0);
    }
    await screenshot(page, 'smoke-test-no-operator-token');
    expect(await smokeRecordsOf(tenant.tenant_id)).toBe(0);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('when the key user’s consent is revoked, then the 403 consent_required is shown without a report, and nothing was written', async () => {
    const tenant = await operatorTenant();
    const revoked = await t.api.post(`${CONSENT}/revoke`, { key: tenant.session });
    expect(revoked).toMatchObject({ status: 200, body: { state: 'revoked' } });
    const { page, errors, context } = await openConsole(b.browser, t.stack.url);
    const section = await openSmokeTest(page, tenant.owner, tenant.api_key);

    await run(page, tenant.operatorToken);
    const alert = section.getByRole('alert');
    await expect.poll(() => alert.textContent(), EVENTUALLY).toContain('consent_required');
    await expect.poll(() => alert.textContent(), EVENTUALLY).toContain('HTTP 403');
    expect(await section.getByRole('region', { name: 'Smoke test report' }).count()).toBe(0);
    await screenshot(page, 'smoke-test-consent-revoked');
    expect(await smokeRecordsOf(tenant.tenant_id)).toBe(0);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('when a step fails (the route’s 503), then the error and the report with the failed step are shown, and the run is not retried', async () => {
    const tenant = await operatorTenant();
    const { page, errors, context } = await openConsole(b.browser, t.stack.url);
    const section = await openSmokeTest(page, tenant.owner, tenant.api_key);
    // The gateway's answer when the recall step fails (smoke-test-route.ts): the report and the envelope.
    let sent = 0;
    await page.route(
      (url) => url.pathname === '/api/v1/infrastructure/smoke-test',
      (route) => {
        sent++;
        return route.fulfill({
          status: 503,
          contentType: 'application/json',
          body: JSON.stringify({
            contract_version: 'v1',
            request_id: 'req-failed-smoke',
            outcome: 'failed',
            namespace: `${RESERVED_NAMESPACE_PREFIX}stubbed`,
            steps: [
              { step: 'write', outcome: 'passed', detail: 'retained (Created)', latency_ms: 4.2 },
              {
                step: 'recall',
                outcome: 'failed',
                detail: 'internal_error: recall did not return the written record',
                latency_ms: 3.1,
              },
              {
                step: 'delete',
                outcome: 'passed',
                detail: 'not_retained, 1 record(s) removed',
                latency_ms: 2,
              },
            ],
            metered: true,
            error: 'The smoke test failed at its recall step',
            retryable: true,
            details: { code: 'service_unavailable', request_id: 'req-failed-smoke' },
          }),
        });
      },
    );

    await run(page, tenant.operatorToken);
    const alert = section.getByRole('alert');
    await expect
      .poll(() => alert.textContent(), EVENTUALLY)
      .toContain('The smoke test failed at its recall step');
    await expect.poll(() => alert.textContent(), EVENTUALLY).toContain('HTTP 503 · service_unavailable');
    const report = section.getByRole('region', { name: 'Smoke test report' });
    await expect.poll(() => report.textContent(), EVENTUALLY).toContain('Failed: recall.');
    await expect
      .poll(() => stepRow(page, 'recall'), EVENTUALLY)
      .toEqual(['recall', 'failed', 'internal_error: recall did not return the written record', '3.1']);
    await expect
      .poll(async () => (await stepRow(page, 'write')).slice(0, 2), EVENTUALLY)
      .toEqual(['write', 'passed']);
    await screenshot(page, 'smoke-test-failed-step');
    expect(sent).toBe(1);
    await page.unrouteAll();
    // The stubbed 503 is recorded (support/browser.ts fails on a 5xx); nothing else is.
    expect(errors.filter((e) => !/status of 503/.test(e))).toEqual([]);
    expect(errors.length).toBeGreaterThan(0);
    await context.close();
  });

  it('when a viewer signs in, then the overview has no smoke test (the route needs memory:write)', async () => {
    const tenant = await tenantWithSession();
    const viewer = await addUser(tenant.session, 'viewer');
    const { page, errors, context } = await openConsole(b.browser, t.stack.url);
    await logIn(page, viewer.email, viewer.password);

    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    await expect.poll(() => page.getByRole('heading', { name: /Health/ }).count(), EVENTUALLY).toBe(1);
    expect(await page.getByRole('heading', { name: 'Smoke test' }).count()).toBe(0);
    expect(await page.getByRole('region', { name: 'API key in use' }).count()).toBe(0);
    expect(errors).toEqual([]);
    await context.close();
  });
});
