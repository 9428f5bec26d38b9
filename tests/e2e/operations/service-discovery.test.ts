import { randomUUID } from 'node:crypto';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { PingReply, requestSubjects, Subjects } from '@tm/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENTUALLY, eventually } from '../support/eventually.js';
import { useStack } from '../support/stack.js';

// The services as an operator's `nats micro ls|info|stats` sees them: the NATS micro protocol's
// discovery (`$SRV.PING|INFO|STATS`), answered by libs/bus nats-service.ts for every service.
const t = useStack();

const SERVICES = ['memory', 'billing', 'telemetry', 'template', 'webhooks'] as const;
type Name = (typeof SERVICES)[number];
/** A subject of each service that refuses an empty message (its input has required fields). */
const REFUSES_EMPTY: Record<Name, string> = {
  memory: Subjects.memory.recall,
  billing: Subjects.billing.usageSummary,
  telemetry: Subjects.telemetry.listEvents,
  template: Subjects.template.listTemplates,
  webhooks: Subjects.webhooks.listEndpoints,
};

interface EndpointStats {
  name: string;
  subject: string;
  queue_group: string;
  num_requests: number;
  num_errors: number;
  last_error: string;
  processing_time: number;
  average_processing_time: number;
}

let nc: NatsConnection;
beforeAll(async () => {
  nc = await connect({ servers: t.stack.env.natsUrl });
});
afterAll(() => nc.close());

const ask = async (subject: string, body = '') =>
  (await nc.request(subject, body, { timeout: 5_000 })).json();
const statsOf = async (name: Name, subject: string) => {
  const stats = (await ask(`$SRV.STATS.${name}`)) as { endpoints: EndpointStats[] };
  return stats.endpoints.find((e) => e.subject === subject) as EndpointStats;
};

describe('the NATS micro protocol ($SRV discovery)', () => {
  it('when an operator pings every service ($SRV.PING, as `nats micro ls` does), then each answers once with its name, instance id and version', async () => {
    const replies = [];
    for await (const msg of await nc.requestMany('$SRV.PING', '', {
      strategy: 'count',
      maxMessages: SERVICES.length,
      maxWait: 5_000,
    })) {
      replies.push(msg.json() as { name: string });
    }

    expect(replies.map((r) => r.name).sort()).toEqual([...SERVICES].sort());
    for (const reply of replies) {
      expect(reply).toEqual({
        type: 'io.nats.micro.v1.ping_response',
        name: reply.name,
        id: expect.any(String),
        version: expect.stringMatching(/^\d+\.\d+\.\d+/),
        metadata: {},
      });
    }
  });

  it.each(SERVICES)(
    'when %s is pinged by name and by its health subject, then both name the same instance and version',
    async (name) => {
      const ping = (await ask(`$SRV.PING.${name}`)) as { id: string; version: string };
      const health = PingReply.parse(await ask(Subjects[name].ping, '{}'));

      expect(health).toMatchObject({
        service: name,
        instance: ping.id,
        version: ping.version,
        available: true,
      });
      expect(await ask(`$SRV.PING.${name}.${ping.id}`)).toMatchObject({ name, id: ping.id });
    },
  );

  it.each(SERVICES)(
    'when %s is asked $SRV.INFO.<name>, then it lists every request subject it serves, in its queue group',
    async (name) => {
      const info = (await ask(`$SRV.INFO.${name}`)) as {
        endpoints: Array<{ name: string; subject: string; queue_group: string }>;
      };

      expect(info).toMatchObject({ type: 'io.nats.micro.v1.info_response', name, description: '' });
      expect(info.endpoints.map((e) => e.subject).sort()).toEqual(requestSubjects(name).sort());
      for (const endpoint of info.endpoints) {
        expect(endpoint).toEqual({
          name: endpoint.subject.replace(`${name}.`, '').replaceAll('.', '-'),
          subject: endpoint.subject,
          queue_group: name,
          metadata: {},
        });
      }
    },
  );

  it.each(SERVICES)(
    'when %s answers a request and refuses another, then $SRV.STATS.<name> counts both, the refusal as an error, and the refusal carries the protocol error headers',
    async (name) => {
      const refusing = REFUSES_EMPTY[name];
      const [pingBefore, refusingBefore] = await Promise.all([
        statsOf(name, Subjects[name].ping),
        statsOf(name, refusing),
      ]);

      await ask(Subjects[name].ping, '{}');
      const refused = await nc.request(refusing, '{}', { timeout: 5_000 });

      expect({
        code: refused.headers?.get('Nats-Service-Error-Code'),
        description: refused.headers?.get('Nats-Service-Error'),
        body: refused.json(),
      }).toEqual({
        code: '400',
        description: 'Invalid message',
        body: expect.objectContaining({ code: 'validation_failed', message: 'Invalid message' }),
      });
      // Health pings from the gateway may count too: at least ours, never fewer.
      await expect
        .poll(async () => {
          const [ping, failing] = await Promise.all([
            statsOf(name, Subjects[name].ping),
            statsOf(name, refusing),
          ]);
          return {
            pingsCounted: ping.num_requests > pingBefore.num_requests,
            pingErrors: ping.num_errors - pingBefore.num_errors,
            refusals: failing.num_requests - refusingBefore.num_requests,
            refusalErrors: failing.num_errors - refusingBefore.num_errors,
            lastError: failing.last_error,
            timed: failing.processing_time > 0 && failing.average_processing_time > 0,
          };
        }, EVENTUALLY)
        .toEqual({
          pingsCounted: true,
          pingErrors: 0,
          refusals: 1,
          refusalErrors: 1,
          // Status and code only, never the message (docs/security.md).
          lastError: '400 validation_failed',
          timed: true,
        });
    },
  );

  it('when a refusal quotes what the tenant sent, then $SRV.STATS carries only its status and code, never that text', async () => {
    // A template memory whose data names a key the template lacks: template's answer names the key.
    const tenant = `discovery-${randomUUID()}`;
    const quoted = `tenant_text_${randomUUID().replaceAll('-', '')}`;
    const created = await nc.request(
      Subjects.template.createTemplate,
      JSON.stringify({
        tenant_id: tenant,
        body: { template_name: 'discovery-note', fields: [{ name: 'title', type: 'string' }] },
      }),
      { timeout: 5_000 },
    );
    expect(created.headers?.get('Nats-Service-Error-Code')).toBeUndefined();

    const refused = await nc.request(
      Subjects.template.createMemory,
      JSON.stringify({
        scope: {
          tenant_id: tenant,
          user_id: 'discovery-user',
          key_id: 'discovery-key',
          storage_connection_id: 'discovery-storage',
          consent: 'granted',
        },
        request_id: randomUUID(),
        idempotency_key: randomUUID(),
        body: { template_name: 'discovery-note', data: { [quoted]: 'x' } },
      }),
      { timeout: 5_000 },
    );

    // The caller's own answer names the key: the refusal does quote the input.
    expect({
      code: refused.headers?.get('Nats-Service-Error-Code'),
      body: refused.json(),
    }).toEqual({
      code: '400',
      body: expect.objectContaining({
        code: 'validation_failed',
        message: expect.stringContaining(quoted),
      }),
    });
    const stats = await eventually(async () => {
      const reply = await ask('$SRV.STATS.template');
      const endpoint = (reply as { endpoints: EndpointStats[] }).endpoints.find(
        (e) => e.subject === Subjects.template.createMemory,
      );
      expect(endpoint?.num_errors).toBeGreaterThan(0);
      return { reply, endpoint };
    });
    expect(stats.endpoint?.last_error).toBe('400 validation_failed');
    expect(JSON.stringify(stats.reply)).not.toContain(quoted);
  });
});
