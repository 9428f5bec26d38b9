import type { TextMemory } from '@text-memory/sdk';
import { EventTimes } from '@text-memory/sdk/tools';
import { type RecallTool, recallTool } from './recall-tool.js';
import { type RememberTool, rememberTool } from './remember-tool.js';

export interface MemoryToolsOptions {
  /** An SDK client with an API key that may write and recall in `namespace`. */
  client: TextMemory;
  /** The one namespace both tools use, e.g. the current user's id; the model cannot name another. */
  namespace: string;
}

/**
 * tm-mcp's `remember` and `recall` as LangChain structured tools, bound to one namespace. The set keeps
 * the event time it first sent for each `event_id`, so a remember retried without `occurred_at` is
 * Replayed, as in tm-mcp and the AI SDK's tools. A mutable tuple, not `as const`: agents' `tools`
 * options take a plain array.
 */
export function memoryTools({
  client,
  namespace,
}: MemoryToolsOptions): [remember: RememberTool, recall: RecallTool] {
  return [rememberTool(client, namespace, new EventTimes()), recallTool(client, namespace)];
}
