import type { Schemas } from '../types.js';

/**
 * The key permission each memory tool needs: the one its API calls need (the routes' own checks), so
 * a key is offered the tools it could call through the API and no other. The one map the gateway's
 * /mcp filters tools by and the console describes them with; @text-memory/mcp's tool registry fails
 * its type check while a tool is missing here or a name here has no tool. In the order tools are listed.
 */
export const TOOL_PERMISSIONS = {
  remember: 'memory:write', // POST /api/v1/memory/write
  use_template: 'memory:write', // POST /v1/memories
  recall: 'memory:recall', // POST /api/v1/memory/recall
  list_templates: 'memory:recall', // GET /v1/templates, /v1/marketplace/templates
  forget_memory: 'memory:delete', // DELETE /v1/memories/{memory_id}
  forget_namespace: 'memory:delete', // DELETE /api/v1/memory, GET /api/v1/memory/deletions/{id}
  status: 'telemetry:read', // GET /api/v1/infrastructure/status
} as const satisfies Record<string, Schemas['ApiKey']['permissions'][number]>;
