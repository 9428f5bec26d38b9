import type { Schemas } from '@text-memory/sdk';

export type KeyPermission = Schemas['ApiKey']['permissions'][number];
export type Role = Schemas['User']['role'];

/**
 * What each key permission lets a key do, one entry per value of the schema's enum: a `Record` over
 * the generated type, so a permission added to the API fails the console's type check until it is here.
 */
export const KEY_PERMISSION_LABELS: Record<KeyPermission, string> = {
  'memory:write': 'write memories',
  'memory:recall': 'recall memories',
  'memory:delete': 'delete namespaces',
  'telemetry:read': 'read telemetry',
  'export:read': 'export retained text',
};
export const KEY_PERMISSIONS = Object.keys(KEY_PERMISSION_LABELS) as KeyPermission[];

/**
 * The roles, strongest first (the schema's enum, checked the same way). Which actions each one holds is
 * the table in docs/decisions/control-plane.md; the API reports only the signed-in user's own, so it is not copied here.
 */
const ROLE_ORDER: Record<Role, number> = { owner: 0, admin: 1, developer: 2, viewer: 3 };
export const ROLES = (Object.keys(ROLE_ORDER) as Role[]).sort((a, b) => ROLE_ORDER[a] - ROLE_ORDER[b]);

/**
 * The roles `role` may give and the users whose role and status it may change: only an owner creates,
 * changes or disables an owner (docs/decisions/control-plane.md, "Roles"); the server refuses the others with 403.
 */
export const rolesGivenBy = (role: Role): Role[] =>
  role === 'owner' ? ROLES : ROLES.filter((r) => r !== 'owner');
export const mayManageUserOf = (role: Role, target: Role): boolean => rolesGivenBy(role).includes(target);
