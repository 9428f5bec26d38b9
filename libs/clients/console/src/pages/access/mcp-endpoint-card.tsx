import { useId } from 'react';
import { CopyButton } from '../../components/copy-button.js';
import { mcpEndpoint, remoteMcpSnippet } from '../connect/connect-snippets.js';

/**
 * Where an agent's MCP client reaches this deployment, beside the keys it authenticates with: the
 * endpoint's URL and a client configuration to copy. It holds `apiKey` only while the page shows that
 * secret (a key just created or rotated); otherwise the placeholder where a key goes.
 */
export function McpEndpointCard({ apiKey }: { apiKey?: string | undefined }) {
  const id = useId();
  const baseUrl = window.location.origin;
  const endpoint = mcpEndpoint(baseUrl);
  const snippet = remoteMcpSnippet(baseUrl, apiKey);
  return (
    <section className="card snippet" aria-labelledby={id}>
      <div className="row snippet-head">
        <h2 id={id}>Remote MCP endpoint</h2>
        <CopyButton value={snippet.text} label="Copy the MCP client configuration" />
      </div>
      <div className="row">
        <code>{endpoint}</code>
        <CopyButton value={endpoint} label="Copy the MCP endpoint URL" />
      </div>
      <p className="hint">{snippet.note}</p>
      <pre className="snippet-text">
        <code>{snippet.text}</code>
      </pre>
    </section>
  );
}
