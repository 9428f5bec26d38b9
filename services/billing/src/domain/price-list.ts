import { loadPriceItems } from '../data-access/price-repository.js';
import { type Db, getPrisma } from '../data-access/prisma-client.js';

/**
 * Unit prices by pricing version and operation, in micro-USD. Published versions never change, so
 * they are cached; a version not yet seen is looked up again (one may be published while running).
 */
export function createPriceList(db: () => Db = getPrisma) {
  let prices = new Map<string, bigint>();
  const key = (version: string, operation: string) => `${version}\u0000${operation}`;

  async function reload() {
    const items = await loadPriceItems(db());
    prices = new Map(items.map((i) => [key(i.version, i.operation), i.unitPriceMicroUsd]));
  }

  return {
    /** The unit price, or undefined when the version has no price for the operation. */
    async unitPrice(version: string, operation: string): Promise<bigint | undefined> {
      if (!prices.has(key(version, operation))) await reload();
      return prices.get(key(version, operation));
    },
  };
}
export type PriceList = ReturnType<typeof createPriceList>;
