import { readFileSync } from 'node:fs';
import { Webhook } from 'standardwebhooks';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { cliUsers, json, requireBuiltCli } from '../support/cli.js';
import { controlSteps, suffix, TIMESTAMP as timestamp } from '../support/control.js';
import { eventually } from '../support/eventually.js';
import { createTenant, uniqueKey, uniqueNamespace, writeBody } from '../support/factories.js';
import { recordSecrets } from '../support/log-capture.js';
import { useStack } from '../support/stack.js';
import { useReceiver, WEBHOOK_ENDPOINTS } from '../support/webhooks.js';

// `tm webhooks …`, the built CLI run as a user runs it (support/cli.ts), against this file's stack
// and a receiver on 127.0.0.1 (the stack allows loopback). Each step is a new node process: a hang guard.
vi.setConfig({ testTimeout: 120_000 });
const t = useStack();
const { addUser } = controlSteps(t);
const receiver = useReceiver();
const cliUser = cliUsers(() => t.stack.url);

beforeAll(requireBuiltCli);

/** An owner logged in with the CLI (a session saved in its config file), and the tenant. */
async function ownerAtCli() {
  const tenant = await createTenant({ consent: true });
  const user = cliUser();
  const login = await user.tm(['login', '--email', tenant.owner.email, '--password-stdin'], {
    input: `${tenant.owner.password}\n`,
  });
  expect(login.code, login.stderr).toBe(0);
  const session = JSON.parse(readFileSync(user.config, 'utf8')).session_token as string;
  recordSecrets([session]);
  return { tenant, session, ...user };
}

async function writeOne(apiKey: string) {
  const res = await t.api.write(
    apiKey,
    writeBody(uniqueNamespace('cli-hooks'), 'cli hook note'),
    uniqueKey(),
  );
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  await t.stack.memory.flushOutbox();
  return res.body as { memory_id: string };
}

describe('tm webhooks', () => {
  it('when an owner creates, lists, reads, follows deliveries, redelivers, rotates and deletes an endpoint, then each command prints what the README says', async () => {
    const { tenant, tm, session } = await ownerAtCli();
    const path = `/cli/${suffix()}`;

    const created = await tm([
      'webhooks',
      'create',
      '--url',
      `${receiver.url}${path}`,
      '--events',
      'memory.retained',
      'namespace.deleted',
      '--description',
      'cli receiver',
    ]);
    const id = /^id: +(\S+)$/m.exec(created.stdout)?.[1] as string;
    const secret = /^secret: +(\S+)$/m.exec(created.stdout)?.[1] as string;
    recordSecrets([secret]);
    const list = await tm(['webhooks', 'list']);
    const got = await tm(['webhooks', 'get', id, '--json']);
    const written = await writeOne(tenant.api_key);
    await eventually(() => expect(receiver.at(path)).toHaveLength(1));
    const logJson = await eventually(async () => {
      const run = await tm(['webhooks', 'deliveries', id, '--json']);
      expect(run.code, run.stderr).toBe(0);
      expect(json(run).data[0]?.status).toBe('succeeded');
      return json(run);
    });
    const logTable = await tm(['webhooks', 'deliveries', id]);
    const delivery = logJson.data[0];
    const redelivered = await tm(['webhooks', 'redeliver', id, delivery.id]);
    await eventually(() => expect(receiver.at(path)).toHaveLength(2));
    const all = await eventually(async () => {
      const run = await tm(['webhooks', 'deliveries', id, '--all', '--limit', '1', '--json']);
      expect(json(run)).toMatchObject([{ status: 'succeeded', attempts: [{}, {}] }]);
      return run;
    });
    const unconfirmedRotation = await tm(['webhooks', 'rotate-secret', id]);
    const rotated = await tm(['webhooks', 'rotate-secret', id, '--yes', '--json']);
    recordSecrets([json(rotated).secret]);
    const unconfirmedDelete = await tm(['webhooks', 'delete', id]);
    const stillThere = await t.api.get(`${WEBHOOK_ENDPOINTS}/${id}`, { key: session });
    const deleted = await tm(['webhooks', 'delete', id, '--yes']);
    const gone = await tm(['webhooks', 'get', id]);

    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toMatch(/^url: +http:\/\/127\.0\.0\.1:\d+\/cli\/\w+$/m);
    expect(created.stdout).toMatch(/^events: +memory\.retained namespace\.deleted$/m);
    expect(created.stdout).toMatch(/^enabled: +yes$/m);
    expect(secret).toMatch(/^whsec_/);
    expect(created.stderr).toContain('Store the secret now: it is not shown again.');
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toMatch(/^ID +URL +EVENTS +ENABLED +DISABLED BECAUSE$/m);
    expect(list.stdout).toMatch(
      new RegExp(
        `^${id} +http://127\\.0\\.0\\.1:\\d+${path} +memory\\.retained namespace\\.deleted +yes +-$`,
        'm',
      ),
    );
    expect(list.stdout).not.toContain(secret);
    expect(got.code, got.stderr).toBe(0);
    expect(json(got)).toEqual({
      contract_version: 'v1',
      id,
      url: `${receiver.url}${path}`,
      description: 'cli receiver',
      events: ['memory.retained', 'namespace.deleted'],
      include_text: false,
      enabled: true,
      disabled_reason: null,
      created_at: timestamp,
      updated_at: timestamp,
    });
    const [request] = receiver.at(path);
    expect(
      new Webhook(secret).verify(request?.body ?? '', (request?.headers ?? {}) as Record<string, string>),
    ).toMatchObject({ type: 'memory.retained', data: { memory_id: written.memory_id } });
    expect(logJson).toMatchObject({ contract_version: 'v1', next_cursor: null });
    expect(logTable.code, logTable.stderr).toBe(0);
    expect(logTable.stdout).toMatch(
      /^ID +EVENT +STATUS +ATTEMPTS +LAST CODE +LAST MS +LAST ERROR +NEXT ATTEMPT +CREATED AT$/m,
    );
    expect(logTable.stdout).toMatch(
      new RegExp(`^${delivery.id} +memory\\.retained +succeeded +1 +200 +\\d+ +- +- +\\S+$`, 'm'),
    );
    expect(redelivered.code, redelivered.stderr).toBe(0);
    expect(redelivered.stdout).toMatch(new RegExp(`^delivery id: +${delivery.id}$`, 'm'));
    expect(redelivered.stdout).toMatch(/^status: +pending$/m);
    expect(receiver.at(path)[1]?.headers['webhook-id']).toBe(delivery.message_id);
    expect(all.code, all.stderr).toBe(0);
    expect(unconfirmedRotation).toMatchObject({ code: 2, stdout: '' });
    expect(unconfirmedRotation.stderr).toContain('pass --yes to confirm');
    expect(rotated.code, rotated.stderr).toBe(0);
    expect(json(rotated)).toEqual({
      contract_version: 'v1',
      id,
      secret: expect.stringMatching(/^whsec_/),
      previous_secret_expires_at: timestamp,
    });
    expect(json(rotated).secret).not.toBe(secret);
    expect(unconfirmedDelete).toMatchObject({ code: 2, stdout: '' });
    expect(stillThere.status).toBe(200);
    expect(deleted).toMatchObject({ code: 0, stdout: `Deleted webhook endpoint ${id}.\n` });
    expect(gone.code).toBe(3);
    expect(gone.stderr).toContain('code: not_found');
  });

  it('when an endpoint is disabled, then update shows it, redeliver exits 3 (precondition_failed), and update --enable lets it through again', async () => {
    const { tenant, tm } = await ownerAtCli();
    const path = `/cli/${suffix()}`;
    const created = json(
      await tm([
        'webhooks',
        'create',
        '--url',
        `${receiver.url}${path}`,
        '--events',
        'memory.retained',
        '--json',
      ]),
    );
    recordSecrets([created.secret]);
    await writeOne(tenant.api_key);
    await eventually(() => expect(receiver.at(path)).toHaveLength(1));
    const [delivery] = await eventually(async () => {
      const page = json(await tm(['webhooks', 'deliveries', created.id, '--json']));
      expect(page.data.map((d: { status: string }) => d.status)).toEqual(['succeeded']);
      return page.data;
    });

    const nothing = await tm(['webhooks', 'update', created.id]);
    const both = await tm(['webhooks', 'update', created.id, '--enable', '--disable']);
    const disabled = await tm(['webhooks', 'update', created.id, '--disable', '--no-include-text']);
    const refused = await tm(['webhooks', 'redeliver', created.id, delivery.id, '--json']);
    const enabled = await tm(['webhooks', 'update', created.id, '--enable', '--json']);
    const redelivered = await tm(['webhooks', 'redeliver', created.id, delivery.id, '--json']);
    await eventually(() => expect(receiver.at(path)).toHaveLength(2));

    expect(nothing).toMatchObject({ code: 2, stdout: '' });
    expect(nothing.stderr).toContain('Nothing to change');
    expect(both).toMatchObject({ code: 2, stdout: '' });
    expect(disabled.code, disabled.stderr).toBe(0);
    expect(disabled.stdout).toMatch(/^enabled: +no$/m);
    expect(disabled.stdout).toMatch(/^include text: +no$/m);
    expect(refused).toMatchObject({ code: 3, stdout: '' });
    expect(JSON.parse(refused.stderr)).toMatchObject({ code: 'precondition_failed', status: 412 });
    expect(json(enabled)).toMatchObject({ id: created.id, enabled: true, disabled_reason: null });
    expect(json(redelivered)).toMatchObject({ id: delivery.id, status: 'pending' });
  });

  it('when the URL is private, then exit 3 naming the field; a developer gets exit 3 permission_denied; without a session, exit 2 before anything is sent', async () => {
    const { tm, session } = await ownerAtCli();
    const developer = await addUser(session, 'developer');
    const dev = cliUser();
    await dev.tm(['login', '--email', developer.email, '--password-stdin'], {
      input: `${developer.password}\n`,
    });
    const nobody = cliUser();

    const inward = await tm([
      'webhooks',
      'create',
      '--url',
      'http://10.9.8.7/x',
      '--events',
      'memory.retained',
    ]);
    const refused = await dev.tm(['webhooks', 'list', '--json']);
    const noSession = await nobody.tm(['webhooks', 'list']);

    expect(inward).toMatchObject({ code: 3, stdout: '' });
    expect(inward.stderr).toMatch(/code: validation_failed {2}status: 400/);
    expect(inward.stderr).toMatch(/^ {2}url: /m);
    expect(refused).toMatchObject({ code: 3, stdout: '' });
    expect(JSON.parse(refused.stderr)).toMatchObject({ code: 'permission_denied', status: 403 });
    expect(noSession).toMatchObject({ code: 2, stdout: '' });
    expect(noSession.stderr).toContain('No session');
    const listed = await t.api.get(WEBHOOK_ENDPOINTS, { key: session });
    expect(listed.body.data).toEqual([]);
  });
});
