import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { TOOL_PERMISSIONS } from '@text-memory/sdk/tools';
import type { ToolContext } from './context.js';
import { registerForgetMemory } from './forget-memory.js';
import { registerForgetNamespace } from './forget-namespace.js';
import { registerListTemplates } from './list-templates.js';
import { registerRecall } from './recall.js';
import { registerRemember } from './remember.js';
import { registerStatus } from './status.js';
import { registerUseTemplate } from './use-template.js';

/**
 * Every tool, by name: the one definition both transports serve (tm-mcp on stdio, the service's
 * remote endpoint at /mcp), so names, arguments and answers cannot differ between them. Exactly the
 * tools that have a permission in @text-memory/sdk/tools (TOOL_PERMISSIONS): one missing there, or a
 * name there without a tool, fails this file's type check.
 */
const REGISTRARS = {
  remember: registerRemember,
  recall: registerRecall,
  forget_memory: registerForgetMemory,
  forget_namespace: registerForgetNamespace,
  list_templates: registerListTemplates,
  use_template: registerUseTemplate,
  status: registerStatus,
} satisfies Record<keyof typeof TOOL_PERMISSIONS, (server: McpServer, context: ToolContext) => void>;

export type ToolName = keyof typeof REGISTRARS;

/** The tools' names, in the order they are listed. */
export const TOOL_NAMES = Object.keys(REGISTRARS) as readonly ToolName[];

/** Register `names` (default: every tool) on `server`, each calling the service through `context.tm`. */
export function registerTools(
  server: McpServer,
  context: ToolContext,
  names: readonly ToolName[] = TOOL_NAMES,
): void {
  for (const name of TOOL_NAMES) if (names.includes(name)) REGISTRARS[name](server, context);
}
