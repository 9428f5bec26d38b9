import { AppError, ErrorCode, type StoredMemory, type TemplateMemory } from '@tm/contracts';
import { describe, expect, it } from 'vitest';
import type { MemoryClient } from '../src/clients/memory-client.js';
import type { TemplateClient } from '../src/clients/template-client.js';
import { readMemory } from '../src/domain/read-memory.js';

const scope = {
  tenant_id: 'tenant-a',
  user_id: 'user-a',
  key_id: 'key-a',
  storage_connection_id: 'storage-a',
  consent: 'granted' as const,
};
const stored = (source: StoredMemory['source']): StoredMemory => ({
  memory_id: '0190a0a0-0000-7000-8000-000000000001',
  namespace: 'notes',
  event_id: 'evt-1',
  occurred_at: '2026-11-22T09:00:00.000Z',
  text: 'Task "File taxes"',
  source,
  state: 'retained',
  superseded_at: null,
  retained_at: '2026-11-22T09:00:01.000Z',
});
const made: TemplateMemory = {
  memory_id: '0190a0a0-0000-7000-8000-000000000001',
  namespace: 'notes',
  data: { title: 'File taxes' },
  text: 'Task "File taxes"',
  template: {
    source: 'marketplace',
    template_id: null,
    template_name: 'Task',
    template_version: '1',
    template_revision: null,
    marketplace_template_id: 'task',
  },
  created_at: '2026-11-22T09:00:01.000Z',
};

function clients(record: StoredMemory, templateMemory: () => Promise<TemplateMemory>) {
  const asked: unknown[] = [];
  const memory = {
    get: async (msg: unknown) => {
      asked.push(msg);
      return record;
    },
  } as unknown as MemoryClient;
  const templates = { getMemory: templateMemory } as unknown as TemplateClient;
  return { asked, deps: { memory, templates } };
}

describe('readMemory', () => {
  it('when the record was written plainly, then it is answered without asking the template service', async () => {
    const { asked, deps } = clients(stored({ type: 'direct_user_input' }), async () => {
      throw new Error('must not be asked');
    });

    const memory = await readMemory(scope, 'req-1', made.memory_id, deps);

    expect(asked).toEqual([{ scope, request_id: 'req-1', memory_id: made.memory_id }]);
    expect(memory).toEqual({
      ...stored({ type: 'direct_user_input' }),
      data: null,
      template: null,
      created_at: '2026-11-22T09:00:01.000Z',
    });
  });

  it('when it was made from a template, then its data and template metadata are added', async () => {
    const { deps } = clients(stored({ type: 'template', id: 'marketplace:task@1' }), async () => made);

    const memory = await readMemory(scope, 'req-1', made.memory_id, deps);

    expect(memory).toMatchObject({ data: made.data, template: made.template, state: 'retained' });
  });

  it('when the template service holds no row for it, then it reads as a plain memory; an outage is an error', async () => {
    const source = { type: 'template', id: 'template:x@1' };
    const missing = clients(stored(source), async () => {
      throw new AppError(ErrorCode.NotFound, 'No such memory');
    });
    const down = clients(stored(source), async () => {
      throw new AppError(ErrorCode.ServiceUnavailable, 'template is unavailable');
    });

    await expect(readMemory(scope, 'r', made.memory_id, missing.deps)).resolves.toMatchObject({
      data: null,
      template: null,
    });
    await expect(readMemory(scope, 'r', made.memory_id, down.deps)).rejects.toMatchObject({
      code: 'service_unavailable',
    });
  });
});
