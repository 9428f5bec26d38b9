import { TOOL_PERMISSIONS } from '@text-memory/sdk/tools';

/** One ready-to-copy way of calling the deployment. */
export interface Snippet {
  id: string;
  title: string;
  /** What it is and where it goes, in a sentence. */
  note: string;
  text: string;
}

/** Where the key goes when the console may not show one. */
export const KEY_PLACEHOLDER = 'tmk_…';

/** The remote MCP endpoint of a deployment at `baseUrl`: served by the gateway, reached by URL. */
export const mcpEndpoint = (baseUrl: string) => `${baseUrl}/mcp`;

/**
 * The tools each permission offers, as the gateway's /mcp offers them (the SDK's map):
 * "write: remember and use_template; …; telemetry: status". A permission is named by its word that
 * differs (`memory:write` → write), `telemetry:read` by its area.
 */
function toolsByPermission(): string {
  const byPermission = new Map<string, string[]>();
  for (const [tool, permission] of Object.entries(TOOL_PERMISSIONS)) {
    const [area, action] = permission.split(':');
    const name = area === 'memory' ? action : area;
    if (name) byPermission.set(name, [...(byPermission.get(name) ?? []), tool]);
  }
  return [...byPermission].map(([name, tools]) => `${name}: ${tools.join(' and ')}`).join('; ');
}

/**
 * An MCP client's entry for the remote endpoint: Streamable HTTP (`type: "http"`), the key as bearer
 * token. The shape Claude Code (.mcp.json) and Cursor (.cursor/mcp.json) read; other clients take the
 * same URL and header in their own settings.
 */
export function remoteMcpSnippet(baseUrl: string, apiKey: string = KEY_PLACEHOLDER): Snippet {
  return {
    id: 'remote-mcp',
    title: 'Remote MCP endpoint',
    note: `Nothing to install: an MCP client reaches the deployment's /mcp endpoint by URL, with an API key as bearer token. The key's permissions decide which tools the agent sees (${toolsByPermission()}). Add this to the client's MCP configuration (Claude Code's .mcp.json, Cursor's .cursor/mcp.json).`,
    text: JSON.stringify(
      {
        mcpServers: {
          'text-memory': {
            type: 'http',
            url: mcpEndpoint(baseUrl),
            headers: { Authorization: `Bearer ${apiKey}` },
          },
        },
      },
      null,
      2,
    ),
  };
}

/**
 * The snippets of "Connect an app" for a deployment at `baseUrl`. The code reads the key from
 * `TM_API_KEY`, as the CLI and the MCP server do; `apiKey` fills the line that sets it, and is given
 * only for the key this tab just created (any other stays the placeholder).
 */
export function connectSnippets(baseUrl: string, apiKey: string = KEY_PLACEHOLDER): Snippet[] {
  const text = JSON.stringify('The ferry to Porto leaves at noon');
  const question = JSON.stringify('when does the ferry leave?');
  return [
    {
      id: 'sdk',
      title: 'TypeScript SDK',
      note: 'Save as quickstart.mjs (an ES module, so it runs as it is in a new npm project) and run it with Node 20 or later. Install @text-memory/sdk first (until it is published, the tarball that npm run pack writes).',
      text: [
        `// TM_API_KEY=${apiKey} node quickstart.mjs`,
        "import { TextMemory } from '@text-memory/sdk';",
        '',
        `const tm = new TextMemory({ baseUrl: ${JSON.stringify(baseUrl)}, apiKey: process.env.TM_API_KEY });`,
        `await tm.memory.write({ namespace: 'notes', text: ${text} });`,
        `const { context } = await tm.memory.recall({ namespace: 'notes', query: ${question} });`,
        'console.log(context);',
      ].join('\n'),
    },
    {
      id: 'cli',
      title: 'CLI',
      note: 'In a shell, with the CLI installed: until it is published, npm install -g the SDK and CLI tarballs that npm run pack writes (once published: npx @text-memory/cli instead of tm).',
      text: [
        `export TM_BASE_URL=${baseUrl}`,
        `export TM_API_KEY=${apiKey}`,
        `tm write -n notes ${text}`,
        `tm recall -n notes ${question}`,
      ].join('\n'),
    },
    {
      id: 'mcp',
      title: 'MCP server for an agent',
      note: "The local stdio server, started by the agent's client: add this to its MCP configuration (Claude Desktop's claude_desktop_config.json, Cursor's .cursor/mcp.json). tm-mcp is on PATH once the SDK and MCP tarballs are installed with npm install -g (once published: npx -y @text-memory/mcp).",
      text: JSON.stringify(
        {
          mcpServers: {
            'text-memory': {
              command: 'tm-mcp',
              env: { TM_BASE_URL: baseUrl, TM_API_KEY: apiKey, TM_NAMESPACE: 'my-assistant' },
            },
          },
        },
        null,
        2,
      ),
    },
    remoteMcpSnippet(baseUrl, apiKey),
    {
      id: 'python',
      title: 'Python SDK',
      note: 'The Python SDK, text-memory (Python 3.9 or later, httpx its one dependency): install it (until it is on PyPI, the wheel that npm run pack writes), save this as app.py and run it.',
      text: [
        '# pip install dist/packages/text_memory-*.whl   (the wheel npm run pack writes; once on PyPI: pip install text-memory)',
        `# TM_API_KEY=${apiKey} python3 app.py`,
        'import os',
        '',
        'from text_memory import TextMemory',
        '',
        `with TextMemory(${JSON.stringify(baseUrl)}, api_key=os.environ["TM_API_KEY"]) as tm:`,
        `    tm.memory.write(namespace="notes", text=${text})`,
        `    r = tm.memory.recall(namespace="notes", query=${question})`,
        '    print(r.context)',
      ].join('\n'),
    },
  ];
}
