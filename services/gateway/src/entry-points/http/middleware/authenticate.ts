import { AppError, ErrorCode, type KeyPermission, type Scope } from '@tm/contracts';
import type { Request, RequestHandler } from 'express';
import {
  authenticationRequired,
  type KeyRecord,
  keyHolding,
  scopeForOperation,
  verifyApiKey,
} from '../../../domain/identity/authenticate-api-key.js';
import type { Account } from '../../../domain/identity/authenticate-session.js';
import { authenticateSession } from '../../../domain/identity/authenticate-session.js';
import type { KeyUsage } from '../../../domain/identity/key-usage.js';
import { type Action, requireRole } from '../../../domain/identity/role-permissions.js';
import type { VerifiedKeyCache } from '../../../domain/identity/verified-key-cache.js';
import type { PrepaidRequests } from '../../../domain/mcp/prepaid-requests.js';
import type { RateLimits } from '../../../domain/operations/rate-limits.js';

export interface AuthDeps {
  keys: VerifiedKeyCache;
  keyUsage: KeyUsage;
  sessionSigningKey: Uint8Array;
  rateLimits: RateLimits;
  /** The API requests of MCP tool calls, counted when their /mcp message was (prepaid-requests.ts). */
  prepaid: PrepaidRequests;
}

/**
 * The header that carries a /mcp message's prepaid token on its tools' loopback API requests. Never
 * logged (no header is); a token from elsewhere is unknown, and the request is counted.
 */
export const PREPAID_HEADER = 'X-TM-Prepaid';

/** Count a key's request against its rate limits, unless its /mcp message already paid for it. */
async function countKeyRequest(deps: AuthDeps, req: Request, keyId: string, tenantId: string) {
  if (deps.prepaid.take(req.get(PREPAID_HEADER))) return;
  await deps.rateLimits.consume(`k:${keyId}`, tenantId);
}

/**
 * A write's cost past the one request `requireApiKey` counted: a batch of `items` counts for all of
 * them (`items - 1` more, so it is limited as the single writes it replaces would be), and its long
 * text counts against the tenant's text budget (write-cost.ts). Over either, the whole request is
 * refused (429) before anything is written. An ordinary single write has nothing more to count and
 * makes no second round trip.
 */
export async function countWriteCost(
  deps: AuthDeps,
  req: Request,
  cost: { items: number; textChars: number },
): Promise<void> {
  const requests = cost.items - 1;
  if (requests <= 0 && cost.textChars <= 0) return;
  const scope = scopeOf(req);
  await deps.rateLimits.consumeWrite(`k:${scope.key_id}`, scope.tenant_id, {
    requests,
    textChars: cost.textChars,
  });
}

/**
 * A valid browser session where an API key is needed: 403 (the spec's rule 1), its account kept on
 * the request so the refusal is attributed; anything unverifiable is 401.
 */
async function refuseSession(deps: AuthDeps, req: Request, token: string, message: string): Promise<never> {
  req.account = await authenticateSession(token, { signingKey: deps.sessionSigningKey });
  throw new AppError(ErrorCode.CredentialNotAccepted, message);
}

/**
 * Verify a presented API key and keep whose it is on the request, so a refusal after it (a missing
 * permission, no storage, a session-only route: 403) is recorded in the key's tenant's history and
 * counts in its blocked rate; before this, such refusals were recorded with no tenant.
 */
async function verifiedKey(deps: AuthDeps, req: Request, presented: string): Promise<KeyRecord> {
  const key = await verifyApiKey(presented, { cache: deps.keys });
  req.verifiedCaller = { tenantId: key.tenantId, userId: key.userId, keyId: key.id };
  return key;
}

type Presented = { kind: 'api_key' | 'session'; value: string };

/**
 * The credential a request carries: `Authorization: Bearer <API_KEY or SESSION_TOKEN>` (keys start
 * with `tmk_`) or `X-API-Key: <API_KEY>`. Never logged.
 */
export function presentedCredential(req: Request): Presented | undefined {
  const authorization = req.get('authorization');
  if (authorization) {
    const token = /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1];
    if (!token) return undefined;
    return { kind: token.startsWith('tmk_') ? 'api_key' : 'session', value: token };
  }
  const key = req.get('x-api-key')?.trim();
  return key ? { kind: 'api_key', value: key } : undefined;
}

/**
 * Data plane: an API key with `permission`, an active managed storage connection, within its rate
 * limits. A valid browser session is refused with 403 (the spec's rule 1); anything unverifiable is 401.
 */
export function requireApiKey(
  deps: AuthDeps,
  permission: KeyPermission | readonly KeyPermission[],
): RequestHandler {
  return async (req, _res, next) => {
    const presented = presentedCredential(req);
    if (!presented) throw authenticationRequired();
    if (presented.kind === 'session')
      await refuseSession(
        deps,
        req,
        presented.value,
        'Memory operations need an API key; a browser session cannot be used here',
      );
    const key = await verifiedKey(deps, req, presented.value);
    const scope = scopeForOperation(key, permission, { usage: deps.keyUsage });
    req.scope = scope; // set before the rate limit, so a refused request is still attributed
    await countKeyRequest(deps, req, scope.key_id, scope.tenant_id);
    next();
  };
}

/**
 * The remote MCP endpoint: a valid API key, whatever its permissions (they decide which tools are
 * offered), within its rate limits: every message counts once here, its tool's first API request
 * then goes free (prepaid-requests.ts). A 401 carries `WWW-Authenticate` naming the
 * protected-resource metadata (the MCP authorization section); `invalid_token` when a credential came
 * and failed (RFC 6750). A valid session token is refused with 403, as on the data plane.
 */
export function requireMcpKey(deps: AuthDeps, resourceMetadataUrl: (req: Request) => string): RequestHandler {
  return async (req, res, next) => {
    const presented = presentedCredential(req);
    try {
      if (!presented) throw authenticationRequired();
      if (presented.kind === 'session')
        await refuseSession(
          deps,
          req,
          presented.value,
          'The MCP endpoint needs an API key; a browser session cannot be used here',
        );
      const key = await verifyApiKey(presented.value, { cache: deps.keys });
      deps.keyUsage.noteUsed(key.id); // "last used" counts a session that only lists the tools too
      req.mcpCaller = {
        tenantId: key.tenantId,
        userId: key.userId,
        keyId: key.id,
        permissions: key.permissions,
        apiKey: presented.value,
      };
      await deps.rateLimits.consume(`k:${key.id}`, key.tenantId);
    } catch (error) {
      if (error instanceof AppError && error.status === 401) {
        const challenge = `Bearer realm="text-memory", resource_metadata="${resourceMetadataUrl(req)}"`;
        res.setHeader('WWW-Authenticate', presented ? `${challenge}, error="invalid_token"` : challenge);
      }
      throw error;
    }
    next();
  };
}

/** The verified caller of /mcp; a route mounted without `requireMcpKey` fails closed. */
export function mcpCallerOf(req: Request): NonNullable<Request['mcpCaller']> {
  if (!req.mcpCaller) throw authenticationRequired();
  return req.mcpCaller;
}

/**
 * Control plane: a browser session (an account credential). A valid API key is refused with 403: keys
 * act on memory, people manage the account.
 */
export function requireSession(deps: AuthDeps): RequestHandler {
  return async (req, _res, next) => {
    const presented = presentedCredential(req);
    if (!presented) throw authenticationRequired();
    if (presented.kind === 'api_key') {
      await verifiedKey(deps, req, presented.value);
      throw new AppError(
        ErrorCode.CredentialNotAccepted,
        'Control-plane routes need a session token (POST /api/v1/control/sessions); an API key cannot be used here',
      );
    }
    const account = await authenticateSession(presented.value, { signingKey: deps.sessionSigningKey });
    req.account = account;
    await deps.rateLimits.consume(`u:${account.userId}`, account.tenantId);
    next();
  };
}

/**
 * Read-only infrastructure routes: an API key holding `permission`, or a browser session whose role
 * allows `action` (the spec's rule 3). Either way the tenant comes from the credential.
 */
export function requireReader(deps: AuthDeps, permission: KeyPermission, action: Action): RequestHandler {
  return async (req, _res, next) => {
    const presented = presentedCredential(req);
    if (!presented) throw authenticationRequired();
    if (presented.kind === 'api_key') {
      const key = keyHolding(await verifiedKey(deps, req, presented.value), permission, {
        usage: deps.keyUsage,
      });
      req.reader = { tenantId: key.tenantId, userId: key.userId, keyId: key.id };
      await countKeyRequest(deps, req, key.id, key.tenantId);
    } else {
      const account = await authenticateSession(presented.value, { signingKey: deps.sessionSigningKey });
      req.account = account;
      requireRole(account.role, action);
      req.reader = { tenantId: account.tenantId, userId: account.userId };
      await deps.rateLimits.consume(`u:${account.userId}`, account.tenantId);
    }
    next();
  };
}

/** The tenant a read-only route reports on; fails closed like `scopeOf`. */
export function readerOf(req: Request): { tenantId: string; userId: string } {
  if (!req.reader) throw authenticationRequired();
  return req.reader;
}

/** The verified scope of a data-plane route; a route mounted without `requireApiKey` fails closed. */
export function scopeOf(req: Request): Scope {
  if (!req.scope) throw authenticationRequired();
  return req.scope;
}

/** The signed-in account of a control-plane route; fails closed like `scopeOf`. */
export function accountOf(req: Request): Account {
  if (!req.account) throw authenticationRequired();
  return req.account;
}
