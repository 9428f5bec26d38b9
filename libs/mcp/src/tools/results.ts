import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { TextMemoryError } from '@text-memory/sdk';

/** A tool's answer: readable text for any client, the same facts as structuredContent for those that read it. */
export function success(text: string, structured: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text }], structuredContent: structured };
}

/** A refusal by the tool itself (nothing was sent to the service). */
export function refusal(text: string, code: string): CallToolResult {
  return {
    content: [{ type: 'text', text }],
    structuredContent: { error: { message: text, code } },
    isError: true,
  };
}

/**
 * The service's (or the SDK's) error as a tool error: message, code, status and request id, so an
 * agent can correct its input or quote the id. The SDK's messages never hold the API key.
 */
export function failure(error: unknown): CallToolResult {
  if (!(error instanceof TextMemoryError)) throw error;
  const fields = error.details?.fields ?? [];
  const lines = [
    error.message,
    ...fields.map((field) => `- ${field.path}: ${field.message}`),
    `code: ${error.code}`,
    `status: ${error.status === 0 ? 'no answer from the service' : error.status}`,
    ...(error.request_id ? [`request_id: ${error.request_id}`] : []),
    `retryable: ${error.retryable}`,
  ];
  return {
    content: [{ type: 'text', text: lines.join('\n') }],
    structuredContent: {
      error: {
        message: error.message,
        code: error.code,
        status: error.status,
        request_id: error.request_id ?? null,
        retryable: error.retryable,
        ...(fields.length > 0 ? { fields } : {}),
      },
    },
    isError: true,
  };
}

/** Run a tool's call to the service, turning its failure into a tool error. */
export async function callService(run: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await run();
  } catch (error) {
    return failure(error);
  }
}

export const noNamespace = () =>
  refusal(
    'No namespace: pass `namespace`, or start the server with TM_NAMESPACE set to a default namespace.',
    'namespace_required',
  );
