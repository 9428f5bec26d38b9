import { describe, expect, it } from 'vitest';
import { API_KEY_PATTERN, generateApiKey, hashApiKey } from '../src/domain/identity/api-key-secret.js';

describe('generateApiKey', () => {
  it('then the key has the documented shape, starts with its visible prefix, and only its hash is kept', () => {
    const { key, prefix, secretHash } = generateApiKey();
    expect(key).toMatch(API_KEY_PATTERN);
    expect(key.startsWith(`${prefix}_`)).toBe(true);
    expect(secretHash).toBe(hashApiKey(key));
    expect(secretHash).not.toContain(key.slice(prefix.length + 1));
  });

  it('then two keys never repeat', () => {
    const keys = new Set(Array.from({ length: 1000 }, () => generateApiKey().key));
    expect(keys.size).toBe(1000);
  });
});
