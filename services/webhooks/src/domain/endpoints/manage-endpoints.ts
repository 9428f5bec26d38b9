import { randomUUID } from 'node:crypto';
import {
  AppError,
  ErrorCode,
  type WebhookEndpointCreated,
  type WebhookEndpointCreateMessage,
  type WebhookEndpointRefMessage,
  type WebhookEndpointUpdateMessage,
  type WebhookEndpointView,
  type WebhookSecretRotated,
} from '@tm/contracts';
import {
  countEndpoints,
  findEndpoint,
  insertEndpoint,
  listEndpoints as listRows,
  deleteEndpoint as removeEndpoint,
  updateEndpoint as writeEndpoint,
} from '../../data-access/endpoint-repository.js';
import { type Db, getPrisma } from '../../data-access/prisma-client.js';
import { addressAllowed, literalAddress } from '../deliveries/address-guard.js';
import { endpointView } from './endpoint-view.js';
import { newSigningSecret, ROTATION_OVERLAP_MS, sealSigningSecret } from './signing-secret.js';

export interface EndpointSettings {
  /** The key secrets are sealed with (signing-secret.ts). */
  sealingKey: Buffer;
  maxEndpoints: number;
  allowLoopback: boolean;
  db?: Db;
}

const notFound = () => new AppError(ErrorCode.NotFound, 'No such webhook endpoint');

/**
 * The URL as it will be called: the parsed `href` (the contract refused whatever parsing would drop or
 * rewrite), so the stored URL is the one each attempt dials. A host written as an address can be
 * judged now: a private one is refused at once rather than left to fail every attempt. Names are
 * judged when each attempt connects.
 */
function reachableUrl(url: string, allowLoopback: boolean): string {
  const parsed = new URL(url);
  const literal = literalAddress(parsed.hostname);
  if (literal !== undefined && !addressAllowed(literal, allowLoopback)) {
    throw new AppError(ErrorCode.ValidationFailed, 'Webhook endpoints must be public addresses', {
      fields: [{ path: 'url', message: 'must not be a private, loopback, link-local or reserved address' }],
    });
  }
  return parsed.href;
}

export async function listEndpoints(tenantId: string, db = getPrisma()) {
  return { data: (await listRows(db, tenantId)).map(endpointView) };
}

export async function getEndpoint({ tenant_id, endpoint_id }: WebhookEndpointRefMessage, db = getPrisma()) {
  const row = await findEndpoint(db, tenant_id, endpoint_id);
  if (!row) throw notFound();
  return endpointView(row);
}

/** The secret is in this answer and nowhere else: only its sealed form is stored. */
export async function createEndpoint(
  { tenant_id, body }: WebhookEndpointCreateMessage,
  settings: EndpointSettings,
): Promise<WebhookEndpointCreated> {
  const db = settings.db ?? getPrisma();
  const url = reachableUrl(body.url, settings.allowLoopback);
  if ((await countEndpoints(db, tenant_id)) >= settings.maxEndpoints) {
    throw new AppError(
      ErrorCode.ValidationFailed,
      `A tenant may register at most ${settings.maxEndpoints} webhook endpoints`,
      { fields: [{ path: 'url', message: `at most ${settings.maxEndpoints} endpoints; delete one first` }] },
    );
  }
  const id = randomUUID();
  const secret = newSigningSecret();
  const row = await insertEndpoint(db, {
    id,
    tenantId: tenant_id,
    url,
    description: body.description,
    events: body.events,
    includeText: body.include_text,
    secretCiphertext: sealSigningSecret(settings.sealingKey, secret, id),
  });
  return { ...endpointView(row), secret };
}

/** Enabling clears the reason the service disabled it; its pending deliveries are then sent again. */
export async function updateEndpoint(
  { tenant_id, endpoint_id, body }: WebhookEndpointUpdateMessage,
  settings: EndpointSettings,
): Promise<WebhookEndpointView> {
  const url = body.url === undefined ? undefined : reachableUrl(body.url, settings.allowLoopback);
  const [row] = await writeEndpoint(settings.db ?? getPrisma(), tenant_id, endpoint_id, {
    ...(url !== undefined && { url }),
    ...(body.description !== undefined && { description: body.description }),
    ...(body.events !== undefined && { events: body.events }),
    ...(body.include_text !== undefined && { includeText: body.include_text }),
    ...(body.enabled !== undefined && { enabled: body.enabled, disabledReason: null }),
  });
  if (!row) throw notFound();
  return endpointView(row);
}

export async function deleteEndpoint(
  { tenant_id, endpoint_id }: WebhookEndpointRefMessage,
  db = getPrisma(),
) {
  const { count } = await removeEndpoint(db, tenant_id, endpoint_id);
  if (count === 0) throw notFound();
  return { id: endpoint_id, deleted: true as const };
}

/** A new secret, shown once; the one it replaces keeps signing beside it for ROTATION_OVERLAP_MS. */
export async function rotateSecret(
  { tenant_id, endpoint_id }: WebhookEndpointRefMessage,
  settings: EndpointSettings,
): Promise<WebhookSecretRotated> {
  const db = settings.db ?? getPrisma();
  const current = await findEndpoint(db, tenant_id, endpoint_id);
  if (!current) throw notFound();
  const secret = newSigningSecret();
  const expiresAt = new Date(Date.now() + ROTATION_OVERLAP_MS);
  const [row] = await writeEndpoint(db, tenant_id, endpoint_id, {
    secretCiphertext: sealSigningSecret(settings.sealingKey, secret, endpoint_id),
    previousSecretCiphertext: current.secretCiphertext,
    previousSecretExpiresAt: expiresAt,
  });
  if (!row) throw notFound();
  return { id: endpoint_id, secret, previous_secret_expires_at: expiresAt.toISOString() };
}
