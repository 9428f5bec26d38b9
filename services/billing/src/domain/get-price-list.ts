import type { PriceListReply } from '@tm/contracts';
import { findPriceItems } from '../data-access/price-repository.js';
import { getPrisma } from '../data-access/prisma-client.js';

/**
 * The price list in force, for services that quote a price (billing.v1.prices.get). Read from the
 * ledger's own price items, so a quote and a charge come from the same rows.
 */
export async function getPriceList(pricingVersion: string, db = getPrisma()): Promise<PriceListReply> {
  const items = await findPriceItems(db, pricingVersion);
  return {
    pricing_version: pricingVersion,
    prices: items.map((i) => ({ operation: i.operation, unit_price_micro_usd: Number(i.unitPriceMicroUsd) })),
  };
}
