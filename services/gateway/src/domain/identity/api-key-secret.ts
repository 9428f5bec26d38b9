import { createHash, randomBytes } from 'node:crypto';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

function randomToken(length: number): string {
  const bytes = randomBytes(length);
  let out = '';
  for (const b of bytes) out += ALPHABET[b % ALPHABET.length];
  return out;
}

/**
 * A key is `tmk_<8-char prefix>_<40-char secret>` (~238 bits of randomness). The prefix identifies
 * it in lists; only a SHA-256 of the whole key is stored. A fast hash is right here because the
 * secret is random and long, unlike a password.
 */
export function generateApiKey() {
  return generateSecretToken('tmk');
}

/** The same shape for other bearer secrets: operator tokens are `tmo_<prefix>_<secret>`. */
export function generateSecretToken(kind: 'tmk' | 'tmo') {
  const prefix = `${kind}_${randomToken(8)}`;
  const key = `${prefix}_${randomToken(40)}`;
  return { key, prefix, secretHash: hashApiKey(key) };
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

export const API_KEY_PATTERN = /^tmk_[A-Za-z0-9]{8}_[A-Za-z0-9]{40}$/;
export const OPERATOR_TOKEN_PATTERN = /^tmo_[A-Za-z0-9]{8}_[A-Za-z0-9]{40}$/;
