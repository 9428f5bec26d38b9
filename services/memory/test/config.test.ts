import { ConfigError } from '@tm/kit';
import { describe, expect, it } from 'vitest';
import { loadMemoryConfig, MEMORY_DELETE_WAIT_MAX_MS, MEMORY_RECALL_MAX_WAIT_MAX_MS } from '../src/config.js';

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

  it('when the re-index settings are unset, then batches of 500 records and a 5 s poll', () => {
    expect(loadMemoryConfig({})).toMatchObject({ REINDEX_BATCH_SIZE: 500, REINDEX_POLL_MS: 5_000 });
    expect(loadMemoryConfig({ REINDEX_BATCH_SIZE: '20', REINDEX_POLL_MS: '100' })).toMatchObject({
      REINDEX_BATCH_SIZE: 20,
      REINDEX_POLL_MS: 100,
    });
  });

  it('when a re-index setting is out of range or not a number, then the configuration is refused naming it', () => {
    for (const bad of ['0', '-5', '50001', 'lots', '1.5']) {
      expect(() => loadMemoryConfig({ REINDEX_BATCH_SIZE: bad })).toThrow(/REINDEX_BATCH_SIZE/);
    }
    for (const bad of ['0', '49', '600001', 'soon']) {
      expect(() => loadMemoryConfig({ REINDEX_POLL_MS: bad })).toThrow(/REINDEX_POLL_MS/);
    }
  });

  it('when the recall admission settings are unset, then two slots a tenant and eight recalls waiting, eight of all tenants run and 64 wait, for at most 2 s', () => {
    expect(loadMemoryConfig({})).toMatchObject({
      MEMORY_RECALL_TENANT_CONCURRENCY: 2,
      MEMORY_RECALL_TENANT_QUEUE: 64,
      MEMORY_RECALL_CONCURRENCY: 8,
      MEMORY_RECALL_QUEUE: 256,
      MEMORY_RECALL_MAX_WAIT_MS: 2_000,
    });
  });

  it('when MEMORY_RECALL_MAX_WAIT_MS would leave a recall no time inside the gateway deadline, or a recall slot count is 0, then the configuration is refused naming it', () => {
    expect(
      loadMemoryConfig({ MEMORY_RECALL_MAX_WAIT_MS: String(MEMORY_RECALL_MAX_WAIT_MAX_MS) }),
    ).toMatchObject({ MEMORY_RECALL_MAX_WAIT_MS: MEMORY_RECALL_MAX_WAIT_MAX_MS });
    expect(() => loadMemoryConfig({ MEMORY_RECALL_MAX_WAIT_MS: '4000' })).toThrow(
      /MEMORY_RECALL_MAX_WAIT_MS/,
    );
    expect(() => loadMemoryConfig({ MEMORY_RECALL_TENANT_CONCURRENCY: '0' })).toThrow(
      /MEMORY_RECALL_TENANT_CONCURRENCY/,
    );
    expect(() => loadMemoryConfig({ MEMORY_RECALL_CONCURRENCY: 'many' })).toThrow(
      /MEMORY_RECALL_CONCURRENCY/,
    );
  });
});
