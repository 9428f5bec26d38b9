import { LIMITS, type TextMemory } from '@text-memory/sdk';
import type { Tool } from 'ai';
import { RECALL_DESCRIPTION, type RecallInput, type RecallResult, recallTool } from './recall-tool.js';
import {
  REMEMBER_DESCRIPTION,
  type RememberInput,
  type RememberResult,
  rememberTool,
} from './remember-tool.js';

export interface MemoryToolsOptions {
  /** A `TextMemory` from `@text-memory/sdk` with an API key (`memory:write` and `memory:recall`). */
  client: TextMemory;
  /**
   * The namespace both tools use, e.g. the user's or the conversation's id. Chosen by the app, never
   * by the model: a prompt cannot steer the tools to another namespace.
   */
  namespace: string;
  /** How many memories `recall` returns when the model does not say (1–100; default 10). */
  topK?: number;
  /** Replace a tool's description (what the model reads to decide when and how to call it). */
  descriptions?: { remember?: string; recall?: string };
}

/** A type, not an interface, so it is a `ToolSet` as it is and spreads beside other tools. */
export type MemoryTools = {
  remember: Tool<RememberInput, RememberResult>;
  recall: Tool<RecallInput, RecallResult>;
};

/**
 * `remember` and `recall` as Vercel AI SDK tools over one namespace, for `generateText`,
 * `streamText` or an agent: `tools: memoryTools({ client, namespace })`.
 */
export function memoryTools({ client, namespace, topK, descriptions }: MemoryToolsOptions): MemoryTools {
  const k = topK ?? LIMITS.topK.default;
  // A programming error, not something a model can fix: refuse it here rather than on every call.
  if (!Number.isInteger(k) || k < LIMITS.topK.min || k > LIMITS.topK.max)
    throw new RangeError(`topK must be an integer from ${LIMITS.topK.min} to ${LIMITS.topK.max}`);
  return {
    remember: rememberTool(client, namespace, descriptions?.remember ?? REMEMBER_DESCRIPTION),
    recall: recallTool(client, namespace, k, descriptions?.recall ?? RECALL_DESCRIPTION),
  };
}
