import type { TextMemory } from '@text-memory/sdk';
import { type RecallTool, recallTool } from './recall-tool.js';
import { type RememberTool, rememberTool } from './remember-tool.js';

export interface MemoryToolsOptions {
  /** An SDK client with an API key that may write and recall in `namespace`. */
  client: TextMemory;
  /** The one namespace both tools use, e.g. the current user's id; the model cannot name another. */
  namespace: string;
}

/**
 * tm-mcp's `remember` and `recall` as LangChain structured tools, bound to one namespace. A mutable
 * tuple, not `as const`: agents' `tools` options take a plain array.
 */
export function memoryTools({
  client,
  namespace,
}: MemoryToolsOptions): [remember: RememberTool, recall: RecallTool] {
  return [rememberTool(client, namespace), recallTool(client, namespace)];
}
