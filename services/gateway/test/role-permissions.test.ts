import { ROLES } from '@tm/contracts';
import { describe, expect, it } from 'vitest';
import {
  ACTIONS,
  ROLE_PERMISSIONS,
  requireRole,
  roleAllows,
} from '../src/domain/identity/role-permissions.js';

describe('role permissions', () => {
  it('when roles are ordered owner > admin > developer > viewer, then each holds what the next holds', () => {
    for (let i = 1; i < ROLES.length; i++) {
      const stronger = ROLE_PERMISSIONS[ROLES[i - 1] as (typeof ROLES)[number]];
      for (const action of ROLE_PERMISSIONS[ROLES[i] as (typeof ROLES)[number]]) {
        expect(stronger).toContain(action);
      }
    }
    expect(ROLE_PERMISSIONS.owner).toEqual(ACTIONS);
  });

  it('when a viewer or developer tries a managing action, then it is refused with 403', () => {
    expect(roleAllows('viewer', 'keys:read')).toBe(true);
    expect(roleAllows('viewer', 'keys:manage')).toBe(false);
    expect(roleAllows('developer', 'keys:manage')).toBe(true);
    expect(roleAllows('developer', 'users:manage')).toBe(false);
    expect(roleAllows('admin', 'operator-tokens:manage')).toBe(false);
    expect(() => requireRole('viewer', 'storage:manage')).toThrow(
      expect.objectContaining({ code: 'permission_denied', status: 403 }),
    );
  });
});
