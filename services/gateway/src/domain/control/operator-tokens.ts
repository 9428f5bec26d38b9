import { randomUUID } from 'node:crypto';
import { AppError, ErrorCode, type OperatorTokenView } from '@tm/contracts';
import {
  findAnyLiveOperatorToken,
  findLiveOperatorToken,
  findOperatorToken,
  insertOperatorToken,
  listTenantOperatorTokens,
  markOperatorTokenRevoked,
} from '../../data-access/operator-token-repository.js';
import { getPrisma } from '../../data-access/prisma-client.js';
import { generateSecretToken, hashApiKey, OPERATOR_TOKEN_PATTERN } from '../identity/api-key-secret.js';
import type { Account } from '../identity/authenticate-session.js';
import { requireRole } from '../identity/role-permissions.js';
import { operatorTokenView } from './control-views.js';

/**
 * The operator capability: a separate, expiring secret an owner issues for privileged diagnostics
 * (the smoke test). It is presented in `X-Operator-Token` next to an API key and only adds a
 * capability: consent, authorization, billing and production policy still apply.
 */

const notFound = () => new AppError(ErrorCode.NotFound, 'No such operator token');

export async function issueOperatorToken(
  account: Account,
  input: { name: string; ttl_hours: number },
  db = getPrisma(),
): Promise<OperatorTokenView & { token: string }> {
  requireRole(account.role, 'operator-tokens:manage');
  const secret = generateSecretToken('tmo');
  const row = await insertOperatorToken(db, {
    id: randomUUID(),
    tenantId: account.tenantId,
    createdByUserId: account.userId,
    name: input.name,
    prefix: secret.prefix,
    secretHash: secret.secretHash,
    expiresAt: new Date(Date.now() + input.ttl_hours * 3_600_000),
  });
  return { ...operatorTokenView(row), token: secret.key };
}

export async function listOperatorTokens(account: Account, db = getPrisma()) {
  requireRole(account.role, 'operator-tokens:manage');
  const rows = await listTenantOperatorTokens(db, account.tenantId);
  return { data: rows.map((r) => operatorTokenView(r)) };
}

/** Idempotent: revoking a revoked token answers its current state. */
export async function revokeOperatorToken(account: Account, id: string, db = getPrisma()) {
  requireRole(account.role, 'operator-tokens:manage');
  await markOperatorTokenRevoked(db, account.tenantId, id);
  const row = await findOperatorToken(db, account.tenantId, id);
  if (!row) throw notFound();
  return operatorTokenView(row);
}

/**
 * True only for a live token of the same tenant as the caller's credential. A missing or wrong token
 * is a 403 (the caller is authenticated; the capability is what is missing).
 */
export async function requireOperatorCapability(
  tenantId: string,
  presented: string | undefined,
  db = getPrisma(),
): Promise<void> {
  const refuse = () =>
    new AppError(
      ErrorCode.OperatorCapabilityRequired,
      'This diagnostic needs a valid operator token (X-Operator-Token) for your tenant',
    );
  if (!presented || !OPERATOR_TOKEN_PATTERN.test(presented)) throw refuse();
  const row = await findLiveOperatorToken(db, tenantId, hashApiKey(presented));
  if (!row) throw refuse();
}

/**
 * The release record's view: `public` without a token, `operator` with a live operator token of any
 * tenant (the record holds no tenant data; what it hides from the public is the deployment's
 * internals). A token sent that is not live is a 403, not a quiet public view, so a caller knows.
 */
export async function releaseViewFor(
  presented: string | undefined,
  db = getPrisma(),
): Promise<'public' | 'operator'> {
  if (presented === undefined) return 'public';
  const live =
    OPERATOR_TOKEN_PATTERN.test(presented) && (await findAnyLiveOperatorToken(db, hashApiKey(presented)));
  if (!live) {
    throw new AppError(
      ErrorCode.OperatorCapabilityRequired,
      'The release record’s operator view needs a valid operator token (X-Operator-Token)',
    );
  }
  return 'operator';
}
