import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createServer } from '@text-memory/mcp';
import { TextMemory } from '@text-memory/sdk';
import { ErrorCode } from '@tm/contracts';
import { formatTraceparent } from '@tm/kit';
import { type Request, type RequestHandler, Router } from 'express';
import { Agent, fetch as undiciFetch } from 'undici';
import { toolsForKey } from '../../../domain/mcp/tools-for-key.js';
import { type AuthDeps, mcpCallerOf, PREPAID_HEADER, requireMcpKey } from '../middleware/authenticate.js';
import { answerPreflight, checkOrigin, type McpAddress } from '../middleware/check-origin.js';
import { jsonBody } from '../middleware/json-body.js';
import { recordRefusalsOnly } from '../middleware/record-requests.js';
import { loopbackBaseUrl, ownOrigin } from '../own-address.js';

export const MCP_PATH = '/mcp';
/** RFC 9728: the metadata of the resource at /mcp is at this path with /mcp appended. */
export const PROTECTED_RESOURCE_PATH = '/.well-known/oauth-protected-resource';

/**
 * Connections the tools' loopback API requests may hold at once, per instance; more wait their turn
 * in the pool. Without a bound each concurrent tool call opened its own connection to this server,
 * so /mcp traffic alone could fill GATEWAY_MAX_CONNECTIONS (1,000) and have new connections, its
 * own loopback ones included, closed as they were accepted. A loopback request takes about a
 * millisecond plus its downstream call, so 16 carry hundreds of tool calls a second.
 */
const LOOPBACK_CONNECTIONS = 16;

/** A JSON-RPC error answer, in the shape the transport itself refuses with. */
function answerJsonRpcError(
  res: Parameters<RequestHandler>[1],
  status: number,
  code: number,
  message: string,
) {
  res.status(status).json({ jsonrpc: '2.0', error: { code, message }, id: null });
}

/**
 * One message per request. The SDK's transport would take a JSON array of up to 100 and run them at
 * once, each tool call with its own API requests, for one counted request; MCP 2025-06-18 removed
 * batching, so no current client sends one.
 */
const refuseBatch: RequestHandler = (req, res, next) => {
  if (!Array.isArray(req.body)) {
    next();
    return;
  }
  res.locals.errorCode = ErrorCode.ValidationFailed; // for the request record
  answerJsonRpcError(
    res,
    400,
    -32600,
    'Invalid Request: batches (a JSON array) are not accepted; send one JSON-RPC message per request',
  );
};

/**
 * One stateless MCP exchange: a server with the tools the key may use, over an SDK client that calls
 * this instance's own API with the caller's key, answered through the Streamable HTTP transport (a
 * JSON-RPC answer, or an SSE stream when the client accepts one). Nothing is kept between requests.
 */
function answerMcp(auth: AuthDeps, address: McpAddress): RequestHandler {
  const loopback = new Agent({ connections: LOOPBACK_CONNECTIONS });
  // undici's own fetch with its own pool: Node's global fetch takes no dispatcher of another undici.
  const fetchLoopback = ((input: string | URL, init?: RequestInit) =>
    undiciFetch(input, { ...(init as object), dispatcher: loopback })) as unknown as typeof fetch;
  return async (req, res) => {
    const caller = mcpCallerOf(req);
    // The message was counted on arrival (requireMcpKey): its tool's first API request is not again.
    const prepaid = auth.prepaid.issue();
    const tm = new TextMemory({
      baseUrl: loopbackBaseUrl(req),
      apiKey: caller.apiKey,
      fetch: fetchLoopback,
      // The tools' requests continue this request's trace, so one MCP call reads as one trace.
      headers: { traceparent: formatTraceparent(req.trace), [PREPAID_HEADER]: prepaid.token },
      // One API request per SDK call: a refusal (a 429, an open breaker's 503) comes back to the agent at
      // once as a tool error saying `retryable: true`, rather than this request sleeping on its
      // Retry-After (up to 30 s, twice) while holding a connection and counting more requests.
      maxRetries: 0,
    });
    const server = createServer(tm, {
      tools: toolsForKey(caller.permissions),
      serviceUrl: ownOrigin(req, address.publicUrl),
    });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.once('close', () => {
      prepaid.release();
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  };
}

/** Stateless: no stream of server-initiated messages to open (GET) and no session to end (DELETE). */
const methodNotAllowed: RequestHandler = (_req, res) => {
  res.setHeader('Allow', 'POST');
  answerJsonRpcError(res, 405, -32000, 'Method not allowed: this MCP endpoint is stateless, send POST');
};

/**
 * The remote MCP endpoint and its OAuth protected-resource metadata (docs/security.md). Mounted after
 * the request recorder: a message the transport answers is not a request record (its tools' API
 * requests are), a refusal is.
 */
export function mcpRoutes(auth: AuthDeps, address: McpAddress): Router {
  const router = Router();
  const origin = (req: Request) => ownOrigin(req, address.publicUrl);
  const metadataUrl = (req: Request) => `${origin(req)}${PROTECTED_RESOURCE_PATH}${MCP_PATH}`;
  const guard = [recordRefusalsOnly(), checkOrigin(address)];
  router.post(
    MCP_PATH,
    ...guard,
    requireMcpKey(auth, metadataUrl),
    ...jsonBody,
    refuseBatch,
    answerMcp(auth, address),
  );
  router.options(MCP_PATH, ...guard, answerPreflight);
  router.get(MCP_PATH, ...guard, methodNotAllowed);
  router.delete(MCP_PATH, ...guard, methodNotAllowed);
  // RFC 9728: what this resource is and how to present a token. Keys are issued in the console or
  // through the API, not by an OAuth authorization server, so none is named. The address is the
  // configured one (or a loopback one), never a `Host` the caller made up.
  const metadata: RequestHandler = (req, res) => {
    res.json({
      resource: `${origin(req)}${MCP_PATH}`,
      bearer_methods_supported: ['header'],
      resource_name: 'Text-Memory Service (remote MCP)',
      resource_documentation: `${origin(req)}/console`,
    });
  };
  router.get(`${PROTECTED_RESOURCE_PATH}${MCP_PATH}`, recordRefusalsOnly(), metadata);
  router.get(PROTECTED_RESOURCE_PATH, recordRefusalsOnly(), metadata);
  return router;
}
