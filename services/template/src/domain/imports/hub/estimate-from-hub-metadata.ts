import type { ImportEstimate } from '@tm/contracts';
import type { WritePrice } from '../../../clients/billing-prices.js';
import {
  type ParsedFormat,
  placeholdersWithoutColumn,
  refuseUnmatchedPlaceholders,
  withoutColumnWarning,
} from '../format-string.js';

/**
 * A dataset import's estimate, from the hub's metadata alone (no row is read before the caller
 * starts the job): the split's row count, and placeholders matching none of its features (one
 * without a default is refused, as for a file). Rows that render empty or too long, or miss a value,
 * are known only as they are read; they fail then, as a file's would.
 */
export function estimateFromHubMetadata(
  parsed: ParsedFormat,
  split: { rows: number; columns: string[] },
  price: WritePrice,
): ImportEstimate {
  if (split.rows > 0) refuseUnmatchedPlaceholders(parsed, split.columns, 'the split');
  const missing = split.rows > 0 ? placeholdersWithoutColumn(parsed, new Set(split.columns)) : [];
  return {
    rows: split.rows,
    rows_malformed: 0,
    rows_empty_render: 0,
    rows_too_long: 0,
    rows_missing_value: 0,
    billable_rows: split.rows,
    placeholders_without_column: missing,
    warnings: [
      ...missing.map((name) => withoutColumnWarning(parsed, name)),
      'Counted from the hub’s metadata: rows that render empty or too long, or leave a placeholder without a default empty, are found, and fail, as they are read',
    ],
    pricing_version: price.pricingVersion,
    unit_price_usd: price.unitPriceMicroUsd / 1_000_000,
    estimated_cost_usd: (split.rows * price.unitPriceMicroUsd) / 1_000_000,
  };
}
