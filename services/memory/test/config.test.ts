import { ConfigError } from '@tm/kit';
import { describe, expect, it } from 'vitest';
import { loadMemoryConfig, MEMORY_DELETE_WAIT_MAX_MS } from '../src/config.js';

describe('memory configuration', () => {
  it('when MEMORY_DELETE_WAIT_MS would outlast the gateway deadline, then the configuration is refused naming it', () => {
    expect(() => loadMemoryConfig({ MEMORY_DELETE_WAIT_MS: '30000' })).toThrow(ConfigError);
    expect(() => loadMemoryConfig({ MEMORY_DELETE_WAIT_MS: '5000' })).toThrow(/MEMORY_DELETE_WAIT_MS/);
  });

  it('when MEMORY_DELETE_WAIT_MS is at most the cap, then it is taken', () => {
    expect(loadMemoryConfig({ MEMORY_DELETE_WAIT_MS: String(MEMORY_DELETE_WAIT_MAX_MS) })).toMatchObject({
      MEMORY_DELETE_WAIT_MS: MEMORY_DELETE_WAIT_MAX_MS,
    });
    expect(loadMemoryConfig({})).toMatchObject({ MEMORY_DELETE_WAIT_MS: 2_000 });
  });
});
