import { describe, expect, it } from 'vitest';
import { remoteMcpSnippet } from '../src/pages/connect/connect-snippets.js';

describe('the console: the remote MCP snippet', () => {
  it('when it says which tools a key sees, then it names each permission with the tools the gateway offers for it', () => {
    const snippet = remoteMcpSnippet('https://tm.example');

    expect(snippet.note).toBe(
      "Nothing to install: an MCP client reaches the deployment's /mcp endpoint by URL, with an API key as bearer token. The key's permissions decide which tools the agent sees (write: remember and use_template; recall: recall and list_templates; delete: forget_memory and forget_namespace; telemetry: status). Add this to the client's MCP configuration (Claude Code's .mcp.json, Cursor's .cursor/mcp.json).",
    );
  });
});
