import { describe, expect, it } from 'vitest';
import {
  CreateTemplateMemoryRequest,
  fieldIssues,
  JSON_BOUNDS,
  MemoryWriteMessage,
  StorageConnectionCreateRequest,
  tolerantOf,
} from '../src/index.js';

const scope = {
  tenant_id: 't',
  user_id: 'u',
  key_id: 'k',
  storage_connection_id: 's',
  consent: 'granted',
};
const writeMessage = (extra: Record<string, unknown> = {}, supersedes = ['a']) => ({
  scope,
  request_id: 'req_1',
  idempotency_key: 'key-1',
  ...extra,
  body: {
    contract_version: 'v1',
    namespace: 'ns',
    ...extra,
    event: {
      occurred_at: '2026-11-26T00:00:00Z',
      content: { text: 'hello', ...extra },
      supersedes,
      ...extra,
    },
  },
});

describe('tolerantOf', () => {
  it('when a message carries fields the strict schema does not know, at any level, then the tolerant schema drops them and the strict one still refuses them', () => {
    const message = writeMessage({ added_later: 1 });

    expect(tolerantOf(MemoryWriteMessage).parse(message)).toEqual(writeMessage());
    expect(fieldIssues(MemoryWriteMessage.safeParse(message).error as never).map((f) => f.path)).toEqual([
      'body.event.content.added_later',
      'body.event.added_later',
      'body.added_later',
    ]);
  });

  it('when a message breaks a refinement or a refused field, then the tolerant schema still refuses it', () => {
    const repeated = tolerantOf(MemoryWriteMessage).safeParse(writeMessage({}, ['a', 'a']));
    expect(fieldIssues(repeated.error as never)).toEqual([
      { path: 'body.event.supersedes', message: 'supersedes must not repeat an event id' },
    ]);
    const scoped = writeMessage();
    const named = tolerantOf(MemoryWriteMessage).safeParse({
      ...scoped,
      body: { ...scoped.body, tenant_id: 'x' },
    });
    expect(fieldIssues(named.error as never).map((f) => f.path)).toEqual(['body.tenant_id']);
    const deep = tolerantOf(CreateTemplateMemoryRequest).safeParse({
      marketplace_template_id: 'task',
      data: { title: 'x', steps: JSON.parse(`${'['.repeat(40)}${']'.repeat(40)}`) },
    });
    expect(fieldIssues(deep.error as never)).toEqual([
      { path: 'data.steps', message: `nests objects and lists deeper than ${JSON_BOUNDS.maxDepth} levels` },
    ]);
  });

  it('when a union of strict objects is made tolerant, then each option drops unknown fields and the same schema is returned every time', () => {
    const tolerant = tolerantOf(StorageConnectionCreateRequest);
    expect(tolerant.parse({ kind: 'managed', name: 'x', added_later: true })).toEqual({
      kind: 'managed',
      name: 'x',
    });
    expect(tolerantOf(StorageConnectionCreateRequest)).toBe(tolerant);
  });
});
