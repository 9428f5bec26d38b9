import type { ToolName } from '@text-memory/mcp';
import { TOOL_PERMISSIONS } from '@text-memory/sdk/tools';

/**
 * The tools a key holding `permissions` may list and call: those whose permission it holds
 * (@text-memory/sdk/tools, the map the console describes them with too).
 */
export function toolsForKey(permissions: readonly string[]): ToolName[] {
  return (Object.keys(TOOL_PERMISSIONS) as ToolName[]).filter((tool) =>
    permissions.includes(TOOL_PERMISSIONS[tool]),
  );
}
