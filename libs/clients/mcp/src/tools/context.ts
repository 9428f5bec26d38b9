import type { TextMemory } from '@text-memory/sdk';

/** What every tool works with: the SDK client, and the namespace used when a call names none. */
export interface ToolContext {
  tm: TextMemory;
  defaultNamespace: string | undefined;
}
