import { randomUUID } from 'node:crypto';
import { bootstrapTenant } from '@tm/gateway';
import { describe, expect, it } from 'vitest';
import { controlSteps, PASSWORD, suffix, USERS } from '../support/control.js';
import { createTenant } from '../support/factories.js';
import { useStack } from '../support/stack.js';

const t = useStack();
const { login } = controlSteps(t);

// 12 characters were enough before. NIST SP 800-63B asks to refuse common, expected or
// compromised values; zxcvbn (with its dictionaries) judges them. The user-context one is the email.
const TRIVIAL = ['aaaaaaaaaaaa', 'password1234', '123456789012'];
const withEmail = (email: string) => `${email}!`;
const STRONG = () => `correct horse battery staple ${suffix()}`;

/** A 400 naming `field`, saying why, and never carrying the password. */
function expectTooWeak(res: { status: number; body: unknown }, field: string, password: string) {
  expect(res).toMatchObject({
    status: 400,
    body: {
      error: expect.stringMatching(new RegExp(`: ${field} is too easy to guess`)),
      retryable: false,
      details: {
        code: 'validation_failed',
        fields: [{ path: field, message: expect.stringMatching(/^is too easy to guess/) }],
      },
    },
  });
  expect(JSON.stringify(res.body)).not.toContain(password);
}

describe('POST /api/v1/control/users: the initial password', () => {
  it("when it is trivial, common or made from the new user's email, then 400 naming password and no user is created", async () => {
    const tenant = await createTenant();
    const token = await t.api.login(tenant.owner.email, tenant.owner.password);
    const email = `dana-${suffix()}@example.test`;

    for (const password of [...TRIVIAL, withEmail(email)]) {
      const res = await t.api.post(USERS, { key: token, body: { email, password, role: 'developer' } });
      expectTooWeak(res, 'password', password);
    }

    const users = await t.api.get(USERS, { key: token });
    expect(users.body.data.map((u: { email: string }) => u.email)).toEqual([tenant.owner.email]);
  });

  it('when it is strong, then 201 and the user logs in with it', async () => {
    const tenant = await createTenant();
    const token = await t.api.login(tenant.owner.email, tenant.owner.password);
    const email = `dana-${suffix()}@example.test`;
    const password = STRONG();

    const res = await t.api.post(USERS, { key: token, body: { email, password, role: 'developer' } });

    expect(res).toMatchObject({ status: 201, body: { email, role: 'developer' } });
    expect((await login(email, password)).status).toBe(201);
  });
});

describe('POST /api/v1/control/account/password: the new password', () => {
  it("when it is trivial, common or made from the user's email, then 400 naming new_password and the password is unchanged", async () => {
    const tenant = await createTenant();
    const token = await t.api.login(tenant.owner.email, tenant.owner.password);

    for (const password of [...TRIVIAL, withEmail(tenant.owner.email)]) {
      const res = await t.api.post(PASSWORD, {
        key: token,
        body: { current_password: tenant.owner.password, new_password: password },
      });
      expectTooWeak(res, 'new_password', password);
      expect((await login(tenant.owner.email, password)).status).toBe(401);
    }

    expect((await login(tenant.owner.email, tenant.owner.password)).status).toBe(201);
  });

  it('when it is strong, then 204 and it logs in', async () => {
    const tenant = await createTenant();
    const token = await t.api.login(tenant.owner.email, tenant.owner.password);
    const password = STRONG();

    const res = await t.api.post(PASSWORD, {
      key: token,
      body: { current_password: tenant.owner.password, new_password: password },
    });

    expect(res.status).toBe(204);
    expect((await login(tenant.owner.email, password)).status).toBe(201);
  });
});

describe('bootstrapTenant (the admin command): the owner password', () => {
  it("when it is trivial, common or made from the owner's email, then it is refused naming password and no owner can log in", async () => {
    const email = `boot-${suffix()}@example.test`;

    for (const password of [...TRIVIAL, withEmail(email)]) {
      const refused = await bootstrapTenant({ name: `boot-${suffix()}`, email, password }).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(refused).toMatchObject({
        status: 400,
        code: 'validation_failed',
        message: expect.stringMatching(/: password is too easy to guess/),
        fields: [{ path: 'password' }],
      });
      expect((refused as Error).message).not.toContain(password);
      expect((await login(email, password)).status).toBe(401);
    }
  });

  it('when it is strong (the command generates 24 random characters), then the owner logs in with it', async () => {
    const email = `boot-${suffix()}@example.test`;
    const password = randomUUID().replaceAll('-', '').slice(0, 24);

    const created = await bootstrapTenant({ name: `boot-${suffix()}`, email, password });

    expect(created).toMatchObject({ owner_email: email });
    expect((await login(email, password)).status).toBe(201);
  });
});
