import { z } from 'zod';

/**
 * The control plane: accounts, sessions, API keys, storage connections, consent and operator tokens.
 * Paths live under /api/v1/control (docs/decisions/control-plane.md). Bodies are strict: an unknown field is a 400,
 * so a misspelt setting is never silently ignored.
 */

export const ROLES = ['owner', 'admin', 'developer', 'viewer'] as const;
export const Role = z.enum(ROLES);
export type Role = z.infer<typeof Role>;

/**
 * What an API key may do. A key holds at most what its user's role allows (docs/decisions/control-plane.md); one
 * created without a list gets every permission of its creator's role.
 */
export const KEY_PERMISSIONS = [
  'memory:write',
  'memory:recall',
  'memory:delete',
  'telemetry:read',
  'export:read',
] as const;
export const KeyPermission = z.enum(KEY_PERMISSIONS);
export type KeyPermission = z.infer<typeof KeyPermission>;

export const Email = z
  .string()
  .trim()
  .toLowerCase()
  .max(254)
  .pipe(z.email({ message: 'must be an email address' }));

/** Long passphrases welcome; the upper bound only keeps the KDF's input sane. */
export const Password = z
  .string()
  .min(12, 'password must be at least 12 characters')
  .max(256, 'password must be at most 256 characters');

const Name = z
  .string()
  .trim()
  .min(1, 'name must not be empty')
  .max(100, 'name must be at most 100 characters');
const Id = z.uuid({ message: 'must be an id returned by this API' });
const Timestamp = z.iso.datetime({ offset: true });

// ---- sessions and account -----------------------------------------------------------------------

export const LoginRequest = z.strictObject({ email: Email, password: z.string().min(1).max(256) }).meta({
  id: 'LoginRequest',
});

export const UserView = z
  .object({
    id: z.string(),
    email: z.string().nullable(),
    role: Role,
    status: z.enum(['active', 'disabled']),
    created_at: Timestamp,
  })
  .meta({ id: 'User' });
export type UserView = z.infer<typeof UserView>;

export const TenantView = z.object({ id: z.string(), name: z.string() }).meta({ id: 'Tenant' });

export const SessionCreated = z
  .object({
    token: z.string().meta({ description: 'Send as Authorization: Bearer <SESSION_TOKEN>; shown once' }),
    token_type: z.literal('Bearer'),
    expires_at: Timestamp,
    user: UserView,
    tenant: TenantView,
  })
  .meta({ id: 'SessionCreated' });
export type SessionCreated = z.infer<typeof SessionCreated>;

export const ConsentView = z
  .object({
    purpose: z.literal('private_memory'),
    state: z.enum(['granted', 'revoked', 'missing']),
    updated_at: Timestamp.nullable(),
  })
  .meta({ id: 'Consent' });
export type ConsentView = z.infer<typeof ConsentView>;

export const AccountView = z
  .object({
    tenant: TenantView,
    user: UserView,
    consent: ConsentView,
    permissions: z.array(z.string()).meta({ description: "What the signed-in user's role allows" }),
    session: z.object({ expires_at: Timestamp }),
  })
  .meta({ id: 'Account' });
export type AccountView = z.infer<typeof AccountView>;

export const PasswordChangeRequest = z
  .strictObject({ current_password: z.string().min(1).max(256), new_password: Password })
  .meta({ id: 'PasswordChangeRequest' });

// ---- users ----------------------------------------------------------------------------------------

export const UserCreateRequest = z
  .strictObject({ email: Email, password: Password, role: Role })
  .meta({ id: 'UserCreateRequest' });
export const UserUpdateRequest = z
  .strictObject({ role: Role.optional(), status: z.enum(['active', 'disabled']).optional() })
  .refine((b) => b.role !== undefined || b.status !== undefined, 'give role or status')
  .meta({ id: 'UserUpdateRequest' });
export const UserList = z.object({ data: z.array(UserView) }).meta({ id: 'UserList' });

// ---- API keys ------------------------------------------------------------------------------------

export const ApiKeyView = z
  .object({
    id: z.string(),
    name: z.string(),
    prefix: z.string().meta({ description: 'Visible start of the key, for identification' }),
    masked_key: z.string().meta({ description: 'The prefix and a mask; the secret is never shown again' }),
    status: z.enum(['active', 'revoked']),
    permissions: z.array(KeyPermission),
    storage_connection_id: z.string().nullable(),
    user_id: z.string().meta({ description: 'The user the key acts for (their consent applies)' }),
    rotated_from_id: z.string().nullable(),
    created_at: Timestamp,
    last_used_at: Timestamp.nullable().meta({ description: 'Accurate to about a minute' }),
    revoked_at: Timestamp.nullable(),
  })
  .meta({ id: 'ApiKey' });
export type ApiKeyView = z.infer<typeof ApiKeyView>;

export const ApiKeyCreated = ApiKeyView.extend({
  key: z.string().meta({ description: 'The full key: shown only in this response' }),
}).meta({ id: 'ApiKeyCreated' });
export type ApiKeyCreated = z.infer<typeof ApiKeyCreated>;

const Permissions = z
  .array(KeyPermission)
  .min(1, 'give at least one permission')
  .refine((p) => new Set(p).size === p.length, 'permissions must not repeat');

export const ApiKeyCreateRequest = z
  .strictObject({
    name: Name,
    permissions: Permissions.optional(),
    storage_connection_id: Id.nullable().optional().meta({
      description: "Omitted: the tenant's first active managed connection. null: no connection attached",
    }),
  })
  .meta({ id: 'ApiKeyCreateRequest' });
export type ApiKeyCreateRequest = z.infer<typeof ApiKeyCreateRequest>;

export const ApiKeyUpdateRequest = z
  .strictObject({ name: Name.optional(), permissions: Permissions.optional() })
  .refine((b) => b.name !== undefined || b.permissions !== undefined, 'give name or permissions')
  .meta({ id: 'ApiKeyUpdateRequest' });

export const StorageAttachRequest = z
  .strictObject({ storage_connection_id: Id })
  .meta({ id: 'StorageAttachRequest' });

export const ApiKeyList = z.object({ data: z.array(ApiKeyView) }).meta({ id: 'ApiKeyList' });

// ---- storage connections ---------------------------------------------------------------------------

/** Non-secret settings of a customer-owned PostgreSQL connection; the password goes in `secret`. */
export const CustomerStorageSettings = z
  .strictObject({
    engine: z.literal('postgresql'),
    host: z
      .string()
      .min(1)
      .max(253)
      .regex(/^[A-Za-z0-9.-]+$|^\[[0-9A-Fa-f:.]+\]$/, 'must be a host name or an address'),
    port: z.number().int().min(1).max(65_535).default(5432),
    database: z.string().min(1).max(63),
    username: z.string().min(1).max(63),
    ssl_mode: z.enum(['disable', 'require', 'verify-full']).default('verify-full'),
  })
  .meta({ id: 'CustomerStorageSettings' });

const Secret = z.string().min(1, 'secret must not be empty').max(4096).meta({ description: 'Write-only' });

export const StorageConnectionCreateRequest = z
  .discriminatedUnion('kind', [
    z.strictObject({ kind: z.literal('managed'), name: Name }),
    z.strictObject({
      kind: z.literal('customer_owned'),
      name: Name,
      settings: CustomerStorageSettings,
      secret: Secret,
    }),
  ])
  .meta({ id: 'StorageConnectionCreateRequest' });
export type StorageConnectionCreateRequest = z.infer<typeof StorageConnectionCreateRequest>;

export const StorageConnectionUpdateRequest = z
  .strictObject({
    name: Name.optional(),
    status: z.enum(['active', 'disabled']).optional(),
    settings: CustomerStorageSettings.optional(),
    secret: Secret.optional(),
  })
  .refine((b) => Object.values(b).some((v) => v !== undefined), 'give at least one field')
  .meta({ id: 'StorageConnectionUpdateRequest' });
export type StorageConnectionUpdateRequest = z.infer<typeof StorageConnectionUpdateRequest>;

export const StorageConnectionView = z
  .object({
    id: z.string(),
    name: z.string(),
    kind: z.enum(['managed', 'customer_owned']),
    status: z.enum(['active', 'disabled']),
    dispatch: z.enum(['memory_requests', 'control_plane_only']).meta({
      description: 'managed: memory requests run on it. customer_owned: configurable only',
    }),
    settings: z.record(z.string(), z.unknown()),
    secret_configured: z.boolean(),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: 'StorageConnection' });
export type StorageConnectionView = z.infer<typeof StorageConnectionView>;

export const StorageConnectionList = z
  .object({ data: z.array(StorageConnectionView) })
  .meta({ id: 'StorageConnectionList' });

// ---- consent -------------------------------------------------------------------------------------

export const ConsentEventView = z
  .object({
    state: z.enum(['granted', 'revoked']),
    actor_user_id: z.string().nullable(),
    request_id: z.string().nullable(),
    occurred_at: Timestamp,
  })
  .meta({ id: 'ConsentEvent' });
export const ConsentHistory = z
  .object({ purpose: z.literal('private_memory'), data: z.array(ConsentEventView) })
  .meta({ id: 'ConsentHistory' });

// ---- operator tokens -------------------------------------------------------------------------------

export const OPERATOR_TOKEN_TTL_HOURS = { min: 1, max: 720, default: 24 } as const;

export const OperatorTokenCreateRequest = z
  .strictObject({
    name: Name,
    ttl_hours: z
      .number()
      .int()
      .min(OPERATOR_TOKEN_TTL_HOURS.min)
      .max(OPERATOR_TOKEN_TTL_HOURS.max)
      .default(OPERATOR_TOKEN_TTL_HOURS.default),
  })
  .meta({ id: 'OperatorTokenCreateRequest' });

export const OperatorTokenView = z
  .object({
    id: z.string(),
    name: z.string(),
    prefix: z.string(),
    status: z.enum(['active', 'expired', 'revoked']),
    created_at: Timestamp,
    expires_at: Timestamp,
    revoked_at: Timestamp.nullable(),
  })
  .meta({ id: 'OperatorToken' });
export type OperatorTokenView = z.infer<typeof OperatorTokenView>;
export const OperatorTokenCreated = OperatorTokenView.extend({
  token: z.string().meta({ description: 'Send as X-Operator-Token; shown only in this response' }),
}).meta({ id: 'OperatorTokenCreated' });
export const OperatorTokenList = z
  .object({ data: z.array(OperatorTokenView) })
  .meta({ id: 'OperatorTokenList' });
