import { describe, expect, it } from 'vitest';
import { requireStrongPassword } from '../src/domain/identity/password-strength.js';

const where = { field: 'new_password', what: 'password change' };
const context = { email: 'dana.miller@example.test', tenantName: 'Acme Research' };
const check = (password: string) => () => requireStrongPassword(password, where, context);

describe('password strength (zxcvbn, NIST SP 800-63B blocklist)', () => {
  it.each([
    'aaaaaaaaaaaa',
    'password1234',
    '123456789012',
    'qwertyuiop12',
    'dana.miller@example.test',
    'danamiller2026',
    'acmeresearch1',
  ])(
    "when the password is %j (common, trivial or from the user's details), then 400 naming the field and saying why",
    (password) => {
      expect(check(password)).toThrow(
        expect.objectContaining({
          status: 400,
          code: 'validation_failed',
          message: expect.stringMatching(/^Invalid password change: new_password is too easy to guess/),
          fields: [{ path: 'new_password', message: expect.stringMatching(/^is too easy to guess/) }],
        }),
      );
    },
  );

  it('when a password is refused, then the answer never contains it', () => {
    const password = 'password1234';
    let error: unknown;
    try {
      check(password)();
    } catch (e) {
      error = e;
    }

    expect(JSON.stringify(error)).not.toContain(password);
    expect((error as Error).message).not.toContain(password);
  });

  it.each(['correct horse battery staple', 'pw-0b5c5c8e-8a4f-4d8f-9f7e-2f0c1d6c3b9a', 'Kq4v-Tnw8-zrP2'])(
    'when the password is %j, then it is accepted',
    (password) => {
      expect(check(password)).not.toThrow();
    },
  );

  it('when a password is longer than 64 characters, then its first 64 are scored (64 of one letter are refused, whatever follows)', () => {
    expect(check(`${'x'.repeat(64)} and a long tail that is never scored`)).toThrow(
      expect.objectContaining({ code: 'validation_failed' }),
    );
    expect(check(`correct horse battery staple ${'x'.repeat(200)}`)).not.toThrow();
  });
});
