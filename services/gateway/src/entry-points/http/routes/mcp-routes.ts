import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createServer } from '@text-memory/mcp';
import { TextMemory } from '@text-memory/sdk';
import { AppError, ErrorCode } from '@tm/contracts';
import { formatTraceparent } from '@tm/kit';
import { type Request, type RequestHandler, Router } from 'express';
import { authenticationRequired, verifyApiKey } from '../../../domain/identity/authenticate-api-key.js';
import { authenticateSession } from '../../../domain/identity/authenticate-session.js';
import type { OriginPattern } from '../../../domain/mcp/allowed-origins.js';
import { toolsForKey } from '../../../domain/mcp/tools-for-key.js';
import { type AuthDeps, presentedCredential } from '../middleware/authenticate.js';
import { answerPreflight, checkOrigin } from '../middleware/check-origin.js';
import { jsonBody } from '../middleware/json-body.js';
import { loopbackBaseUrl, ownOrigin } from '../own-address.js';

export const MCP_PATH = '/mcp';
/** RFC 9728: the metadata of the resource at /mcp is at this path with /mcp appended. */
export const PROTECTED_RESOURCE_PATH = '/.well-known/oauth-protected-resource';

declare global {
  namespace Express {
    interface Request {
      /** /mcp: the verified key's tenant, id and permissions, and the key itself for the tools' calls. */
      mcpCaller?: { tenantId: string; keyId: string; permissions: string[]; apiKey: string };
    }
  }
}

const metadataUrl = (req: Request) => `${ownOrigin(req)}${PROTECTED_RESOURCE_PATH}${MCP_PATH}`;

/**
 * The bearer API key, verified as the HTTP API verifies it. A 401 carries `WWW-Authenticate` naming
 * the protected-resource metadata (the MCP authorization section); `invalid_token` when a credential
 * came and failed (RFC 6750). A valid session token is refused with 403, as on the data plane.
 */
function authenticateMcp(auth: AuthDeps): RequestHandler {
  return async (req, res, next) => {
    const presented = presentedCredential(req);
    const challenge = `Bearer realm="text-memory", resource_metadata="${metadataUrl(req)}"`;
    try {
      if (!presented) throw authenticationRequired();
      if (presented.kind === 'session') {
        await authenticateSession(presented.value, { signingKey: auth.sessionSigningKey });
        throw new AppError(
          ErrorCode.CredentialNotAccepted,
          'The MCP endpoint needs an API key; a browser session cannot be used here',
        );
      }
      const key = await verifyApiKey(presented.value, { cache: auth.keys });
      auth.keyUsage.noteUsed(key.id); // "last used" counts a session that only lists the tools too
      req.mcpCaller = {
        tenantId: key.tenantId,
        keyId: key.id,
        permissions: key.permissions,
        apiKey: presented.value,
      };
    } catch (error) {
      if (error instanceof AppError && error.status === 401)
        res.setHeader('WWW-Authenticate', presented ? `${challenge}, error="invalid_token"` : challenge);
      throw error;
    }
    next();
  };
}

/**
 * Every MCP message counts once against the key's rate limits: a `tools/call` through the API
 * requests its tool makes (each an ordinary request: counted, recorded and billed there), anything
 * else (initialize, tools/list, notifications) here, as it reaches no other route.
 */
function countEnvelope(auth: AuthDeps): RequestHandler {
  return async (req, _res, next) => {
    const caller = req.mcpCaller;
    if (!caller) throw authenticationRequired();
    const body = req.body as { method?: unknown } | undefined;
    if (Array.isArray(body) || body?.method !== 'tools/call')
      await auth.rateLimits.consume(`k:${caller.keyId}`, caller.tenantId);
    next();
  };
}

/**
 * One stateless MCP exchange: a server with the tools the key may use, over an SDK client that calls
 * this instance's own API with the caller's key, answered through the Streamable HTTP transport (a
 * JSON-RPC answer, or an SSE stream when the client accepts one). Nothing is kept between requests.
 */
const answerMcp: RequestHandler = async (req, res) => {
  const caller = req.mcpCaller;
  if (!caller) throw authenticationRequired();
  const tm = new TextMemory({
    baseUrl: loopbackBaseUrl(req),
    apiKey: caller.apiKey,
    // The tools' requests continue this request's trace, so one MCP call reads as one trace.
    headers: { traceparent: formatTraceparent(req.trace) },
    // One API request per SDK call: a refusal (a 429, an open breaker's 503) comes back to the agent at
    // once as a tool error saying `retryable: true`, rather than this request sleeping on its
    // Retry-After (up to 30 s, twice) while holding a connection and counting more requests.
    maxRetries: 0,
  });
  const server = createServer(tm, {
    tools: toolsForKey(caller.permissions),
    serviceUrl: ownOrigin(req),
  });
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  res.once('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, req.body);
};

/** Stateless: no stream of server-initiated messages to open (GET) and no session to end (DELETE). */
const methodNotAllowed: RequestHandler = (_req, res) => {
  res.setHeader('Allow', 'POST');
  res.status(405).json({
    jsonrpc: '2.0',
    error: { code: -32000, message: 'Method not allowed: this MCP endpoint is stateless, send POST' },
    id: null,
  });
};

/** The remote MCP endpoint and its OAuth protected-resource metadata (docs/security.md). */
export function mcpRoutes(auth: AuthDeps, allowedOrigins: readonly OriginPattern[]): Router {
  const router = Router();
  router.post(
    MCP_PATH,
    checkOrigin(allowedOrigins),
    authenticateMcp(auth),
    ...jsonBody,
    countEnvelope(auth),
    answerMcp,
  );
  router.options(MCP_PATH, checkOrigin(allowedOrigins), answerPreflight);
  router.get(MCP_PATH, checkOrigin(allowedOrigins), methodNotAllowed);
  router.delete(MCP_PATH, checkOrigin(allowedOrigins), methodNotAllowed);
  // RFC 9728: what this resource is and how to present a token. Keys are issued in the console or
  // through the API, not by an OAuth authorization server, so none is named.
  const metadata: RequestHandler = (req, res) => {
    res.json({
      resource: `${ownOrigin(req)}${MCP_PATH}`,
      bearer_methods_supported: ['header'],
      resource_name: 'Text-Memory Service (remote MCP)',
      resource_documentation: `${ownOrigin(req)}/console`,
    });
  };
  router.get(`${PROTECTED_RESOURCE_PATH}${MCP_PATH}`, metadata);
  router.get(PROTECTED_RESOURCE_PATH, metadata);
  return router;
}
