import { AppError, ErrorCode, type KeyPermission, type Scope } from '@tm/contracts';
import type { SqlRunner } from '@tm/kit';
import { findKeyByHash, type KeyRecord } from '../../data-access/api-key-repository.js';
import { getSql } from '../../data-access/prisma-client.js';
import { API_KEY_PATTERN, hashApiKey } from './api-key-secret.js';
import type { KeyUsage } from './key-usage.js';
import { type Action, roleAllows } from './role-permissions.js';
import type { VerifiedKeyCache } from './verified-key-cache.js';

/** A verified key as the entry points see it: the model stays below the domain, which names it here. */
export type { KeyRecord };

/**
 * The 401's words (always `authentication_required`). No credential and a refused one are told apart:
 * a caller who sent a key and is told to send one looks for the fault in the wrong place. A refusal
 * stays neutral: one sentence for a key that is malformed, unknown, revoked or whose user is disabled,
 * another for a session token that is forged, expired or ended, so a guesser learns nothing about which
 * keys or sessions exist. Which kind was refused is no secret: the caller chose it (a `tmk_` prefix or
 * `X-API-Key` is a key, any other bearer token a session token).
 */
export const CREDENTIAL_MISSING =
  'Authentication required: send an API key (Authorization: Bearer <API_KEY> or X-API-Key) or a session token';
export const API_KEY_NOT_ACCEPTED =
  'The API key was not accepted: it is unknown, revoked or mistyped. Authentication requires a valid API key or session token';
export const SESSION_NOT_ACCEPTED =
  'The session token was not accepted: it is unknown, expired or ended (sign in again; API keys start with tmk_). Authentication requires a valid API key or session token';

/** No credential came (or none in a form the service reads: another scheme, an empty header). */
export function authenticationRequired(): AppError {
  return new AppError(ErrorCode.AuthenticationRequired, CREDENTIAL_MISSING);
}

/** An API key came and is not a live one; the same error whatever the reason. */
export function apiKeyNotAccepted(): AppError {
  return new AppError(ErrorCode.AuthenticationRequired, API_KEY_NOT_ACCEPTED);
}

/** A session token came and is not a live one; the same error whatever the reason. */
export function sessionNotAccepted(): AppError {
  return new AppError(ErrorCode.AuthenticationRequired, SESSION_NOT_ACCEPTED);
}

/**
 * A key acts with what it was given and its user's role still allows: a user moved to a lesser role
 * (announced to every instance, which drops its cached keys) loses what the role no longer holds.
 */
function withinRole(key: KeyRecord | undefined): KeyRecord | undefined {
  return key && { ...key, permissions: key.permissions.filter((p) => roleAllows(key.userRole, p as Action)) };
}

/** The key's record if the presented key is a live one (exists, unrevoked, its user active). */
export async function verifyApiKey(
  presented: string,
  deps: { cache?: VerifiedKeyCache; run?: SqlRunner } = {},
): Promise<KeyRecord> {
  if (!API_KEY_PATTERN.test(presented)) throw apiKeyNotAccepted();
  const secretHash = hashApiKey(presented);
  let key = deps.cache?.get(secretHash);
  if (!key) {
    const generation = deps.cache?.generation ?? 0;
    key = withinRole(await findKeyByHash(deps.run ?? getSql(), secretHash));
    if (key) deps.cache?.set(secretHash, key, generation);
  }
  if (!key || key.revokedAt || !key.userActive) throw apiKeyNotAccepted();
  return key;
}

/**
 * A verified key that holds `permission`, for read-only routes that need no storage connection. The
 * caller verifies first (`verifyApiKey`), so a refusal here is attributed to the key's tenant.
 */
export function keyHolding(
  key: KeyRecord,
  permission: KeyPermission,
  deps: { usage?: KeyUsage } = {},
): KeyRecord {
  if (!key.permissions.includes(permission)) {
    throw new AppError(ErrorCode.PermissionDenied, `This API key does not have the ${permission} permission`);
  }
  deps.usage?.noteUsed(key.id);
  return key;
}

/**
 * Derive the scope of a verified key (`verifyApiKey`) for one operation: tenant, user, key, the
 * attached storage connection and the user's private-memory consent. Nothing here comes from the
 * request. In the spec's order: the credential (401, verified first), then the key's permission and
 * its storage (403), refusals the caller can attribute to the key's tenant.
 */
export function scopeForOperation(
  key: KeyRecord,
  permission: KeyPermission | readonly KeyPermission[],
  deps: { usage?: KeyUsage } = {},
): Scope {
  // An operation that both reads and writes (a chat completion) needs every permission it uses.
  for (const needed of typeof permission === 'string' ? [permission] : permission) {
    if (!key.permissions.includes(needed)) {
      throw new AppError(ErrorCode.PermissionDenied, `This API key does not have the ${needed} permission`);
    }
  }
  if (!key.storageId || key.storageStatus !== 'active') {
    throw new AppError(
      ErrorCode.StorageNotAttached,
      'This API key has no active storage connection attached',
    );
  }
  if (key.storageKind !== 'managed') {
    throw new AppError(
      ErrorCode.StorageNotAttached,
      'The storage connection attached to this key is customer-owned, which is control-plane only: memory requests are not dispatched to it',
    );
  }
  deps.usage?.noteUsed(key.id);
  return {
    tenant_id: key.tenantId,
    user_id: key.userId,
    key_id: key.id,
    storage_connection_id: key.storageId,
    consent: key.consent === 'granted' ? 'granted' : 'missing',
  };
}
