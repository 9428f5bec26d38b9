import { randomUUID } from 'node:crypto';
import { BillingConfigSchema, startBillingService } from '@tm/billing';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.js';
import { createTenant, uniqueKey, uniqueNamespace, writeBody } from '../support/factories.js';
import { importSteps } from '../support/imports.js';
import { testLogger, useStack } from '../support/stack.js';

// Billing owns prices: an import estimate quotes what billing.v1.prices.get answers, nothing kept aside.
const t = useStack();

const CSV = Buffer.from('name\nAda\nGrace\nEdsger\n');

const { upload: uploadFile } = importSteps(t);
const upload = (key: string, namespace: string) =>
  uploadFile(key, { format: 'Met {name}', namespace }, CSV, 'people.csv');

/** What billing charged for one write: the usage route, read once the ledger has the write. */
async function chargedForOneWrite(apiKey: string) {
  await t.api.write(apiKey, writeBody(uniqueNamespace(), 'one write, one unit'), uniqueKey());
  await t.stack.memory.flushOutbox();
  const res = await eventually(async () => {
    const res = await t.api.get('/api/v1/infrastructure/usage', { key: apiKey });
    if (res.status === 200)
      expect(res.body.request_volume, 'writes billing recorded').toBeGreaterThanOrEqual(1);
    return res; // another status is no state to wait out: asserted below
  });
  expect(res.status).toBe(200);
  return {
    pricingVersion: res.body.pricing_version as string,
    unitPriceUsd: res.body.operations[0].recorded_charge_usd as number,
  };
}

/** A new price list in billing's own tables (published versions are never edited; this one is new). */
async function publishPriceList(version: string, writeMicroUsd: number) {
  const client = new pg.Client({ connectionString: t.stack.env.billingDbUrl });
  await client.connect();
  try {
    await client.query('INSERT INTO pricing_version (version, effective_from) VALUES ($1, now())', [version]);
    await client.query(
      `INSERT INTO price_item (version, operation, unit_price_micro_usd)
       VALUES ($1, 'memory.write', $2), ($1, 'memory.recall', 1)`,
      [version, writeMicroUsd],
    );
  } finally {
    await client.end();
  }
}

describe('POST /v1/imports: the estimate’s price', () => {
  it('when an upload is estimated, then it quotes the price list in force and the unit price billing charges a write', async () => {
    const tenant = await createTenant();
    const charged = await chargedForOneWrite(tenant.api_key);

    const res = await upload(tenant.api_key, uniqueNamespace('import-price'));

    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.estimate).toMatchObject({
      billable_rows: 3,
      pricing_version: charged.pricingVersion,
      unit_price_usd: charged.unitPriceUsd,
      // in micro-USD first, as prices are kept, so the product is exact
      estimated_cost_usd: (3 * Math.round(charged.unitPriceUsd * 1_000_000)) / 1_000_000,
    });
  });

  it('when billing puts another price list in force, then the next estimate quotes it', async () => {
    const tenant = await createTenant();
    const version = `test-${randomUUID()}`;
    await publishPriceList(version, 250);
    const { env } = t.stack;
    await t.stack.stopBilling();
    const billing = await startBillingService(
      BillingConfigSchema.parse({
        BILLING_DATABASE_URL: env.billingDbUrl,
        NATS_URL: env.natsUrl,
        PRICING_VERSION: version,
      }),
      testLogger(),
    );
    try {
      const res = await upload(tenant.api_key, uniqueNamespace('import-price'));

      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(res.body.estimate).toMatchObject({
        billable_rows: 3,
        pricing_version: version,
        unit_price_usd: 0.00025,
        estimated_cost_usd: 0.00075,
      });
    } finally {
      await billing.stop();
      await t.stack.startBilling();
    }
  });

  it('when billing does not answer, then the upload is a retryable 503 and the same upload succeeds once billing is back', async () => {
    const tenant = await createTenant();
    const namespace = uniqueNamespace('import-price');
    await t.stack.stopBilling();
    let during: Awaited<ReturnType<typeof upload>>;
    try {
      during = await upload(tenant.api_key, namespace);
    } finally {
      await t.stack.startBilling();
    }

    expect(during).toMatchObject({
      status: 503,
      body: { retryable: true, details: { code: 'service_unavailable' } },
    });
    expect(Number(during.headers['retry-after'])).toBeGreaterThan(0);
    const after = await upload(tenant.api_key, namespace);
    expect(after.status, JSON.stringify(after.body)).toBe(201);
    expect(after.body.estimate).toMatchObject({ billable_rows: 3, pricing_version: 'sandbox-2026-11' });
  });
});
