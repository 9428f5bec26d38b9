import type { TextMemoryError } from '@text-memory/sdk';
import { errorLines, isTextMemoryError } from '@text-memory/sdk/tools';

/**
 * What a remember or recall call throws when the service (or the SDK's own check) refused it. The AI
 * SDK turns a thrown error into a `tool-error` part and sends it to the model as the tool's result
 * (`TextMemoryToolError: <message>`), so the message carries what a model or a person needs to act
 * on: the lines every adapter gives (tm-mcp's tool errors too), the service's message, the fields at
 * fault, then `code: …`, `status: …`, `request_id: …` and `retryable: …`. It is built from the SDK's
 * error, whose messages never hold a credential.
 */
export class TextMemoryToolError extends Error {
  override readonly name = 'TextMemoryToolError';
  /** `remember` or `recall`. */
  readonly tool: string;
  /** The service's `details.code`, or the SDK's (`validation_failed`, `connection_failed`, `timeout`…). */
  readonly code: string;
  /** HTTP status; 0 when no answer came (or the SDK refused the input before sending). */
  readonly status: number;
  readonly request_id: string | undefined;
  readonly retryable: boolean;

  constructor(tool: string, error: TextMemoryError) {
    super(errorLines(error).join('\n'), { cause: error });
    this.tool = tool;
    this.code = error.code;
    this.status = error.status;
    this.request_id = error.request_id;
    this.retryable = error.retryable;
  }
}

/**
 * Run one call to the service; its TextMemoryError (by class, or by name when the app's SDK is another
 * copy) becomes a TextMemoryToolError, anything else is a bug and goes up as is.
 */
export async function callService<T>(tool: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (isTextMemoryError(error)) throw new TextMemoryToolError(tool, error);
    throw error;
  }
}
