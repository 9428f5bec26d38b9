import { AppError, ErrorCode, KEY_PERMISSIONS, type KeyPermission, type Role } from '@tm/contracts';

/**
 * What each role may do (the table in docs/decisions/control-plane.md): in the control plane with a session, and
 * through any API key acting for a user of that role, which never holds more than the role allows.
 * Everyone manages their own password, sessions and consent; those need no entry here.
 */
export const ACTIONS = [
  'memory:write',
  'memory:recall',
  'memory:delete',
  'account:read',
  'users:read',
  'users:manage',
  'keys:read',
  'keys:manage',
  'storage:read',
  'storage:manage',
  'operator-tokens:manage',
  'usage:read',
  'telemetry:read',
  'export:read',
  'billing:read',
  'billing:void',
  'billing:invoice',
  /** register webhook endpoints and read their delivery log (owner and admin). */
  'webhooks:manage',
] as const;
export type Action = (typeof ACTIONS)[number];

const READ: Action[] = [
  'account:read',
  'users:read',
  'keys:read',
  'storage:read',
  'usage:read',
  'telemetry:read',
  'billing:read',
];

const USE_MEMORY: Action[] = ['memory:write', 'memory:recall', 'memory:delete'];

export const ROLE_PERMISSIONS: Record<Role, readonly Action[]> = {
  owner: ACTIONS,
  admin: [
    ...READ,
    ...USE_MEMORY,
    'export:read',
    'users:manage',
    'keys:manage',
    'storage:manage',
    'billing:void',
    'billing:invoice',
    'webhooks:manage',
  ],
  developer: [...READ, ...USE_MEMORY, 'keys:manage'],
  viewer: READ,
};

export function roleAllows(role: Role, action: Action): boolean {
  return ROLE_PERMISSIONS[role].includes(action);
}

export function requireRole(role: Role, action: Action): void {
  if (!roleAllows(role, action)) {
    throw new AppError(ErrorCode.PermissionDenied, `Your role (${role}) does not allow ${action}`);
  }
}

/**
 * Acting on another user, or on what acts for them (their API keys): only an owner may manage an
 * owner. The one rule for creating, changing or disabling a user and for editing, revoking or
 * rotating their keys, so an admin can never come to hold a key that acts as an owner.
 */
export function requireRoleOver(actorRole: Role, targetRole: Role, what = 'owners'): void {
  if (targetRole === 'owner' && actorRole !== 'owner') {
    throw new AppError(ErrorCode.PermissionDenied, `Only an owner can manage ${what}`);
  }
}

/** The key permissions a user of `role` may hold: what a key of theirs is created with by default. */
export function keyPermissionsOf(role: Role): KeyPermission[] {
  return KEY_PERMISSIONS.filter((permission) => roleAllows(role, permission));
}

/** A key may be given only permissions its user's role holds (403 naming each one that is not). */
export function requireKeyPermissionsWithin(role: Role, permissions: readonly KeyPermission[]): void {
  const beyond = permissions.filter((permission) => !roleAllows(role, permission));
  if (beyond.length > 0) {
    throw new AppError(
      ErrorCode.PermissionDenied,
      `Your role (${role}) does not allow an API key with ${beyond.join(', ')}`,
      {
        fields: [
          { path: 'permissions', message: `beyond what the role ${role} allows: ${beyond.join(', ')}` },
        ],
      },
    );
  }
}
