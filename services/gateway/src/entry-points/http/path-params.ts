import { AppError, ErrorCode, UUID_PATTERN } from '@tm/contracts';
import type { Request } from 'express';

/** A path segment no template, entry or memory can have is "not found", never a validation error. */
export function pathRef(value: unknown, what: string): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > 128) {
    throw new AppError(ErrorCode.NotFound, `No such ${what}`);
  }
  return value;
}

/** A resource id the service made (a UUID); anything that cannot be one is simply not found. */
export function uuidRef(value: unknown, what: string): string {
  if (typeof value !== 'string' || !UUID_PATTERN.test(value))
    throw new AppError(ErrorCode.NotFound, `No such ${what}`);
  return value.toLowerCase();
}

/** The `:id` of a control-plane route. */
export const idParam = (req: Request, what: string): string => uuidRef(req.params.id, what);
