import { describe, expect, it } from 'vitest';
import { parseFormat } from '../src/domain/imports/format-string.js';
import { createImportEstimateTally } from '../src/domain/imports/import-estimate-tally.js';
import { renderImportRow } from '../src/domain/imports/render-import-row.js';

const price = { pricingVersion: 'sandbox-2026-11', unitPriceMicroUsd: 100 };

describe('renderImportRow', () => {
  it('when the row fills the format, then its text; blank → empty_render; over the limit → text_too_long', () => {
    const parsed = parseFormat('{title}{note| (no note)}');

    expect(renderImportRow(parsed, { title: 'A', note: '' })).toEqual({ ok: true, text: 'A (no note)' });
    expect(renderImportRow(parseFormat('{title} {tag|}'), { title: '  ' })).toMatchObject({
      ok: false,
      reason: 'empty_render',
    });
    expect(renderImportRow(parsed, { title: 'x'.repeat(40_000) })).toMatchObject({
      ok: false,
      reason: 'text_too_long',
    });
  });
});

describe('renderImportRow and empty cells', () => {
  it('when a placeholder without a default finds its cell empty, then missing_value names the column, never a cell', () => {
    const parsed = parseFormat('{name} lives in {city}');

    expect(renderImportRow(parsed, { name: 'Bo', city: '' })).toEqual({
      ok: false,
      reason: 'missing_value',
      columns: ['city'],
      message:
        'Column "city" is empty in this row and the format gives no default; fill the cell, or write {city|…} or {#city}…{/city} to allow it empty',
    });
  });

  it('when the empty column has a default or a section, then the row is written without it', () => {
    expect(renderImportRow(parseFormat('{name} lives in {city|}'), { name: 'Bo', city: null })).toEqual({
      ok: true,
      text: 'Bo lives in ',
    });
    expect(
      renderImportRow(parseFormat('{name}{#city} lives in {city}{/city}.'), { name: 'Bo', city: ' ' }),
    ).toEqual({ ok: true, text: 'Bo.' });
  });
});

describe('createImportEstimateTally', () => {
  it('when rows leave a placeholder without a default empty, then they are counted, not priced, and a warning names each column with its rows', () => {
    const tally = createImportEstimateTally(parseFormat('{name} lives in {city}, {country}'));

    tally.add({ ok: true, row: 2, values: { name: 'Ana', city: 'Oslo', country: 'Norway' } });
    tally.add({ ok: true, row: 3, values: { name: 'Bo', city: '', country: 'Sweden' } });
    tally.add({ ok: true, row: 4, values: { name: 'Cy', city: '', country: '' } });

    expect(tally.result(price)).toMatchObject({
      rows: 3,
      rows_missing_value: 2,
      billable_rows: 1,
      warnings: [
        '2 row(s) leave column "city" empty and will not be written: {city} has no default; write {city|…} or {#city}…{/city} to write them',
        '1 row(s) leave column "country" empty and will not be written: {country} has no default; write {country|…} or {#country}…{/country} to write them',
      ],
      estimated_cost_usd: 0.0001,
    });
    expect(JSON.stringify(tally.result(price))).not.toMatch(/Bo|Cy|Sweden/);
  });

  it('when rows are good, empty, overlong and unreadable, then each is counted once and only good rows are priced', () => {
    const tally = createImportEstimateTally(parseFormat('{title} {region|}'));

    tally.add({ ok: true, row: 2, values: { title: 'one' } });
    tally.add({ ok: true, row: 3, values: { title: '' } });
    tally.add({ ok: true, row: 4, values: { title: 'x'.repeat(40_000) } });
    tally.add({ ok: false, row: 5, error: 'wrong number of values' });
    tally.add({ ok: true, row: 6, values: { title: 'two' } });

    expect(tally.result(price)).toEqual({
      rows: 5,
      rows_malformed: 1,
      rows_empty_render: 1,
      rows_too_long: 1,
      rows_missing_value: 0,
      billable_rows: 2,
      placeholders_without_column: ['region'],
      warnings: [
        'Placeholder {region} matches no column: it renders its default, or nothing',
        '1 row(s) would render empty and will not be written',
        '1 row(s) would render longer than a memory holds and will not be written',
        '1 row(s) could not be read and will not be written',
      ],
      pricing_version: 'sandbox-2026-11',
      unit_price_usd: 0.0001,
      estimated_cost_usd: 0.0002,
    });
  });

  it('when a placeholder without a default matches no column, then the estimate is refused naming it and the columns', () => {
    const tally = createImportEstimateTally(parseFormat('{title} {nmae} {region|}'));
    tally.add({ ok: true, row: 2, values: { title: 'one', name: 'Ana' } });

    expect(() => tally.result(price)).toThrow(
      expect.objectContaining({
        kind: 'format_string',
        message:
          'Placeholder {nmae} matches no column of the file (columns: title, name); name a column, or give a default: {nmae|…}',
      }),
    );
  });

  it('when a file has hundreds of columns and two placeholders match none, then both are named and the column list is bounded', () => {
    const tally = createImportEstimateTally(parseFormat('{a} {b}'));
    tally.add({
      ok: true,
      row: 2,
      values: Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`c${i}`, i])),
    });

    expect(() => tally.result(price)).toThrow(
      /^Placeholders \{a\}, \{b\} match no column of the file \(columns: c0, c1, .*, c49, and 250 more\); /,
    );
  });

  it('when there are no rows, then nothing is priced and no placeholder is reported missing', () => {
    expect(createImportEstimateTally(parseFormat('{a}')).result(price)).toMatchObject({
      rows: 0,
      billable_rows: 0,
      placeholders_without_column: [],
      estimated_cost_usd: 0,
    });
  });
});
