import { hkdfSync, randomBytes } from 'node:crypto';
import { openSecret, sealSecret } from '@tm/kit';

/** How long a rotated-out secret keeps signing beside the new one, so receivers can switch without a refusal. */
export const ROTATION_OVERLAP_MS = 24 * 3_600_000;

/** The Standard Webhooks secret format: `whsec_` and 32 random bytes in base64 (what its libraries read). */
export const newSigningSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

/** The AES-256 key secrets are sealed with, derived from WEBHOOKS_SECRET_KEY under a label of its own. */
export const sealingKey = (secretKey: string) =>
  Buffer.from(hkdfSync('sha256', secretKey, '', 'tm webhooks: signing secrets at rest', 32));

/** Sealed, bound to the endpoint: a ciphertext copied onto another endpoint's row does not open. */
export const sealSigningSecret = (key: Buffer, secret: string, endpointId: string) =>
  sealSecret(key, secret, endpointId);

export const openSigningSecret = (key: Buffer, sealed: string, endpointId: string) =>
  openSecret(key, sealed, endpointId);
