import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import type { Api } from './api.js';

/** Shared by the template files (templates, template-memories). */
export const iso = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/);
export const uniqueName = (label = 'tpl') => `${label}-${randomUUID().slice(0, 8)}`;

export const bugTemplate = (name: string) => ({
  template_name: name,
  description: 'A bug as a customer reported it',
  fields: [
    { name: 'title', type: 'string', description: 'Short summary', required: true },
    { name: 'severity', type: 'number', description: '1 (worst) to 4' },
    { name: 'reproducible', type: 'boolean', description: 'Seen twice?' },
    { name: 'steps', type: 'list', description: 'How to reproduce' },
  ],
  format: 'Bug "{title}" severity {severity|unknown}. Steps: {steps|none}.',
});

/** Template and template-memory steps on a file's stack; `t.api` is read at call time, once `beforeAll` has set it. */
export function templateSteps(t: { api: Api }) {
  async function createTemplate(key: string, body: object) {
    const res = await t.api.post('/v1/templates', { key, body });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body as { id: string; template_name: string; version: string };
  }

  async function createMemory(key: string, body: object, idempotencyKey?: string) {
    return t.api.post('/v1/memories', {
      key,
      body,
      headers: idempotencyKey ? { 'Idempotency-Key': idempotencyKey } : {},
    });
  }

  return { createTemplate, createMemory };
}
