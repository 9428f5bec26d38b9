import { AppError, ErrorCode } from '@tm/contracts';
import { type ImportError, isImportError } from './parsing/import-errors.js';

const codes = {
  malformed_file: ErrorCode.MalformedFile,
  unsupported_type: ErrorCode.UnsupportedFileType,
  size_exceeded: ErrorCode.PayloadTooLarge,
  timeout: ErrorCode.UploadTimeout,
  format_string: ErrorCode.ValidationFailed,
} as const;

/** The building blocks know nothing of AppError; this is where their failure kinds get their codes. */
export function importErrorToAppError(error: ImportError): AppError {
  return new AppError(codes[error.kind], error.message, {
    cause: error,
    ...(error.kind === 'format_string' ? { fields: [{ path: 'format', message: error.message }] } : {}),
  });
}

/** Runs `work`, turning an ImportError into its AppError; anything else passes unchanged. */
export async function withImportErrors<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    throw isImportError(err) ? importErrorToAppError(err) : err;
  }
}
