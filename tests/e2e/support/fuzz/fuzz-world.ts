import { randomUUID } from 'node:crypto';
import { CHAT_MODELS } from '@tm/contracts';
import type request from 'supertest';
import { expect } from 'vitest';
import type { Api } from '../api.js';
import { eventually } from '../eventually.js';
import { createTenant, uniqueKey, writeBody } from '../factories.js';
import { importSteps } from '../imports.js';
import type { Stack } from '../stack.js';
import type { KnownValues } from './json-schema-arbitrary.js';
import type { Operation } from './operations.js';

/** Where the world's retained memory lives, so recall, export and delete can find something. */
export const HOME_NAMESPACE = 'fuzz-home';

/**
 * One tenant with one of everything the routes of a family act on. The fuzzer's own credentials
 * (the owner's session and the bootstrap key) are never among the ids it aims destructive routes at:
 * those hit the member, the second key, the customer-owned connection and so on.
 */
export interface FuzzWorld {
  tenantId: string;
  apiKey: string;
  keyId: string;
  owner: { email: string; password: string };
  session: string;
  ids: {
    member: string;
    extraKey: string;
    managedStorage: string;
    customerStorage: string;
    operatorToken: string;
    template: string;
    templateMemory: string;
    importJob: string;
    webhookEndpoint: string;
    charge?: string;
  };
  templateName: string;
  operatorSecret: string;
  marketplaceIds: string[];
  /** Request ids of every answer below 400 in this world: the only requests a charge may come from. */
  succeeded: Set<string>;
}

export async function buildWorld(t: { api: Api; stack: Stack }, options: { charge?: boolean } = {}) {
  const succeeded = new Set<string>();
  const created = (res: request.Response, what: string) => {
    if (res.status !== 200 && res.status !== 201) {
      throw new Error(`fuzz world: ${what} failed: ${res.status} ${JSON.stringify(res.body)}`);
    }
    succeeded.add(String(res.headers['x-request-id']));
    return res.body;
  };
  const tenant = await createTenant();
  const session = await t.api.login(tenant.owner.email, tenant.owner.password);
  const asOwner = { key: session };
  const asKey = { key: tenant.api_key };
  const tag = randomUUID().slice(0, 8);
  const [member, extraKey, customerStorage, operatorToken, template, marketplace] = await Promise.all([
    t.api
      .post('/api/v1/control/users', {
        ...asOwner,
        body: { email: `member-${tag}@example.test`, password: `pw-${randomUUID()}`, role: 'developer' },
      })
      .then((r) => created(r, 'member')),
    t.api
      .post('/api/v1/control/api-keys', { ...asOwner, body: { name: `second-${tag}` } })
      .then((r) => created(r, 'second key')),
    t.api
      .post('/api/v1/control/storage-connections', {
        ...asOwner,
        body: {
          kind: 'customer_owned',
          name: `customer-${tag}`,
          settings: { engine: 'postgresql', host: 'db.example.test', database: 'x', username: 'u' },
          secret: `db-secret-${randomUUID()}`,
        },
      })
      .then((r) => created(r, 'storage connection')),
    t.api
      .post('/api/v1/control/operator-tokens', { ...asOwner, body: { name: `op-${tag}` } })
      .then((r) => created(r, 'operator token')),
    t.api
      .post('/v1/templates', {
        ...asKey,
        body: {
          template_name: `tpl-${tag}`,
          fields: [
            { name: 'title', type: 'string', required: true },
            { name: 'severity', type: 'number' },
          ],
          format: 'Bug {title} at {severity|unknown}',
        },
      })
      .then((r) => created(r, 'template')),
    t.api.get('/v1/marketplace/templates', asKey).then((r) => created(r, 'marketplace list')),
    t.api
      .write(tenant.api_key, writeBody(HOME_NAMESPACE, 'the fuzzer remembers a harbour at dawn'), uniqueKey())
      .then((r) => created(r, 'write')),
  ]);
  const templateMemory = await t.api
    .post('/v1/memories', {
      ...asKey,
      body: { template_name: template.template_name, namespace: HOME_NAMESPACE, data: { title: 'crash' } },
    })
    .then((r) => created(r, 'template memory'));
  const importJob = await importSteps(t)
    .upload(
      tenant.api_key,
      { format: 'Note {note}', namespace: HOME_NAMESPACE },
      'note\nfirst\nsecond\n',
      'notes.csv',
    )
    .then((r) => created(r, 'import'));
  // For an event this world never causes, so no delivery is ever attempted to the (unresolvable) host.
  const webhookEndpoint = await t.api
    .post('/api/v1/control/webhook-endpoints', {
      ...asOwner,
      body: { url: `https://hooks-${tag}.example.test/fuzz`, events: ['charge.voided'] },
    })
    .then((r) => created(r, 'webhook endpoint'));

  const world: FuzzWorld = {
    tenantId: tenant.tenant_id,
    apiKey: tenant.api_key,
    keyId: tenant.key_id,
    owner: tenant.owner,
    session,
    ids: {
      member: member.id,
      extraKey: extraKey.id,
      managedStorage: tenant.storage_connection_id as string,
      customerStorage: customerStorage.id,
      operatorToken: operatorToken.id,
      template: template.id,
      templateMemory: templateMemory.memory_id,
      importJob: importJob.id,
      webhookEndpoint: webhookEndpoint.id,
    },
    templateName: template.template_name,
    operatorSecret: operatorToken.token,
    marketplaceIds: marketplace.data.map((m: { id: string }) => m.id),
    succeeded,
  };
  if (options.charge) world.ids.charge = await firstCharge(t, session);
  return world;
}

/** Billing records charges off the request's path: flush memory's outbox, then read until one is there. */
async function firstCharge(t: { api: Api; stack: Stack }, session: string): Promise<string> {
  await t.stack.memory.flushOutbox();
  const res = await eventually(async () => {
    const r = await t.api.get('/api/v1/control/billing/charges', { key: session });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.data, 'charges of the first write').not.toHaveLength(0);
    return r;
  });
  const id = res.body.data[0]?.id;
  if (!id) throw new Error('fuzz world: no charge recorded for the first write');
  return id;
}

/** The `{id}` a control route takes, by the collection in its path. */
function idFor(path: string, world: FuzzWorld): string[] {
  const byCollection: Array<[string, string | undefined]> = [
    ['/users/', world.ids.member],
    ['/api-keys/', world.ids.extraKey],
    ['/storage-connections/', world.ids.customerStorage],
    ['/operator-tokens/', world.ids.operatorToken],
    ['/charges/', world.ids.charge],
    ['/webhook-endpoints/', world.ids.webhookEndpoint],
  ];
  const id = byCollection.find(([collection]) => path.includes(collection))?.[1];
  return id ? [id] : [];
}

/**
 * Real values by parameter or property name, for this world and route: ids that exist, the owner's
 * email and password, the template's name, the operator token's secret, the chat models.
 */
export function knownValues(operation: Operation, world: FuzzWorld): KnownValues {
  return {
    id: idFor(operation.path, world),
    storage_connection_id: [world.ids.managedStorage, world.ids.customerStorage],
    template_name_or_id: [world.templateName, world.ids.template],
    template_name: [world.templateName],
    marketplace_template_id: world.marketplaceIds,
    memory_id: operation.path.startsWith('/v1/memories') ? [world.ids.templateMemory] : ['fuzz-chat'],
    import_id: [world.ids.importJob],
    model: CHAT_MODELS.map((m) => m.id),
    // A completion needs a user message; random role tokens almost never say "user".
    role: ['user', 'user', 'assistant', 'system'],
    // Data the world's template takes (a title, a severity), so memories from it can be created.
    data: [{ title: 'a crash at dawn', severity: 2 }, { title: 'the harbour again' }],
    namespace: [HOME_NAMESPACE],
    email: [world.owner.email],
    password: [world.owner.password],
    current_password: [world.owner.password],
    'If-Match': ['"1"', '"2"', '*'],
    'X-Operator-Token': [world.operatorSecret],
  };
}
