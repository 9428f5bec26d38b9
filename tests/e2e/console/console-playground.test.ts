import { describe, expect, it, vi } from 'vitest';
import { createConsoleKey, goTo, logIn, openConsole, screenshot, useBrowser } from '../support/browser.js';
import { EVENTUALLY } from '../support/eventually.js';
import { createTenant, uniqueNamespace } from '../support/factories.js';
import { useStack } from '../support/stack.js';

// A browser test walks several pages; on two shared cores one takes 10-40 s.
vi.setConfig({ testTimeout: 120_000 });

const t = useStack();
const b = useBrowser();

describe('the console playground explains what the lexical service does not compute', () => {
  it('when a newcomer writes and recalls, then surprise reads as not computed in plain words and the capability as a stand-in, never as bare codes', async () => {
    const tenant = await createTenant();
    const namespace = uniqueNamespace('console-words');
    const { page, errors, context } = await openConsole(b.browser, t.stack.url);
    await logIn(page, tenant.owner.email, tenant.owner.password);
    await goTo(page, 'Playground');
    await createConsoleKey(page);

    const write = page.getByRole('region', { name: 'Write', exact: true });
    await write.getByLabel('Namespace').fill(namespace);
    await write.getByLabel('Text').fill('Bo keeps the spare key under the blue flowerpot');
    await expect.poll(() => write.getByLabel(/Event id/).inputValue(), EVENTUALLY).toMatch(/^evt_/);
    await write.getByRole('button', { name: 'Write' }).click();
    const written = page.getByRole('region', { name: 'Write answer' });
    await expect.poll(() => written.textContent(), EVENTUALLY).toContain('retained');

    const recall = page.getByRole('region', { name: 'Recall', exact: true });
    await recall.getByLabel('Namespace').fill(namespace);
    await recall.getByLabel('Cue').fill('spare key flowerpot');
    await recall.getByRole('button', { name: 'Recall' }).click();
    const recalled = page.getByRole('region', { name: 'Recall answer' });
    await expect.poll(() => recalled.textContent(), EVENTUALLY).toContain('matched');
    await screenshot(page, 'playground-plain-words');

    const writeText = (await written.textContent()) ?? '';
    const surprise = written.locator('dt', { hasText: 'Surprise' }).locator('xpath=following-sibling::dd[1]');
    const capabilities = page
      .locator('dt', { hasText: 'Capability' })
      .locator('xpath=following-sibling::dd[1]');
    await expect
      .poll(() => surprise.textContent(), EVENTUALLY)
      .toBe(
        'Not computed: this service matches words and runs no model, so it has nothing to measure how unexpected a memory is',
      );
    expect(writeText).not.toContain('No activation, threshold, embedding size or confidence');
    // one in the write's answer, one in the recall's
    await expect
      .poll(() => capabilities.allTextContents(), EVENTUALLY)
      .toEqual([
        'Stand-in: answers follow the API contract, worked out by matching words; no trained model runs (contract_fixture)',
        'Stand-in: answers follow the API contract, worked out by matching words; no trained model runs (contract_fixture)',
      ]);
    expect(errors).toEqual([]);
    await context.close();
  });
});
