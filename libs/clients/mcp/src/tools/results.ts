import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { errorLines, isTextMemoryError } from '@text-memory/sdk/tools';
import type { z } from 'zod';

/**
 * A tool's answer: readable text for any client, the same facts as structuredContent for those that read
 * it. The facts go through the tool's output schema first: fields the service adds that the schema does
 * not list are left out, so what a client checks against the listed schema always passes (clients check
 * every result once they have listed the tools: the TypeScript and Python SDKs, the Inspector).
 * Facts the schema refuses (the service's answer changed shape) become a tool error, never a result that
 * contradicts the schema.
 */
export function success<S extends z.ZodObject>(
  output: S,
  text: string,
  structured: z.input<S>,
): CallToolResult {
  const parsed = output.safeParse(structured);
  if (!parsed.success)
    return toolError([
      'The service answered in a shape this tm-mcp does not know; upgrade @text-memory/mcp.',
      ...parsed.error.issues.map((issue) => `- ${issue.path.join('.')}: ${issue.message}`),
      'code: invalid_response',
    ]);
  return { content: [{ type: 'text', text }], structuredContent: parsed.data };
}

/**
 * A tool error as MCP specifies it: `isError: true` and the message as text content, with no
 * structuredContent. Structured content would have to match the tool's output schema, which describes
 * the tool's success (the clients validate it even on an error); so the machine-readable parts are
 * lines of the text, `code: …`, `status: …`, `request_id: …`, `retryable: …`, one per line.
 */
function toolError(lines: string[]): CallToolResult {
  return { content: [{ type: 'text', text: lines.join('\n') }], isError: true };
}

/** A refusal by the tool itself (nothing was sent to the service). */
export function refusal(text: string, code: string): CallToolResult {
  return toolError([text, `code: ${code}`]);
}

/**
 * The service's (or the SDK's) error as a tool error: the lines every adapter gives (message, fields,
 * code, status, request id, retryable), so an agent can correct its input or quote the id.
 */
export function failure(error: unknown): CallToolResult {
  if (!isTextMemoryError(error)) throw error;
  return toolError(errorLines(error));
}

/** Run a tool's call to the service, turning its failure into a tool error. */
export async function callService(run: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await run();
  } catch (error) {
    return failure(error);
  }
}

/**
 * A call that names no namespace where the server has no default. The remedy every transport has is
 * the argument; `hint` is another that only this server's user has (tm-mcp: TM_NAMESPACE).
 */
export const noNamespace = (hint: string | undefined) =>
  refusal(`No namespace: pass \`namespace\`${hint ? `, or ${hint}` : ''}.`, 'namespace_required');
