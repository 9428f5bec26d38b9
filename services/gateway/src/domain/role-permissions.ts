import { AppError, ErrorCode, type Role } from '@tm/contracts';

/**
 * What each role may do in the control plane (the table in docs/decisions.md). Everyone manages their
 * own password, sessions and consent; those need no entry here.
 */
export const ACTIONS = [
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

export const ROLE_PERMISSIONS: Record<Role, readonly Action[]> = {
  owner: ACTIONS,
  admin: [
    ...READ,
    'export:read',
    'users:manage',
    'keys:manage',
    'storage:manage',
    'billing:void',
    'billing:invoice',
  ],
  developer: [...READ, 'keys:manage'],
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
