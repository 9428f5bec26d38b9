import { describe, expect, it } from 'vitest';
import { hashPassword, verifyPassword } from '../src/domain/identity/password-hash.js';

const FROM = { from: '203.0.113.7' };

describe('password hashing (scrypt)', () => {
  it('when the same password is given, then it verifies; another does not', async () => {
    const stored = await hashPassword('correct horse battery staple', FROM);

    expect(stored).toMatch(/^scrypt\$32768\$8\$1\$[\w-]+\$[\w-]+$/);
    expect(await verifyPassword('correct horse battery staple', stored, FROM)).toBe(true);
    expect(await verifyPassword('correct horse battery stapler', stored, FROM)).toBe(false);
  });

  it('when a password is hashed twice, then the salts differ', async () => {
    expect(await hashPassword('same password', FROM)).not.toBe(await hashPassword('same password', FROM));
  });

  it('when the stored hash is malformed, then nothing verifies', async () => {
    expect(await verifyPassword('x', 'md5$abc', FROM)).toBe(false);
    expect(await verifyPassword('x', '', FROM)).toBe(false);
  });
});
