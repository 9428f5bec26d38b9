import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import type { Api } from './api.js';
import { eventually } from './eventually.js';
import {
  createTenant,
  recallBody,
  relatedTexts,
  uniqueKey,
  uniqueNamespace,
  writeBody,
} from './factories.js';
import { importSteps } from './imports.js';
import { followRestore, handMadeExport, RESTORE, restore } from './restores.js';
import { bugTemplate } from './templates.js';

const CONTROL = '/api/v1/control';
export const LISTS = [
  'users',
  'api-keys',
  'storage-connections',
  'operator-tokens',
  'webhook-endpoints',
] as const;

interface Stack {
  api: Api;
  stack: { url: string; memory: { flushOutbox(): Promise<unknown> } };
}

/** Fields that change with every answer (or in the background), not with the object. */
function stable(body: unknown): unknown {
  if (Array.isArray(body)) return body.map(stable);
  if (body === null || typeof body !== 'object') return body;
  return Object.fromEntries(
    Object.entries(body)
      .filter(([name]) => name !== 'request_id' && name !== 'last_used_at')
      .map(([name, value]) => [name, stable(value)]),
  );
}

/**
 * The charge billing records for the tenant's write: billing consumes usage off the request's path,
 * so read until it is there.
 */
async function firstCharge(t: Stack, session: string) {
  await t.stack.memory.flushOutbox();
  const res = await eventually(async () => {
    const res = await t.api.get(`${CONTROL}/billing/charges`, { key: session });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data, 'charges recorded for the write').not.toHaveLength(0);
    return res;
  });
  return res.body.data[0];
}

/**
 * A tenant whose owner has made one of everything the control plane manages, and whose key has
 * written memory, made a template, a memory from it, an import (not started) and a chat turn.
 */
export async function tenantWithOneOfEverything(t: Stack, label: string) {
  const tenant = await createTenant();
  const session = await t.api.login(tenant.owner.email, tenant.owner.password);
  const tag = `${label}-${randomUUID().slice(0, 8)}`;
  const key = tenant.api_key;
  const create = async (path: string, body: object, credential = session, status = 201) => {
    const res = await t.api.post(path, { key: credential, body });
    expect(res.status, `creating ${path}: ${JSON.stringify(res.body)}`).toBe(status);
    return res.body;
  };
  const extraKey = await create(`${CONTROL}/api-keys`, { name: `key-${tag}` });
  const storage = await create(`${CONTROL}/storage-connections`, {
    kind: 'customer_owned',
    name: `storage-${tag}`,
    settings: { engine: 'postgresql', host: 'db.example.test', port: 5432, database: 'x', username: 'u' },
    secret: `db-secret-${randomUUID()}`,
  });
  const member = await create(`${CONTROL}/users`, {
    email: `member-${tag}@example.test`,
    password: `pw-${randomUUID()}`,
    role: 'developer',
  });
  const operatorToken = await create(`${CONTROL}/operator-tokens`, { name: `token-${tag}` });
  // Registered before the write, so the write queues a delivery for it (its log has an entry to aim at).
  const webhookUrl = `https://hooks-${tag}.example.test/memory`;
  const webhook = await create(`${CONTROL}/webhook-endpoints`, {
    url: webhookUrl,
    events: ['memory.retained'],
  });
  const namespace = uniqueNamespace(`private-${tag}`);
  const write = { body: writeBody(namespace, `private note of ${tag}`), idempotencyKey: uniqueKey() };
  const written = await t.api.write(key, write.body, write.idempotencyKey);
  expect(written.status).toBe(200);
  const templateName = `template-${tag}`;
  const template = await create('/v1/templates', bugTemplate(templateName), key);
  const templateMemory = await create(
    '/v1/memories',
    { template_name: templateName, namespace, data: { title: `private bug of ${tag}` } },
    key,
  );
  const upload = await importSteps(t).upload(key, { format: '{a}', namespace }, `a\nprivate row of ${tag}\n`);
  expect(upload.status, JSON.stringify(upload.body)).toBe(201);
  const conversation = `conv-${tag}`;
  const chat = await create(
    '/v1/chat/completions',
    {
      model: 'tm-nano-1',
      memory_id: conversation,
      messages: [{ role: 'user', content: `private chat of ${tag}` }],
    },
    key,
    200,
  );
  // An export restored, to its end, so the tenant owns a restore job that no longer changes.
  const restoring = await restore(
    t.api,
    key,
    handMadeExport(`restored-${tag}`, [{ event_id: `restored-${tag}`, text: `restored note of ${tag}` }]),
  );
  expect(restoring.status, JSON.stringify(restoring.body)).toBe(202);
  const restoreJob = await followRestore(t.api, key, restoring.body.id);
  // A namespace deleted, so the tenant owns a deletion job (its receipt readable by id).
  const scratch = uniqueNamespace(`scratch-${tag}`);
  expect((await t.api.write(key, writeBody(scratch, `scratch note of ${tag}`), uniqueKey())).status).toBe(
    200,
  );
  const deleted = await t.api.deleteNamespace(key, scratch);
  expect(deleted.status, JSON.stringify(deleted.body)).toBe(200);
  const charge = await firstCharge(t, session);
  const tenantName = (await t.api.get(`${CONTROL}/account`, { key: session })).body.tenant.name as string;
  const delivery = await eventually(async () => {
    const res = await t.api.get(`${CONTROL}/webhook-endpoints/${webhook.id}/deliveries`, { key: session });
    expect(res.body.data, 'a delivery queued for the write').not.toHaveLength(0);
    return res.body.data[0];
  });

  return {
    ...tenant,
    session,
    namespace,
    conversation,
    write,
    extraKey,
    /** The ids an intruder could aim at, by what they name. */
    ids: {
      owner: tenant.user_id,
      member: member.id as string,
      bootstrapKey: tenant.key_id,
      extraKey: extraKey.id as string,
      managedStorage: tenant.storage_connection_id as string,
      customerStorage: storage.id as string,
      operatorToken: operatorToken.id as string,
      charge: charge.id as string,
      template: template.id as string,
      templateName,
      templateMemory: templateMemory.memory_id as string,
      plainMemory: written.body.memory_id as string,
      chatMemory: chat.text_memory.retained_turn.memory_id as string,
      importJob: upload.body.id as string,
      restoreJob: restoreJob.id,
      namespaceDeletion: deleted.body.deletion.id as string,
      webhookEndpoint: webhook.id as string,
      webhookDelivery: delivery.id as string,
    },
    /** Everything that identifies this tenant or its resources; none of it may reach another tenant. */
    identifying: [
      tenant.tenant_id,
      tenantName,
      tenant.owner.email,
      member.email,
      tenant.key_prefix,
      extraKey.prefix,
      extraKey.name,
      storage.name,
      operatorToken.name,
      operatorToken.prefix,
      namespace,
      scratch,
      webhookUrl,
      tag,
    ] as string[],
  };
}
export type Tenant = Awaited<ReturnType<typeof tenantWithOneOfEverything>>;
export type Target = keyof Tenant['ids'];

/**
 * What the tenant sees of itself: every control-plane list and the charge for its first write
 * (session), and its template, memories, import and retained texts (key). Charges after the first are
 * left out: the tenant's own recalls here add some.
 */
export async function stateOf(t: Stack, tenant: Tenant) {
  const read = async (path: string, key: string, query?: Record<string, string>) => {
    const res = await t.api.get(path, { key, ...(query ? { query } : {}) });
    expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBe(200);
    return stable(res.body) as { data?: Array<{ id: string }> };
  };
  const recalled = async (namespace: string) =>
    relatedTexts(await t.api.recall(tenant.api_key, recallBody(namespace, 'private', { top_k: 10 })));
  const key = tenant.api_key;
  const [lists, charges, templates, memories, importJob, restoreJob, texts, chatTexts] = await Promise.all([
    Promise.all(LISTS.map(async (list) => (await read(`${CONTROL}/${list}`, tenant.session)).data)),
    read(`${CONTROL}/billing/charges`, tenant.session, { limit: '200' }),
    read('/v1/templates', key),
    Promise.all(
      [tenant.ids.plainMemory, tenant.ids.templateMemory, tenant.ids.chatMemory].map((id) =>
        read(`/v1/memories/${id}`, key),
      ),
    ),
    read(`/v1/imports/${tenant.ids.importJob}`, key),
    read(`${RESTORE}/${tenant.ids.restoreJob}`, key),
    recalled(tenant.namespace),
    recalled(`chat/${tenant.conversation}`),
  ]);
  return {
    ...(Object.fromEntries(LISTS.map((list, i) => [list, lists[i]])) as Record<
      (typeof LISTS)[number],
      Array<{ id: string }> | undefined
    >),
    charge: charges.data?.find((c) => c.id === tenant.ids.charge),
    templates,
    memories,
    importJob,
    restoreJob,
    texts: texts.sort(),
    chatTexts,
  };
}

/** Which of the tenant's ids and names appear in a body (`except`: values the caller itself sent). */
export function identifyingIn(tenant: Tenant, body: unknown, except: string[] = []): string[] {
  const text = except.reduce((s, value) => s.replaceAll(value, ''), JSON.stringify(body));
  return [...Object.values(tenant.ids), ...tenant.identifying].filter((value) => text.includes(value));
}
