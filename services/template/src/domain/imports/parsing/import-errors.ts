/**
 * Why an upload or a format string was refused. Plain TypeScript on purpose: this layer knows nothing
 * of HTTP or of the project's AppError; the service maps `kind` to an error code and status later.
 * The kinds follow the spec's document-upload failure kinds; row-level failures are not errors here
 * but `ImportRowError` records, so that one bad row never stops the rest of a file.
 */
export type ImportErrorKind =
  | 'malformed_file'
  | 'unsupported_type'
  | 'size_exceeded'
  | 'timeout'
  | 'format_string';

export type ImportErrorDetails = {
  /** 0-based character offset: in the format string, or in the decoded text of a JSON document. */
  position?: number;
  /** 1-based line of a text file (CSV, JSON). */
  line?: number;
  /** 1-based row as a person sees it in the file (see import-row.ts). */
  row?: number;
  cause?: unknown;
};

export class ImportError extends Error {
  override readonly name = 'ImportError';
  readonly kind: ImportErrorKind;
  readonly position?: number;
  readonly line?: number;
  readonly row?: number;

  constructor(kind: ImportErrorKind, message: string, details: ImportErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.kind = kind;
    if (details.position !== undefined) this.position = details.position;
    if (details.line !== undefined) this.line = details.line;
    if (details.row !== undefined) this.row = details.row;
  }
}

export function isImportError(error: unknown): error is ImportError {
  return error instanceof ImportError;
}

/**
 * Readers wrap whatever a parsing library throws as a malformed file, but an error that already
 * says why (a size limit or timeout raised upstream in the same pipeline) must pass through as it is.
 * A library's own words reach the caller only when they are a parser's diagnosis of the file
 * (csv-parse's coded errors, JSON syntax errors); anything else ("Invalid string length", "Cannot
 * read properties of undefined") describes our process, not the upload, so it stays in the cause.
 */
export function asMalformedFile(error: unknown, prefix: string): ImportError {
  if (isImportError(error)) return error;
  const diagnosis = isFileDiagnosis(error) ? `: ${error.message}` : '';
  return new ImportError('malformed_file', `${prefix}${diagnosis}`, { cause: error });
}

function isFileDiagnosis(error: unknown): error is Error {
  if (error instanceof SyntaxError) return true;
  const code = (error as { code?: unknown } | null)?.code;
  return error instanceof Error && typeof code === 'string' && code.startsWith('CSV_');
}
