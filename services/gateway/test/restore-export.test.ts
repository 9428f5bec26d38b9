import { AppError } from '@tm/contracts';
import { describe, expect, it } from 'vitest';
import { readRestore } from '../src/domain/data-plane/restore-export.js';

const record = (namespace: string, eventId: string, retainedAt: string, memoryId: string) => ({
  memory_id: memoryId,
  event_id: eventId,
  namespace,
  occurred_at: '2026-01-01T08:00:00.000Z',
  retained_at: retainedAt,
  text: `text of ${eventId}`,
  source: eventId === 'a' ? { type: 'direct_user_input', id: 'chat-1' } : null,
  status: 'current' as const,
  superseded_at: null,
});

const relation = (namespace: string, by: string, target: string) => ({
  namespace,
  superseding_event_id: by,
  superseding_memory_id: '0190a0a0-0000-7000-8000-000000000000',
  target_event_id: target,
  target_memory_id: null,
  status: 'unresolved' as const,
  recorded_at: '2026-01-01T08:00:00.000Z',
});

function file(records: ReturnType<typeof record>[], relations: ReturnType<typeof relation>[] = []) {
  return {
    contract_version: 'v1',
    request_id: 'r',
    exported_at: '2026-01-02T00:00:00.000Z',
    selection: { namespaces: null },
    records,
    supersession_relations: relations,
    history: [],
    counts: { records: records.length, supersession_relations: relations.length, history: 0 },
    complete: true,
  };
}

function thrownBy(attempt: () => unknown): unknown {
  try {
    attempt();
  } catch (err) {
    return err;
  }
  throw new Error('did not throw');
}

describe('readRestore', () => {
  it('when records come in export order, then they are written in the order first retained (ties by memory id), each with its supersedes in relation order', () => {
    const doc = file(
      [
        record('ns', 'a', '2026-01-01T10:00:02.000Z', '0190a0a0-0000-7000-8000-000000000003'),
        record('ns', 'b', '2026-01-01T10:00:01.000Z', '0190a0a0-0000-7000-8000-000000000002'),
        record('ns', 'c', '2026-01-01T10:00:01.000Z', '0190a0a0-0000-7000-8000-000000000001'),
        record('other', 'z', '2026-01-01T09:00:00.000Z', '0190a0a0-0000-7000-8000-000000000009'),
      ],
      [relation('ns', 'a', 'c'), relation('ns', 'a', 'gone'), relation('other', 'z', 'y')],
    );

    const restore = readRestore(doc, { from_namespace: 'ns', namespace: 'copy' });

    expect(restore).toEqual({
      namespace: 'copy',
      fromNamespace: 'ns',
      rows: [
        { event: { event_id: 'c', occurred_at: '2026-01-01T08:00:00.000Z', content: { text: 'text of c' } } },
        { event: { event_id: 'b', occurred_at: '2026-01-01T08:00:00.000Z', content: { text: 'text of b' } } },
        {
          event: {
            event_id: 'a',
            occurred_at: '2026-01-01T08:00:00.000Z',
            content: { text: 'text of a' },
            source: { type: 'direct_user_input', id: 'chat-1' },
            supersedes: ['c', 'gone'],
          },
        },
      ],
    });
  });

  it('when no target is named, then the records go to the namespace they came from', () => {
    const doc = file([record('ns', 'a', '2026-01-01T10:00:00.000Z', '0190a0a0-0000-7000-8000-000000000001')]);

    expect(readRestore(doc, {})).toMatchObject({ namespace: 'ns', fromNamespace: 'ns' });
  });

  it.each([
    [
      'counts that do not match',
      { ...file([]), counts: { records: 1, supersession_relations: 0, history: 0 } },
      'counts',
    ],
    ['a cut file', { ...file([]), complete: false }, 'complete'],
    ['another contract version', { ...file([]), contract_version: 'v2' }, 'contract_version'],
    [
      'a namespace the file does not hold',
      file([record('ns', 'a', '2026-01-01T10:00:00.000Z', '0190a0a0-0000-7000-8000-000000000001')]),
      'from_namespace',
    ],
  ])('when the file has %s, then one 400 naming it', (_label, doc, path) => {
    const error = thrownBy(() =>
      readRestore(doc, { from_namespace: path === 'from_namespace' ? 'elsewhere' : undefined }),
    );

    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ status: 400, fields: [expect.objectContaining({ path })] });
  });
});
