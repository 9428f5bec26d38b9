import type { ApiKeyView, OperatorTokenView, StorageConnectionView, UserView } from '@tm/contracts';

/** Rows to the API's shapes: internal columns (hashes, ciphertexts) never leave through here. */

export const userView = (u: {
  id: string;
  email: string | null;
  role: UserView['role'];
  status: UserView['status'];
  createdAt: Date;
}): UserView => ({
  id: u.id,
  email: u.email,
  role: u.role,
  status: u.status,
  created_at: u.createdAt.toISOString(),
});

export const apiKeyView = (k: {
  id: string;
  name: string;
  prefix: string;
  permissions: string[];
  storageConnectionId: string | null;
  userId: string;
  rotatedFromId: string | null;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}): ApiKeyView => ({
  id: k.id,
  name: k.name,
  prefix: k.prefix,
  masked_key: `${k.prefix}_${'*'.repeat(8)}`,
  status: k.revokedAt ? 'revoked' : 'active',
  permissions: k.permissions as ApiKeyView['permissions'],
  storage_connection_id: k.storageConnectionId,
  user_id: k.userId,
  rotated_from_id: k.rotatedFromId,
  created_at: k.createdAt.toISOString(),
  last_used_at: k.lastUsedAt?.toISOString() ?? null,
  revoked_at: k.revokedAt?.toISOString() ?? null,
});

export const storageConnectionView = (s: {
  id: string;
  name: string;
  kind: StorageConnectionView['kind'];
  status: StorageConnectionView['status'];
  settings: unknown;
  secretCiphertext: string | null;
  createdAt: Date;
  updatedAt: Date;
}): StorageConnectionView => ({
  id: s.id,
  name: s.name,
  kind: s.kind,
  status: s.status,
  dispatch: s.kind === 'managed' ? 'memory_requests' : 'control_plane_only',
  settings: (s.settings ?? {}) as Record<string, unknown>,
  secret_configured: s.secretCiphertext !== null,
  created_at: s.createdAt.toISOString(),
  updated_at: s.updatedAt.toISOString(),
});

export const operatorTokenView = (
  t: { id: string; name: string; prefix: string; createdAt: Date; expiresAt: Date; revokedAt: Date | null },
  now = new Date(),
): OperatorTokenView => ({
  id: t.id,
  name: t.name,
  prefix: t.prefix,
  status: t.revokedAt ? 'revoked' : t.expiresAt <= now ? 'expired' : 'active',
  created_at: t.createdAt.toISOString(),
  expires_at: t.expiresAt.toISOString(),
  revoked_at: t.revokedAt?.toISOString() ?? null,
});
