import { AppError } from '@tm/contracts';
import type { SqlRunner } from '@tm/kit';
import { describe, expect, it } from 'vitest';
import type { KeyRecord } from '../src/data-access/api-key-repository.js';
import { generateApiKey } from '../src/domain/identity/api-key-secret.js';
import {
  API_KEY_NOT_ACCEPTED,
  authenticationRequired,
  CREDENTIAL_MISSING,
  SESSION_NOT_ACCEPTED,
  verifyApiKey,
} from '../src/domain/identity/authenticate-api-key.js';
import { authenticateSession } from '../src/domain/identity/authenticate-session.js';
import { signSessionToken } from '../src/domain/identity/session-token.js';

// What a 401 says: "send one" only when nothing came; a credential that came and was refused is named
// as refused, in one sentence per kind whatever the reason (tests/e2e/gateway/authentication.test.ts sends
// the requests through the middleware).

const live: KeyRecord = {
  id: 'key',
  tenantId: 'tenant',
  userId: 'user',
  revokedAt: null,
  permissions: ['memory:recall'],
  userActive: true,
  userRole: 'developer',
  storageId: 'storage',
  storageKind: 'managed',
  storageStatus: 'active',
  consent: 'granted',
};

/** A key store holding `rows` for any hash: no database, the lookup's answer is the variable. */
const storeAnswering =
  (...rows: KeyRecord[]): SqlRunner =>
  async <T>() =>
    rows as T[];

const refusal = (message: string) => ({ status: 401, code: 'authentication_required', message });

async function rejectionOf(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof AppError)) throw new Error(`expected an AppError, got ${String(error)}`);
  return error;
}

describe('the 401 messages', () => {
  it('when nothing was sent, then the message asks for a credential; a refusal never does', () => {
    expect(authenticationRequired()).toMatchObject(refusal(CREDENTIAL_MISSING));
    expect(CREDENTIAL_MISSING).toMatch(/^Authentication required: send an API key/);
    for (const refused of [API_KEY_NOT_ACCEPTED, SESSION_NOT_ACCEPTED]) {
      expect(refused).toMatch(/was not accepted/);
      expect(refused).not.toMatch(/send an API key/);
    }
  });
});

describe('verifyApiKey', () => {
  const { key } = generateApiKey();

  it.each([
    ['malformed', 'tmk_short', storeAnswering(live)],
    ['unknown', key, storeAnswering()],
    ['revoked', key, storeAnswering({ ...live, revokedAt: new Date() })],
    ['of a disabled user', key, storeAnswering({ ...live, userActive: false })],
  ])('when the key is %s, then 401 with the one not-accepted sentence', async (_reason, presented, run) => {
    const error = await rejectionOf(verifyApiKey(presented, { run }));

    expect(error).toMatchObject(refusal(API_KEY_NOT_ACCEPTED));
  });

  it('when the key is live, then its record comes back', async () => {
    await expect(verifyApiKey(key, { run: storeAnswering(live) })).resolves.toMatchObject({ id: 'key' });
  });
});

describe('authenticateSession', () => {
  const signingKey = new TextEncoder().encode('s'.repeat(32));
  const noSession = { session: { findFirst: async () => null } } as never;

  it.each([
    ['not a token at all', async () => 'not-a-token'],
    ['signed with another key', async () => sign(new TextEncoder().encode('o'.repeat(32)), 60_000)],
    ['expired', async () => sign(signingKey, -60_000)],
    ['well signed, its session ended', async () => sign(signingKey, 60_000)],
  ])('when the token is %s, then 401 with the one not-accepted sentence', async (_reason, token) => {
    const error = await rejectionOf(authenticateSession(await token(), { signingKey, db: noSession }));

    expect(error).toMatchObject(refusal(SESSION_NOT_ACCEPTED));
  });

  function sign(key: Uint8Array, expiresInMs: number) {
    return signSessionToken(key, {
      id: 'session',
      userId: 'user',
      expiresAt: new Date(Date.now() + expiresInMs),
    });
  }
});
