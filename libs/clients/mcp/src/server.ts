import { createRequire } from 'node:module';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { TextMemory } from '@text-memory/sdk';
import { registerForgetNamespace } from './tools/forget-namespace.js';
import { registerListTemplates } from './tools/list-templates.js';
import { registerRecall } from './tools/recall.js';
import { registerRemember } from './tools/remember.js';
import { registerStatus } from './tools/status.js';
import { registerUseTemplate } from './tools/use-template.js';

// From src/ and from dist/ alike, the package's manifest is one folder up.
const { version } = createRequire(import.meta.url)('../package.json') as { version: string };

export interface ServerOptions {
  /** The namespace of calls that name none (TM_NAMESPACE). */
  defaultNamespace?: string | undefined;
}

/** The MCP server over one SDK client: every tool calls the service through it, nothing else. */
export function createServer(tm: TextMemory, options: ServerOptions = {}): McpServer {
  const server = new McpServer(
    { name: 'text-memory', version },
    {
      instructions:
        'Long-term text memory. `remember` stores a fact, `recall` finds stored facts by shared words and ' +
        'returns them as context; `list_templates` and `use_template` store structured data as text; ' +
        '`forget_namespace` deletes a whole namespace and needs confirm: true; `status` checks health.',
    },
  );
  const context = { tm, defaultNamespace: options.defaultNamespace };
  registerRemember(server, context);
  registerRecall(server, context);
  registerForgetNamespace(server, context);
  registerListTemplates(server, context);
  registerUseTemplate(server, context);
  registerStatus(server, context);
  return server;
}
