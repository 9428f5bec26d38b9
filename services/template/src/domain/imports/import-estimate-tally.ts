import type { ImportEstimate } from '@tm/contracts';
import type { WritePrice } from '../../clients/billing-prices.js';
import {
  type ParsedFormat,
  placeholdersWithoutColumn,
  refuseUnmatchedPlaceholders,
} from './format-string.js';
import type { ImportRecord } from './parsing/import-row.js';
import { renderImportRow } from './render-import-row.js';

/**
 * Counts an upload's rows as they are read, for the estimate: every row is rendered once here, so
 * the warnings and the cost are those of the rows that will really be written.
 */
export function createImportEstimateTally(parsed: ParsedFormat) {
  let rows = 0;
  let malformed = 0;
  let emptyRender = 0;
  let tooLong = 0;
  const columns = new Set<string>();

  return {
    add(record: ImportRecord): void {
      rows += 1;
      if (!record.ok) {
        malformed += 1;
        return;
      }
      for (const column of Object.keys(record.values)) columns.add(column);
      const rendered = renderImportRow(parsed, record.values);
      if (!rendered.ok && rendered.reason === 'empty_render') emptyRender += 1;
      if (!rendered.ok && rendered.reason === 'text_too_long') tooLong += 1;
    },

    /** Throws an ImportError when a placeholder without a default matches no column of the file. */
    result(price: WritePrice): ImportEstimate {
      if (rows - malformed > 0) refuseUnmatchedPlaceholders(parsed, columns);
      const missing = rows - malformed > 0 ? placeholdersWithoutColumn(parsed, columns) : [];
      const billable = rows - malformed - emptyRender - tooLong;
      const warnings = [
        ...missing.map(
          (name) => `Placeholder {${name}} matches no column: it renders its default, or nothing`,
        ),
        ...(emptyRender > 0 ? [`${emptyRender} row(s) would render empty and will not be written`] : []),
        ...(tooLong > 0
          ? [`${tooLong} row(s) would render longer than a memory holds and will not be written`]
          : []),
        ...(malformed > 0 ? [`${malformed} row(s) could not be read and will not be written`] : []),
      ];
      return {
        rows,
        rows_malformed: malformed,
        rows_empty_render: emptyRender,
        rows_too_long: tooLong,
        billable_rows: billable,
        placeholders_without_column: missing,
        warnings,
        pricing_version: price.pricingVersion,
        unit_price_usd: price.unitPriceMicroUsd / 1_000_000,
        // in micro-USD first, so the product is exact before it becomes dollars
        estimated_cost_usd: (billable * price.unitPriceMicroUsd) / 1_000_000,
      };
    },
  };
}
