import type { TextMemoryError } from '@text-memory/sdk';
import { errorLines, isTextMemoryError } from '@text-memory/sdk/tools';

/**
 * A tool call the service (or the SDK's check before sending) refused. Thrown, as LangChain tools fail:
 * an agent's tool node turns it into an error ToolMessage the model reads, and a direct `tool.invoke`
 * rejects with it. The message is the lines every adapter gives (tm-mcp's tool errors too): the SDK's
 * message, which never holds the API key, the fields at fault, then `code: …`, `status: …`,
 * `request_id: …` and `retryable: …`.
 */
export class TextMemoryToolError extends Error {
  override readonly name = 'TextMemoryToolError';
  readonly code: string;
  /** HTTP status; 0 when no answer came (or the input was refused before sending). */
  readonly status: number;
  readonly request_id: string | undefined;
  readonly retryable: boolean;

  constructor(error: TextMemoryError) {
    super(errorLines(error).join('\n'), { cause: error });
    this.code = error.code;
    this.status = error.status;
    this.request_id = error.request_id;
    this.retryable = error.retryable;
  }
}

/**
 * Run a tool's call to the service, its TextMemoryError thrown as a TextMemoryToolError; recognised by
 * name too, when the app's SDK is another copy than ours. Anything else is a bug and goes up as is.
 */
export async function callService<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw isTextMemoryError(error) ? new TextMemoryToolError(error) : error;
  }
}
