import { errors, jwtVerify, SignJWT } from 'jose';

const ISSUER = 'tm-gateway';
const AUDIENCE = 'tm-session';

/**
 * A session token is a JWT (HS256) naming the session row; the row decides whether it is still live
 * (logout, password change and disabling a user end it before `exp`). The signature means a token
 * cannot be forged or altered; tenant and role are read from the database, never from the token.
 */
export async function signSessionToken(
  key: Uint8Array,
  session: { id: string; userId: string; expiresAt: Date },
): Promise<string> {
  return new SignJWT({ sid: session.id })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setSubject(session.userId)
    .setIssuedAt()
    .setExpirationTime(Math.floor(session.expiresAt.getTime() / 1000))
    .sign(key);
}

/** The session id and user of a well-signed, unexpired token; undefined for anything else. */
export async function readSessionToken(
  key: Uint8Array,
  token: string,
): Promise<{ sessionId: string; userId: string } | undefined> {
  try {
    const { payload } = await jwtVerify(token, key, {
      issuer: ISSUER,
      audience: AUDIENCE,
      algorithms: ['HS256'],
    });
    if (typeof payload.sid !== 'string' || typeof payload.sub !== 'string') return undefined;
    return { sessionId: payload.sid, userId: payload.sub };
  } catch (err) {
    if (err instanceof errors.JOSEError) return undefined;
    throw err;
  }
}
