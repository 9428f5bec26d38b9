import { type FieldError, TextMemoryError } from './errors.js';
import { LIMITS } from './limits.js';

// Same paths and messages as the server's 400 `validation_failed` (libs/contracts/src/memory/memory.ts), so
// a caller handles a refusal the same way whether it came from here or from the service.

export function checkNamespace(namespace: unknown, path = 'namespace'): FieldError[] {
  if (typeof namespace !== 'string') return [{ path, message: 'is required' }];
  if (namespace.length === 0) return [{ path, message: 'namespace must not be empty' }];
  if (namespace.length > LIMITS.namespaceMaxLength)
    return [{ path, message: `namespace must be at most ${LIMITS.namespaceMaxLength} characters` }];
  if (!LIMITS.namespacePattern.test(namespace)) return [{ path, message: LIMITS.namespacePatternMessage }];
  return [];
}

export function checkText(text: unknown, path: string, max: number): FieldError[] {
  if (typeof text !== 'string') return [{ path, message: 'is required' }];
  if (text.length > max) return [{ path, message: `${path} must be at most ${max} characters` }];
  if (text.trim().length === 0) return [{ path, message: `${path} must not be empty` }];
  return [];
}

export function checkTopK(topK: unknown): FieldError[] {
  if (topK === undefined) return [];
  const path = 'top_k';
  if (typeof topK !== 'number' || !Number.isInteger(topK))
    return [{ path, message: 'top_k must be an integer' }];
  if (topK < LIMITS.topK.min) return [{ path, message: `top_k must be at least ${LIMITS.topK.min}` }];
  if (topK > LIMITS.topK.max) return [{ path, message: `top_k must be at most ${LIMITS.topK.max}` }];
  return [];
}

export function checkExplain(explain: unknown): FieldError[] {
  if (explain === undefined || typeof explain === 'boolean') return [];
  return [{ path: 'explain', message: 'explain must be true or false' }];
}

/** A batch's item count, as the server's `items` rule words it; the items themselves it checks alone. */
export function checkBatchItems(items: unknown): FieldError[] {
  const path = 'items';
  if (!Array.isArray(items)) return [{ path, message: 'items must be a list of items' }];
  if (items.length === 0) return [{ path, message: 'items must hold at least one item' }];
  if (items.length > LIMITS.writeBatchMaxItems)
    return [{ path, message: `items must hold at most ${LIMITS.writeBatchMaxItems} items` }];
  return [];
}

/** Throws the SDK's validation error when any check found a field at fault; sends nothing. */
export function assertValid(...results: FieldError[][]): void {
  const fields = results.flat();
  if (fields.length > 0) throw TextMemoryError.validation(fields);
}
