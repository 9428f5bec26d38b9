import { TextMemoryError } from '../errors.js';

/**
 * By class, or by name when the app's SDK is another copy than the adapter's (a bundler or a nested
 * install can make two): the fields the tools read are the same in every 0.x SDK.
 */
export const isTextMemoryError = (error: unknown): error is TextMemoryError =>
  error instanceof TextMemoryError || (error instanceof Error && error.name === 'TextMemoryError');

/**
 * A refused tool call as text lines, the same on every surface: the SDK's message (never a credential),
 * the fields at fault, then `code: …`, `status: …`, `request_id: …` and `retryable: …`, one per line,
 * for an agent to correct its input or quote the id.
 */
export function errorLines(error: TextMemoryError): string[] {
  return [
    error.message,
    ...(error.details?.fields ?? []).map((field) => `- ${field.path}: ${field.message}`),
    `code: ${error.code}`,
    `status: ${error.status === 0 ? 'no answer from the service' : error.status}`,
    ...(error.request_id ? [`request_id: ${error.request_id}`] : []),
    `retryable: ${error.retryable}`,
  ];
}
