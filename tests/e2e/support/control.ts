import { randomUUID } from 'node:crypto';
import type { Role } from '@tm/contracts';
import { expect } from 'vitest';
import type { Api } from './api.js';
import { createTenant, recallBody, uniqueNamespace } from './factories.js';

/** Shared by the control-plane files (control-sessions, control-account, control-users, control-api-keys). */
export const SESSIONS = '/api/v1/control/sessions';
export const CURRENT_SESSION = '/api/v1/control/sessions/current';
export const ACCOUNT = '/api/v1/control/account';
export const PASSWORD = '/api/v1/control/account/password';
export const USERS = '/api/v1/control/users';
export const API_KEYS = '/api/v1/control/api-keys';

export const UNAUTHENTICATED = {
  status: 401,
  body: { retryable: false, details: { code: 'authentication_required' } },
};
export const PERMISSION_DENIED = {
  status: 403,
  body: { retryable: false, details: { code: 'permission_denied' } },
};
export const NOT_ACCEPTED = {
  status: 403,
  body: { retryable: false, details: { code: 'credential_not_accepted' } },
};
/** Any ISO time, where the exact value is not the point. */
export const TIMESTAMP = expect.stringMatching(/^\d{4}-\d\d-\d\dT/);
export const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

type Tenant = Awaited<ReturnType<typeof createTenant>>;

export const suffix = () => randomUUID().slice(0, 8);

/** Session and user steps on a file's stack; `t.api` is read at call time, once `beforeAll` has set it. */
export function controlSteps(t: { api: Api }) {
  const login = (email: string, password: string) => t.api.post(SESSIONS, { body: { email, password } });
  const account = (token: string, api: Api = t.api) => api.get(ACCOUNT, { key: token });
  const recallWith = (key: string, api: Api = t.api) => api.recall(key, recallBody(uniqueNamespace(), 'x'));

  /** A new user of the signed-in owner's (or admin's) tenant, with a password they can log in with. */
  async function addUser(token: string, role: Role) {
    const email = `${role}-${suffix()}@example.test`;
    const password = `pw-${randomUUID()}`;
    const res = await t.api.post(USERS, { key: token, body: { email, password, role } });
    expect(res.status).toBe(201);
    return { id: res.body.id as string, email, password };
  }

  /** A tenant and its owner's session token. */
  async function tenantWithSession(
    options: { consent?: boolean } = {},
  ): Promise<Tenant & { session: string }> {
    const tenant = await createTenant(options);
    return { ...tenant, session: await t.api.login(tenant.owner.email, tenant.owner.password) };
  }

  return { login, account, recallWith, addUser, tenantWithSession };
}
