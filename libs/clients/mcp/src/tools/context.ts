import type { TextMemory } from '@text-memory/sdk';

/** What every tool works with: the SDK client, and the namespace used when a call names none. */
export interface ToolContext {
  tm: TextMemory;
  defaultNamespace: string | undefined;
  /** The address `status` reports; default the SDK client's base URL (a remote server names its own). */
  serviceUrl?: string | undefined;
}
