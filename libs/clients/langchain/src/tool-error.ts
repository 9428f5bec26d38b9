import { TextMemoryError } from '@text-memory/sdk';

/**
 * A tool call the service (or the SDK's check before sending) refused. Thrown, as LangChain tools fail:
 * an agent's tool node turns it into an error ToolMessage the model reads, and a direct `tool.invoke`
 * rejects with it. The message ends with `code: …`, `status: …`, `request_id: …` and `retryable: …`
 * lines, the same facts as tm-mcp's tool errors; it is built from the SDK's message, which never holds
 * the API key.
 */
export class TextMemoryToolError extends Error {
  override readonly name = 'TextMemoryToolError';
  readonly code: string;
  /** HTTP status; 0 when no answer came (or the input was refused before sending). */
  readonly status: number;
  readonly request_id: string | undefined;
  readonly retryable: boolean;

  constructor(error: TextMemoryError) {
    super(
      [
        error.message,
        ...(error.details?.fields ?? []).map((field) => `- ${field.path}: ${field.message}`),
        `code: ${error.code}`,
        `status: ${error.status === 0 ? 'no answer from the service' : error.status}`,
        ...(error.request_id ? [`request_id: ${error.request_id}`] : []),
        `retryable: ${error.retryable}`,
      ].join('\n'),
      { cause: error },
    );
    this.code = error.code;
    this.status = error.status;
    this.request_id = error.request_id;
    this.retryable = error.retryable;
  }
}

/** Run a tool's call to the service, its TextMemoryError thrown as a TextMemoryToolError. */
export async function callService<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw error instanceof TextMemoryError ? new TextMemoryToolError(error) : error;
  }
}
