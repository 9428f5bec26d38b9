import { CopyButton } from '../../components/copy-button.js';
import { mcpEndpoint, remoteMcpSnippet } from '../connect/connect-snippets.js';
import { SnippetCard } from '../connect/snippet-card.js';

/**
 * Where an agent's MCP client reaches this deployment, beside the keys it authenticates with: the
 * endpoint's URL and a client configuration to copy. It holds `apiKey` only while the page shows that
 * secret (a key just created or rotated); otherwise the placeholder where a key goes.
 */
export function McpEndpointCard({ apiKey }: { apiKey?: string | undefined }) {
  const baseUrl = window.location.origin;
  const endpoint = mcpEndpoint(baseUrl);
  const snippet = remoteMcpSnippet(baseUrl, apiKey);
  return (
    <SnippetCard snippet={snippet} title="Remote MCP endpoint" copyLabel="Copy the MCP client configuration">
      <div className="row">
        <code>{endpoint}</code>
        <CopyButton value={endpoint} label="Copy the MCP endpoint URL" />
      </div>
    </SnippetCard>
  );
}
