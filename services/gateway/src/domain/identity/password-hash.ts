import { randomBytes, type ScryptOptions, scrypt, timingSafeEqual } from 'node:crypto';
import { addressBucketOf } from './address-bucket.js';
import { createHashingSlots, DEFAULT_HASHING_SLOTS, type HashingSlotSettings } from './hashing-slots.js';

// scrypt (memory-hard): N = 2^15, r = 8 uses 32 MiB per hash, about 100 ms here. Parameters are
// stored with each hash, so raising them later does not break existing passwords.
const PARAMS = { N: 2 ** 15, r: 8, p: 1 } as const;
const KEY_LENGTH = 32;

// One per process, as the thread pool it protects is: every scrypt call of the process goes through it.
let slots = createHashingSlots(DEFAULT_HASHING_SLOTS);

/** Set at start, before any hashing (the gateway's PASSWORD_HASH_* settings). */
export function limitPasswordHashing(settings: HashingSlotSettings): void {
  slots = createHashingSlots(settings);
}

/**
 * Whose hash it is: the client's address (IPv6 by /64, as its failed attempts are counted), or the
 * gateway itself for an operator's command.
 */
export interface HashFor {
  /** The client's address (behind a trusted proxy, the one it reports); absent for `mustRun`. */
  from?: string;
  /** An operator's command (bootstrap): waits for a slot however long it takes, never refused. */
  mustRun?: boolean;
}

const OPERATOR_SOURCE = '(operator)';

/**
 * The only scrypt call: in a hashing slot, so a flood of logins cannot take the whole thread pool,
 * and one address's flood cannot take every slot.
 */
function derive(
  password: string,
  salt: Buffer,
  params: { N: number; r: number; p: number },
  forWhom: HashFor,
) {
  const options: ScryptOptions = { ...params, maxmem: 128 * params.N * params.r * 2 };
  return slots.run(
    () =>
      new Promise<Buffer>((resolve, reject) =>
        scrypt(password.normalize('NFC'), salt, KEY_LENGTH, options, (err, key) =>
          err ? reject(err) : resolve(key),
        ),
      ),
    {
      source: forWhom.from === undefined ? OPERATOR_SOURCE : addressBucketOf(forWhom.from),
      mustRun: forWhom.mustRun ?? false,
    },
  );
}

/**
 * `scrypt$N$r$p$salt$hash` (base64url parts). A request's hash is refused with a retryable 503 when
 * too many wait, or a 429 when its address already holds its share of the slots.
 */
export async function hashPassword(password: string, forWhom: HashFor): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, PARAMS, forWhom);
  return ['scrypt', PARAMS.N, PARAMS.r, PARAMS.p, salt.toString('base64url'), key.toString('base64url')].join(
    '$',
  );
}

/** Constant-time comparison; a malformed stored hash verifies nothing. */
export async function verifyPassword(password: string, stored: string, forWhom: HashFor): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const actual = await derive(
    password,
    Buffer.from(salt, 'base64url'),
    {
      N: Number(n),
      r: Number(r),
      p: Number(p),
    },
    forWhom,
  );
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/**
 * Spend the same time on an unknown email as on a wrong password, so response time does not tell
 * which addresses have accounts.
 */
let dummyHash: Promise<string> | undefined;
export async function burnPasswordCheck(password: string, forWhom: HashFor): Promise<false> {
  // Made once; it waits for a slot rather than be refused, so a refusal is never kept as the answer.
  dummyHash ??= hashPassword(randomBytes(16).toString('hex'), { mustRun: true });
  await verifyPassword(password, await dummyHash, forWhom);
  return false;
}
