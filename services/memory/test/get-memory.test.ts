import { describe, expect, it } from 'vitest';
import { getMemory } from '../src/domain/get-memory.js';

const scope = {
  tenant_id: 'tenant-a',
  user_id: 'user-a',
  key_id: 'key-a',
  storage_connection_id: 'storage-a',
  consent: 'granted' as const,
};
// A database that must not be reached: ids that are not UUIDs name no record of a uuid column.
const unreachable = new Proxy(
  {},
  {
    get() {
      throw new Error('the database was asked');
    },
  },
) as Parameters<typeof getMemory>[1];

describe('getMemory', () => {
  it.each(['not-a-memory-id', "1' OR '1'='1", '0190a0a0-0000-7000-8000-00000000000'])(
    'when the id %j is not a UUID, then 404 not_found without a query',
    async (memoryId) => {
      await expect(
        getMemory({ scope, request_id: 'r', memory_id: memoryId }, unreachable),
      ).rejects.toMatchObject({ code: 'not_found', message: 'No such memory' });
    },
  );
});
