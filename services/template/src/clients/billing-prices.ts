import { type NatsConnection, requestReply } from '@tm/bus';
import { AppError, ErrorCode, PriceListMessage, PriceListReply, Subjects } from '@tm/contracts';

/**
 * A price list's version and memory.write's unit price in it. Declared here, where it is read: the
 * domain depends on this client for it as on every other caller, and nothing here points back up.
 */
export interface WritePrice {
  pricingVersion: string;
  /** memory.write's unit price in that version, in micro-USD (integers, as billing keeps prices). */
  unitPriceMicroUsd: number;
}

/** memory.write's price in billing's list in force: what an import estimate quotes. */
export type ReadWritePrice = () => Promise<WritePrice>;

/**
 * Asks billing (billing.v1.prices.get, queue group `billing`) on every estimate: billing owns prices,
 * and one request per upload costs nothing next to reading the file. When billing does not answer in
 * `timeoutMs` (or is down, or its own storage is), the estimate cannot be priced: a retryable 503, and
 * the upload is refused like any other (docs/decisions/templates-and-imports.md, "Estimate").
 */
export function createWritePriceReader(nc: NatsConnection, options: { timeoutMs: number }): ReadWritePrice {
  return async () => {
    let list: PriceListReply;
    try {
      list = await requestReply(
        nc,
        Subjects.billing.getPrices,
        { input: PriceListMessage, output: PriceListReply },
        {},
        { timeoutMs: options.timeoutMs, service: 'billing' },
      );
    } catch (err) {
      if (!(err instanceof AppError) || !err.retryable) throw err;
      // A 504 would tell the caller this service timed out; it is billing that did not answer.
      throw new AppError(
        ErrorCode.ServiceUnavailable,
        'The import estimate needs the prices of the billing service, which did not answer; retry shortly',
        { retryAfter: 1, cause: err },
      );
    }
    const write = list.prices.find((p) => p.operation === 'memory.write');
    if (!write) {
      throw new AppError(
        ErrorCode.Internal,
        `Billing's price list ${list.pricing_version} has no memory.write price`,
      );
    }
    return { pricingVersion: list.pricing_version, unitPriceMicroUsd: write.unit_price_micro_usd };
  };
}
