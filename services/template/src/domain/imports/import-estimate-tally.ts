import type { ImportEstimate } from '@tm/contracts';
import type { WritePrice } from '../../clients/billing-prices.js';
import {
  type ParsedFormat,
  placeholdersWithoutColumn,
  refuseUnmatchedPlaceholders,
  withoutColumnWarning,
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
  let missingValue = 0;
  // rows per column left empty where the format has no default, for the warnings
  const emptyColumns = new Map<string, number>();
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
      if (!rendered.ok && rendered.reason === 'missing_value') {
        missingValue += 1;
        for (const column of rendered.columns) emptyColumns.set(column, (emptyColumns.get(column) ?? 0) + 1);
      }
    },

    /** Throws an ImportError when a placeholder without a default matches no column of the file. */
    result(price: WritePrice): ImportEstimate {
      if (rows - malformed > 0) refuseUnmatchedPlaceholders(parsed, columns);
      const missing = rows - malformed > 0 ? placeholdersWithoutColumn(parsed, columns) : [];
      const billable = rows - malformed - emptyRender - missingValue - tooLong;
      const warnings = [
        ...missing.map((name) => withoutColumnWarning(parsed, name)),
        ...(emptyRender > 0 ? [`${emptyRender} row(s) would render empty and will not be written`] : []),
        ...[...emptyColumns].map(
          ([column, count]) =>
            `${count} row(s) leave column "${column}" empty and will not be written: {${column}} has no ` +
            `default; write {${column}|…} or {#${column}}…{/${column}} to write them`,
        ),
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
        rows_missing_value: missingValue,
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
