import type { TextMemory } from '@text-memory/sdk';

/** What every tool works with: the SDK client, and the namespace used when a call names none. */
export interface ToolContext {
  tm: TextMemory;
  defaultNamespace: string | undefined;
  /**
   * How this server's user could set a default namespace, added to the refusal of a call that names
   * none (tm-mcp: its TM_NAMESPACE variable); none by default, as over /mcp, where the caller has only
   * the `namespace` argument.
   */
  namespaceHint?: string | undefined;
  /** The address `status` reports; default the SDK client's base URL (a remote server names its own). */
  serviceUrl?: string | undefined;
}
