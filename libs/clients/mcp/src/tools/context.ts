import type { TextMemory } from '@text-memory/sdk';
import type { EventTimes } from '@text-memory/sdk/tools';

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
  /**
   * The time `remember` first sent for each event_id, so a retry without `occurred_at` is Replayed, not
   * a conflict; default one per registerTools call (so one per server), as LangChain's and the AI SDK's
   * tool sets keep one each.
   */
  eventTimes?: EventTimes | undefined;
}

/** What each tool is registered with: the context, its EventTimes made if it had none. */
export type ToolSetup = ToolContext & { eventTimes: EventTimes };
