/**
 * What one upload may hold once read, whatever its size on the wire. The defaults are the template
 * service's settings (config.ts); docs/decisions/templates-and-imports.md says why these numbers.
 */
export type ImportLimits = {
  /** Bytes the parts of an XLSX workbook may expand to when unzipped. */
  maxUncompressedBytes: number;
  /** Characters in one cell (one value of a JSON row). */
  maxCellChars: number;
  /** Data rows in one file. */
  maxRows: number;
};

export const DEFAULT_IMPORT_LIMITS: ImportLimits = {
  maxUncompressedBytes: 128 * 1024 * 1024,
  maxCellChars: 1_000_000,
  maxRows: 100_000,
};
