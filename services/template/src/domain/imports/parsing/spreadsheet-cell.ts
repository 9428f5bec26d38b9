/**
 * Cell values of both spreadsheet readers, made plain: text, number, boolean or null. Dates become
 * ISO 8601 text because a memory is text and ISO is the one spelling that reads the same everywhere;
 * spreadsheet dates carry no time zone, so they are read as UTC, and a date without a time of day is
 * written as just the date (`2024-03-01`) rather than as midnight UTC.
 */
export function dateToIsoText(date: Date): string | null {
  if (Number.isNaN(date.getTime())) return null;
  const iso = date.toISOString();
  return iso.endsWith('T00:00:00.000Z') ? iso.slice(0, 10) : iso;
}

/** Excel stores dates as days since 1899-12-30 (or since 1904-01-01 in the 1904 date system). */
export function excelSerialToDate(serial: number, date1904 = false): Date {
  return new Date(Math.round((serial - 25569 + (date1904 ? 1462 : 0)) * 86_400_000));
}

/** Whether a number format shows a date or time; quoted text and [colour]/[locale] sections do not count. */
export function isDateFormat(format: string | undefined): boolean {
  if (!format) return false;
  const bare = format.replace(/\[[^\]]*]/g, '').replace(/"[^"]*"/g, '');
  return /[ymdhsb]/i.test(bare.replace(/General/gi, ''));
}
