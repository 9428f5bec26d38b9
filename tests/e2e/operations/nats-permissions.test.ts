import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { BusRoles, type BusService, requestSubjects, Streams, Subjects, subjectMatches } from '@tm/contracts';
import { afterEach, describe, expect, it } from 'vitest';
import {
  PERMISSIONS_FILE,
  passwordVariable,
  renderPermissionsConfig,
} from '../../../infra/dev/nats-permissions.js';
import { eventually } from '../support/eventually.js';
import {
  createTenant,
  recallBody,
  relatedTexts,
  uniqueKey,
  uniqueNamespace,
  writeBody,
} from '../support/factories.js';
import { importSteps } from '../support/imports.js';
import { recordSecrets } from '../support/log-capture.js';
import { useStack } from '../support/stack.js';

const SERVICES = Object.keys(BusRoles) as BusService[];
/** One password per service, known to this file's nats-server and to that service only. */
const passwords = Object.fromEntries(SERVICES.map((s) => [s, `nats-${randomUUID()}`])) as Record<
  BusService,
  string
>;
/** An operator's user for `nats micro` (docs/operations.md): the micro protocol's discovery, nothing else. */
const MONITOR = { user: 'monitor', publish: ['$SRV.>'], subscribe: ['_INBOX.>'] };
const monitorPassword = `nats-${randomUUID()}`;
recordSecrets([...Object.values(passwords), monitorPassword]); // never to be logged
const envOf = (service: BusService) => ({ [passwordVariable(service)]: passwords[service] });

// The whole stack on a nats-server with the committed permissions file's users: every service
// connects as its own user, so any subject a service uses and the file does not allow breaks a flow below.
const t = useStack({
  nats: {
    // The file's text (the first test holds the committed file to this rendering; nats-server resolves
    // `include` relative to the including file only), with an operator's user as docs/operations.md
    // describes it, last in the list of users.
    config: renderPermissionsConfig({ extraUsers: [MONITOR] }),
    env: Object.assign({ [passwordVariable(MONITOR.user)]: monitorPassword }, ...SERVICES.map(envOf)),
  },
  gatewayEnv: envOf('gateway'),
  memoryEnv: envOf('memory'),
  billingEnv: envOf('billing'),
  telemetryEnv: envOf('telemetry'),
  templateEnv: envOf('template'),
  webhooksEnv: envOf('webhooks'),
});

const opened: NatsConnection[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((nc) => nc.close()));
});
async function connectAs(service: BusService | undefined, password = service && passwords[service]) {
  const nc = await connect({
    servers: t.stack.env.natsUrl,
    ...(service ? { user: service, pass: password } : {}),
    reconnect: false,
  });
  opened.push(nc);
  return nc;
}
/** The error a request ends with (or `answered` when it got a reply). */
const outcome = (nc: NatsConnection, subject: string) =>
  nc.request(subject, '{}', { timeout: 2_000 }).then(
    () => 'answered',
    (err: Error) => `${err.name}: ${err.message}`,
  );

describe('infra/nats/service-permissions.conf', () => {
  it('then the committed file is what libs/contracts renders (node --import tsx infra/dev/nats-permissions.ts --write)', () => {
    expect(readFileSync(PERMISSIONS_FILE, 'utf8')).toBe(renderPermissionsConfig());
  });

  it('then every subject in the contracts is answered by its owner, or published durably by its owner into a stream', () => {
    const owners = Object.entries(Subjects) as Array<[BusService, Record<string, string>]>;

    const unowned = owners.flatMap(([owner, subjects]) =>
      Object.values(subjects).filter((subject) => {
        const role = BusRoles[owner];
        const durable = Object.values(Streams).some((s) =>
          s.subjects.some((p) => subjectMatches(p, subject)),
        );
        return durable
          ? !role.publishesDurable.includes(subject as never)
          : !(role.serves.includes(subject) || role.broadcasts.includes(subject as never));
      }),
    );

    expect(unowned).toEqual([]);
    expect(BusRoles.memory.serves).toEqual(requestSubjects('memory'));
  });
});

describe('NATS subject permissions per service', () => {
  it('when billing publishes on a memory subject, then the server refuses it (permissions violation), while the gateway is answered', async () => {
    const billing = await connectAs('billing');
    const gateway = await connectAs('gateway');

    const refused = await outcome(billing, Subjects.memory.write);
    const answered = await outcome(gateway, Subjects.memory.ping);

    expect(refused).toMatch(/Permissions Violation for Publish to "memory\.v1\.write"/i);
    expect(answered).toBe('answered');
  });

  it('when template calls memory.v1.write (its one memory subject) it is allowed, and memory.v1.delete is refused', async () => {
    const template = await connectAs('template');

    const remove = await outcome(template, Subjects.memory.delete);
    const write = await outcome(template, Subjects.memory.write);

    expect(remove).toMatch(/Permissions Violation for Publish to "memory\.v1\.delete"/i);
    expect(write).toBe('answered'); // a validation error reply: the message got through
  });

  it("when billing subscribes to memory's requests to take them, then the subscription is refused", async () => {
    const billing = await connectAs('billing');

    const sub = billing.subscribe(Subjects.memory.recall);
    // `closed` settles with the error that ended the subscription.
    const ended = await sub.closed.then(
      (err) => (err instanceof Error ? err.message : 'closed without an error'),
      (err: Error) => err.message,
    );

    expect(ended).toMatch(/Permissions Violation for Subscription to "memory\.v1\.recall"/i);
  });

  it('when a client connects without credentials or with a wrong password, then it is refused', async () => {
    const anonymous = await connectAs(undefined).then(
      () => 'connected',
      (err: Error) => err.message,
    );
    const wrong = await connectAs('memory', 'not-the-password-at-all').then(
      () => 'connected',
      (err: Error) => err.message,
    );

    expect(anonymous).toMatch(/authorization/i);
    expect(wrong).toMatch(/authorization/i);
  });
});

describe('the NATS micro protocol under the permissions', () => {
  it("when an operator's user asks $SRV.PING (as `nats micro ls`), then every service answers as its own user, and a service's user may not ask", async () => {
    const monitor = await connect({
      servers: t.stack.env.natsUrl,
      user: 'monitor',
      pass: monitorPassword,
      reconnect: false,
    });
    opened.push(monitor);
    const billing = await connectAs('billing');

    const names: string[] = [];
    for await (const msg of await monitor.requestMany('$SRV.PING', '', {
      strategy: 'count',
      maxMessages: 5,
      maxWait: 5_000,
    })) {
      names.push((msg.json() as { name: string }).name);
    }
    const info = await outcome(monitor, '$SRV.INFO.memory');
    const refused = await outcome(billing, '$SRV.PING.memory');

    expect(names.sort()).toEqual(['billing', 'memory', 'telemetry', 'template', 'webhooks']);
    expect(info).toBe('answered');
    expect(refused).toMatch(/Permissions Violation for Publish to "\$SRV\.PING\.memory"/i);
  });
});

describe('the whole stack, each service as its own NATS user', () => {
  it('when a tenant writes, recalls, makes a template memory, imports, is billed, voids a charge, reads its events, has webhooks queued and revokes a key, then every step works', async () => {
    const tenant = await createTenant();
    const session = await t.api.login(tenant.owner.email, tenant.owner.password);
    const namespace = uniqueNamespace('perm');
    const template = `perm-${randomUUID().slice(0, 8)}`;
    // gateway → webhooks (an endpoint registered); memory → MEMORY_USAGE → webhooks (its delivery queued);
    // template → TEMPLATE_EVENTS and billing → BILLING_EVENTS → webhooks
    const endpoint = await t.api.post('/api/v1/control/webhook-endpoints', {
      key: session,
      body: {
        url: 'https://hooks.example.test/perm',
        events: ['memory.retained', 'import.completed', 'charge.voided'],
      },
    });

    // gateway → memory (batched writes, recall); memory → JetStream MEMORY_USAGE → billing
    const written = await t.api.write(tenant.api_key, writeBody(namespace, 'permissions hold'), uniqueKey());
    const recalled = await t.api.recall(tenant.api_key, recallBody(namespace, 'permissions'));
    // gateway → template → memory.v1.write
    const created = await t.api.post('/v1/templates', {
      key: tenant.api_key,
      body: { template_name: template, fields: [{ name: 'title', type: 'string' }], format: '{title}' },
    });
    const memory = await t.api.post('/v1/memories', {
      key: tenant.api_key,
      body: { template_name: template, namespace, data: { title: 'from a template' } },
    });
    // gateway → template → billing.v1.prices.get (the estimate's price)
    const imported = await importSteps(t).upload(tenant.api_key, { format: '{a}', namespace }, 'a\none\n');
    const started = await t.api.post(`/v1/imports/${imported.body.id}/start`, { key: tenant.api_key });
    // billing's durable consumer, and telemetry's (gateway → JetStream GATEWAY_REQUESTS → telemetry)
    await t.stack.memory.flushOutbox();
    // Consumers store off the request's path: read until each list has something.
    const charges = await eventually(async () => {
      const res = await t.api.get('/api/v1/control/billing/charges', { key: session });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.data).not.toHaveLength(0);
      return res;
    });
    // gateway → billing (a void), committed with billing's charge.voided
    const voided = await t.api.post(`/api/v1/control/billing/charges/${charges.body.data[0].id}/void`, {
      key: session,
      body: { reason: 'permissions' },
    });
    const events = await eventually(async () => {
      const res = await t.api.get('/api/v1/infrastructure/events', { key: tenant.api_key });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.data).not.toHaveLength(0);
      return res;
    });
    const deliveries = await eventually(
      async () => {
        const res = await t.api.get(`/api/v1/control/webhook-endpoints/${endpoint.body.id}/deliveries`, {
          key: session,
        });
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        expect(res.body.data.map((d: { event_type: string }) => d.event_type).sort()).toEqual(
          expect.arrayContaining(['charge.voided', 'import.completed', 'memory.retained']),
        );
        return res;
      },
      { timeout: 30_000 },
    );
    // gateway → gateway.v1.identity.changed (every instance drops the key), then the key fails
    const revoked = await t.api.post(`/api/v1/control/api-keys/${tenant.key_id}/revoke`, { key: session });
    const afterRevoke = await t.api.recall(tenant.api_key, recallBody(namespace, 'permissions'));

    expect(written).toMatchObject({ status: 200, body: { state: 'retained' } });
    expect(relatedTexts(recalled)).toEqual(['permissions hold']);
    expect(created.status).toBe(201);
    expect(memory).toMatchObject({ status: 201, body: { text: 'from a template' } });
    expect(imported.status, JSON.stringify(imported.body)).toBe(201);
    expect(imported.body.estimate).toMatchObject({ billable_rows: 1, pricing_version: expect.any(String) });
    expect(charges.body.data.length).toBeGreaterThan(0);
    expect(events.body.data.length).toBeGreaterThan(0);
    expect(endpoint.status, JSON.stringify(endpoint.body)).toBe(201);
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    expect(voided).toMatchObject({ status: 200, body: { state: 'void' } });
    expect(deliveries.body.data.length).toBeGreaterThanOrEqual(3);
    expect(revoked.status).toBe(200);
    expect(afterRevoke.status).toBe(401);
  });
});
