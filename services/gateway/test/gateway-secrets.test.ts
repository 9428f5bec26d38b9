import { openSecret, sealSecret } from '@tm/kit';
import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { deriveGatewaySecrets } from '../src/domain/identity/gateway-secrets.js';
import { readSessionToken, signSessionToken } from '../src/domain/identity/session-token.js';

const secrets = deriveGatewaySecrets('a configured secret of at least thirty-two chars');

describe('gateway secrets', () => {
  it('when derived twice from one configured value, then the keys agree, and differ per use', () => {
    const again = deriveGatewaySecrets('a configured secret of at least thirty-two chars');

    expect(again.storageSecretKey.equals(secrets.storageSecretKey)).toBe(true);
    expect(Buffer.from(again.sessionSigningKey).equals(Buffer.from(secrets.sessionSigningKey))).toBe(true);
    expect(Buffer.from(secrets.sessionSigningKey).equals(secrets.storageSecretKey)).toBe(false);
    expect(deriveGatewaySecrets(undefined).persistent).toBe(false);
  });
});

describe('sealed storage secrets', () => {
  it('when sealed, then the ciphertext hides the secret and opens only for the same row', () => {
    const sealed = sealSecret(secrets.storageSecretKey, 'pg-password-123', 'row-1');

    expect(sealed).not.toContain('pg-password-123');
    expect(openSecret(secrets.storageSecretKey, sealed, 'row-1')).toBe('pg-password-123');
    expect(() => openSecret(secrets.storageSecretKey, sealed, 'row-2')).toThrow();
    const [v, iv, tag, body] = sealed.split('.');
    const flipped = `${v}.${iv}.${tag}.${(body ?? '').startsWith('A') ? 'B' : 'A'}${(body ?? '').slice(1)}`;
    expect(() => openSecret(secrets.storageSecretKey, flipped, 'row-1')).toThrow();
  });
});

describe('session tokens', () => {
  const session = { id: '7a1c4a52-0c6e-4b1e-9d3a-1f0f2a3b4c5d', userId: 'user-1' };

  it('when signed, then it reads back; with another key or expired, then it does not', async () => {
    const token = await signSessionToken(secrets.sessionSigningKey, {
      ...session,
      expiresAt: new Date(Date.now() + 60_000),
    });
    const expired = await signSessionToken(secrets.sessionSigningKey, {
      ...session,
      expiresAt: new Date(Date.now() - 60_000),
    });
    const other = deriveGatewaySecrets('another configured secret, thirty-two chars or more');

    expect(await readSessionToken(secrets.sessionSigningKey, token)).toEqual({
      sessionId: session.id,
      userId: session.userId,
    });
    expect(await readSessionToken(other.sessionSigningKey, token)).toBeUndefined();
    expect(await readSessionToken(secrets.sessionSigningKey, expired)).toBeUndefined();
    expect(await readSessionToken(secrets.sessionSigningKey, 'not-a-token')).toBeUndefined();
  });

  it('when a token is signed with alg none or for another audience, then it does not read', async () => {
    const header = Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url');
    const payload = Buffer.from(
      JSON.stringify({ sid: session.id, sub: session.userId, iss: 'tm-gateway', aud: 'tm-session' }),
    ).toString('base64url');
    const otherAudience = await new SignJWT({ sid: session.id })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer('tm-gateway')
      .setAudience('someone-else')
      .setSubject(session.userId)
      .setExpirationTime('1h')
      .sign(secrets.sessionSigningKey);

    expect(await readSessionToken(secrets.sessionSigningKey, `${header}.${payload}.`)).toBeUndefined();
    expect(await readSessionToken(secrets.sessionSigningKey, otherAudience)).toBeUndefined();
  });
});
