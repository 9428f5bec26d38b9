import { createRequire } from 'node:module';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { TextMemory } from '@text-memory/sdk';
import { registerTools, TOOL_NAMES, type ToolName } from './tools/registry.js';

export type { ToolContext } from './tools/context.js';
export { registerTools, TOOL_NAMES, type ToolName } from './tools/registry.js';

// From src/ and from dist/ alike, the package's manifest is one folder up.
const { version } = createRequire(import.meta.url)('../package.json') as { version: string };

export interface ServerOptions {
  /** The namespace of calls that name none (TM_NAMESPACE). */
  defaultNamespace?: string | undefined;
  /** Added to the refusal of a call without namespace when there is no default (see ToolContext). */
  namespaceHint?: string | undefined;
  /** The tools to offer (default: all). A remote server offers those its caller's key may use. */
  tools?: readonly ToolName[] | undefined;
  /** The address `status` reports (default: the SDK client's base URL). */
  serviceUrl?: string | undefined;
}

/**
 * The MCP server over one SDK client: every tool calls the service through it, nothing else. The
 * transport is the caller's: tm-mcp connects it to stdio, the service to its Streamable HTTP endpoint.
 */
export function createServer(tm: TextMemory, options: ServerOptions = {}): McpServer {
  const server = new McpServer(
    { name: 'text-memory', version },
    {
      instructions:
        'Long-term text memory. `remember` stores a fact, `recall` finds stored facts by shared words and ' +
        'returns them as context; `list_templates` and `use_template` store structured data as text; ' +
        '`forget_memory` deletes one memory by its memory_id and `forget_namespace` a whole namespace, both ' +
        'only with confirm: true; `status` checks health.',
    },
  );
  registerTools(
    server,
    {
      tm,
      defaultNamespace: options.defaultNamespace,
      namespaceHint: options.namespaceHint,
      serviceUrl: options.serviceUrl,
    },
    options.tools ?? TOOL_NAMES,
  );
  return server;
}
