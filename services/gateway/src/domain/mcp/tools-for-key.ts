import type { ToolName } from '@text-memory/mcp';
import type { KeyPermission } from '@tm/contracts';

/**
 * The permission each MCP tool's HTTP calls need (the routes' own checks, authenticate.ts): a key is
 * offered the tools it could call through the API and no other. A tool added to @text-memory/mcp
 * fails this file's type check until it is given its permission here.
 */
const TOOL_PERMISSIONS: Record<ToolName, KeyPermission> = {
  remember: 'memory:write', // POST /api/v1/memory/write
  use_template: 'memory:write', // POST /v1/memories
  recall: 'memory:recall', // POST /api/v1/memory/recall
  list_templates: 'memory:recall', // GET /v1/templates, /v1/marketplace/templates
  forget_memory: 'memory:delete', // DELETE /v1/memories/{memory_id}
  forget_namespace: 'memory:delete', // DELETE /api/v1/memory, GET /api/v1/memory/deletions/{id}
  status: 'telemetry:read', // GET /api/v1/infrastructure/status
};

/** The tools a key holding `permissions` may list and call. */
export function toolsForKey(permissions: readonly string[]): ToolName[] {
  return (Object.keys(TOOL_PERMISSIONS) as ToolName[]).filter((tool) =>
    permissions.includes(TOOL_PERMISSIONS[tool]),
  );
}
