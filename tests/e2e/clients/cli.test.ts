import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { cliUsers, json, repo, requireBuiltCli, runCommand } from '../support/cli.js';
import { EVENTUALLY } from '../support/eventually.js';
import { createTenant, uniqueNamespace } from '../support/factories.js';
import { recordSecrets } from '../support/log-capture.js';
import { recordsInNamespace } from '../support/memory-db.js';
import { useStack } from '../support/stack.js';
import { importJobsOf } from '../support/template-db.js';

// The built CLI, run as a user runs it (support/cli.ts): a separate process talking HTTP to this file's stack.

// Each step of a test is a new node process (the built CLI): well under a second alone, several seconds
// while other files load both cores in CI (the session test's seven steps once passed 30 s). A hang guard.
vi.setConfig({ testTimeout: 90_000 });
const t = useStack();

/** A user's shell: a temp folder holding the config file, pointed at this stack. */
const cliUser = cliUsers(() => t.stack.url);

beforeAll(requireBuiltCli);

describe('tm --help', () => {
  it('when asked for help, then it lists every command and documents the exit codes', async () => {
    const { tm } = cliUser();

    const help = await tm(['--help']);

    expect(help).toMatchObject({ code: 0, stderr: '' });
    for (const command of [
      'login',
      'write',
      'recall',
      'delete',
      'restore',
      'import',
      'export',
      'events',
      'namespaces',
      'keys',
    ]) {
      expect(help.stdout).toContain(`  ${command} `);
    }
    expect(help.stdout).toContain(
      [
        'Exit codes:',
        '  0  ok',
        '  1  unexpected error',
        '  2  usage error (bad flags, refused confirmation, input refused before sending)',
        '  3  refused by the service (4xx: credential, permission, validation, conflict)',
        '  4  service unavailable after retries (5xx, timeout, no connection)',
      ].join('\n'),
    );
  });
});

describe('tm login, write, recall, delete with an API key', () => {
  it('when logging in with a key on stdin, then the config file is 0600, holds the key, and nothing prints it', async () => {
    const tenant = await createTenant();
    const { tm, config } = cliUser();

    const login = await tm(['login', '--api-key-stdin'], { input: `${tenant.api_key}\n` });

    expect(login.code, login.stderr).toBe(0);
    expect(login.stdout).toContain(`Logged in to ${t.stack.url} with an API key`);
    expect(`${login.stdout}${login.stderr}`).not.toContain(tenant.api_key);
    expect(statSync(config).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(config, 'utf8'))).toEqual({
      base_url: t.stack.url,
      api_key: tenant.api_key,
    });
  });

  it('when a text is written then recalled with --json, then stdout is the SDK result; the same call replays, with or without its time, and another text conflicts naming it', async () => {
    const tenant = await createTenant();
    const { tm } = cliUser();
    await tm(['login', '--api-key-stdin'], { input: tenant.api_key });
    const namespace = uniqueNamespace('cli');
    const args = ['write', 'Alice prefers green tea', '-n', namespace, '--key', 'tea-1'];
    const at = ['--occurred-at', '2026-11-22T09:30:00Z'];

    const write = await tm([...args, ...at, '--json']);
    const again = await tm([...args, ...at, '--json']);
    // Without --occurred-at the time is left to the service: the one recorded first stands.
    const untimed = await tm([...args, '--json']);
    const conflict = await tm(['write', 'Alice prefers black tea', '-n', namespace, '--key', 'tea-1']);
    const recall = await tm([
      'recall',
      'what does Alice drink? tea',
      '-n',
      namespace,
      '--top-k',
      '3',
      '--json',
    ]);

    expect(write.code, write.stderr).toBe(0);
    expect(json(write)).toMatchObject({
      contract_version: 'v1',
      state: 'retained',
      namespace,
      idempotency_key: 'tea-1',
      event_id: 'tea-1',
      idempotency_outcome: 'Accepted',
      decision: { value: 'memorized', memorized: true },
      usage: { billing_state: 'billable' },
    });
    expect(json(again)).toMatchObject({ idempotency_outcome: 'Replayed', memory_id: json(write).memory_id });
    expect(json(untimed)).toMatchObject({
      idempotency_outcome: 'Replayed',
      memory_id: json(write).memory_id,
    });
    expect(conflict).toMatchObject({ code: 3, stdout: '' });
    expect(conflict.stderr).toContain('status: 409');
    expect(conflict.stderr).toContain('event.content.text differs');
    expect(conflict.stderr).not.toContain('black tea');
    expect(recall.code, recall.stderr).toBe(0);
    expect(json(recall)).toMatchObject({
      state: 'retained',
      retrieval_outcome: 'matched',
      namespace,
      related: [{ event_id: 'tea-1', text: 'Alice prefers green tea', score_kind: 'mock_lexical_overlap' }],
    });
  });

  it('when the text comes on stdin with --recall, then it is retained and the related recall is shown in a table', async () => {
    const tenant = await createTenant();
    const { tm } = cliUser();
    const namespace = uniqueNamespace('cli-stdin');
    const env = { TM_API_KEY: tenant.api_key };

    const write = await tm(['write', '-n', namespace, '--recall'], {
      env,
      input: 'Bo moved to Porto in May\n',
    });
    const recall = await tm(['recall', 'Porto', '-n', namespace, '--json'], { env });

    expect(write.code, write.stderr).toBe(0);
    expect(write.stdout).toMatch(/^state: +retained$/m);
    expect(write.stdout).toMatch(/^decision: +memorized$/m);
    expect(write.stdout).toContain('Related recall:');
    expect(write.stdout).toMatch(/^SCORE +EVENT ID +OCCURRED AT +TEXT$/m);
    expect(write.stdout).toMatch(/evt_[0-9a-f-]{36} .* Bo moved to Porto in May$/m);
    expect(json(recall).related.map((r: { text: string }) => r.text)).toEqual(['Bo moved to Porto in May']);
  });

  it('when a recall is asked with --explain, then each result shows its terms with weights and ✓/✗; with --json, the answer as it came', async () => {
    const tenant = await createTenant();
    const { tm } = cliUser();
    const namespace = uniqueNamespace('cli-explain');
    const env = { TM_API_KEY: tenant.api_key };
    await tm(['write', 'Bob drinks black coffee', '-n', namespace, '--key', 'coffee'], { env });
    await tm(['write', 'Alice drinks green tea', '-n', namespace, '--key', 'tea'], { env });
    const query = ['recall', 'what does Alice drink?', '-n', namespace, '--explain'];

    const human = await tm(query, { env });
    const raw = await tm([...query, '--json'], { env });

    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toMatch(/^ranking: +deterministic-lexical-v2$/m);
    expect(human.stdout).toMatch(
      /^1\. score 1\.0000 {2}tea .*\n {3}Alice drinks green tea\n {3}✓ alice {2}0\.\d{4}.*\n {3}✓ drink {2}0\.\d{4}.*\n {3}tie-break: ✗ what {2}✗ does$/m,
    );
    expect(human.stdout).toMatch(/^2\. score 0\.\d{4} {2}coffee .*\n.*\n {3}✗ alice .*\n {3}✓ drink /m);
    expect(raw.code, raw.stderr).toBe(0);
    const answer = json(raw);
    expect(answer.related.map((r: { event_id: string }) => r.event_id)).toEqual(['tea', 'coffee']);
    expect(answer.related[0].explanation).toMatchObject({
      terms: [
        { word: 'alice', matched: true },
        { word: 'drink', matched: true },
      ],
      tie_break_terms: [
        { word: 'what', matched: false },
        { word: 'does', matched: false },
      ],
    });
  });

  it('when delete has no --yes and no terminal, then it refuses with exit 2 and deletes nothing; with --yes it deletes', async () => {
    const tenant = await createTenant();
    const { tm } = cliUser();
    const env = { TM_API_KEY: tenant.api_key };
    const namespace = uniqueNamespace('cli-delete');
    await tm(['write', 'keep me for now', '-n', namespace], { env });

    const refused = await tm(['delete', '-n', namespace], { env });
    const afterRefusal = await tm(['recall', 'keep', '-n', namespace, '--json'], { env });
    const deleted = await tm(['delete', '-n', namespace, '--yes', '--json'], { env });
    const afterDelete = await tm(['recall', 'keep', '-n', namespace, '--json'], { env });

    expect(refused).toMatchObject({ code: 2, stdout: '' });
    expect(refused.stderr).toContain('pass --yes to confirm');
    expect(json(afterRefusal).related).toHaveLength(1);
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(json(deleted)).toMatchObject({ state: 'not_retained', namespace, deleted: 1, retained: 0 });
    expect(json(afterDelete)).toMatchObject({ retrieval_outcome: 'no_match', related: [] });
  });
});

describe('tm memories forget', () => {
  it('when forgetting without --yes and no terminal, then nothing is forgotten (exit 2); with --yes, the memory is gone; again, the first receipt (Replayed); an unknown id is exit 3', async () => {
    const tenant = await createTenant();
    const { tm } = cliUser();
    await tm(['login', '--api-key-stdin'], { input: tenant.api_key });
    const namespace = uniqueNamespace('cli-forget');
    const written = await tm(['write', 'the locker code is 4711', '-n', namespace, '--json']);
    const memoryId = json(written).memory_id as string;

    const refused = await tm(['memories', 'forget', memoryId]);
    const kept = await tm(['recall', 'locker code', '-n', namespace, '--json']);
    const forgotten = await tm(['memories', 'forget', memoryId, '--yes', '--json']);
    const again = await tm(['memories', 'forget', memoryId, '--yes']);
    const gone = await tm(['recall', 'locker code', '-n', namespace, '--json']);
    const unknown = await tm(['memories', 'forget', '0193f1c2-7a4e-7c1d-9d2a-3c4b5d6e7f80', '--yes']);

    expect(refused).toMatchObject({ code: 2, stdout: '' });
    expect(refused.stderr).toContain('pass --yes to confirm');
    expect(json(kept).related).toHaveLength(1);
    expect(forgotten.code, forgotten.stderr).toBe(0);
    expect(json(forgotten)).toMatchObject({
      state: 'not_retained',
      memory_id: memoryId,
      namespace,
      idempotency_outcome: 'Accepted',
      removed: { postings: 5, supersession_relations: 0 },
    });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/idempotency:\s+Replayed/);
    expect(json(gone)).toMatchObject({ retrieval_outcome: 'no_match', related: [] });
    expect(unknown.code).toBe(3);
    expect(unknown.stderr).toContain('not_found');
  });
});

describe('tm write --file (batches)', () => {
  it('when a JSONL file has good, bad-JSON, invalid and replayed lines, then bad lines are not sent, each failing line is named, exit 3; resent, every good line replays', async () => {
    const tenant = await createTenant();
    const { tm, home } = cliUser();
    await tm(['login', '--api-key-stdin'], { input: tenant.api_key });
    const namespace = uniqueNamespace('cli-batch');
    const at = '2026-11-22T09:30:00Z';
    const line = (key: string, text: string) =>
      JSON.stringify({ idempotency_key: key, event: { occurred_at: at, content: { text } } });
    await tm(['write', 'Bob is vegan', '-n', namespace, '--key', 'old-1', '--occurred-at', at]);
    const file = join(home, 'events.jsonl');
    writeFileSync(
      file,
      [
        line('new-1', 'Alice prefers green tea'), // 1: accepted
        '{"idempotency_key": "x", "event": ', // 2: bad JSON, never sent
        line('bad-1', '   '), // 3: refused by the service (empty text)
        '', // 4: blank, skipped
        line('old-1', 'Bob is vegan'), // 5: replayed (written before with tm write --key)
        line('new-2', 'Carol likes jazz'), // 6: accepted
      ].join('\n'),
    );

    const first = await tm(['write', '-n', namespace, '--file', file, '--json']);
    const again = await tm(['write', '-n', namespace, '--file', file]);

    expect(first.code, first.stderr).toBe(3);
    expect(json(first)).toMatchObject({
      namespace,
      item_counts: { total: 5, accepted: 2, replayed: 1, conflict: 0, invalid: 2, failed: 0 },
      failed_lines: [
        { line: 2, status: 0, code: 'invalid_line', error: expect.stringContaining('not JSON') },
        {
          line: 3,
          status: 400,
          code: 'validation_failed',
          fields: [{ path: 'event.content.text', message: expect.any(String) }],
        },
      ],
      request_ids: [expect.any(String)],
    });
    // The service counts the batch's items (line 3 is its items[1]): the CLI speaks of lines only.
    expect(JSON.stringify(json(first).failed_lines)).not.toMatch(/items\[/);
    expect(await recordsInNamespace(tenant.tenant_id, namespace)).toBe(3);
    expect(again.code, again.stderr).toBe(3);
    expect(again.stdout).toMatch(/accepted: +0\n/);
    expect(again.stdout).toMatch(/replayed: +3\n/);
    expect(again.stdout).toMatch(/invalid: +2\n/);
    expect(again.stdout).toMatch(/^2 +not sent +invalid_line +not JSON/m);
    expect(again.stdout).toMatch(/^3 +400 +validation_failed .*event\.content\.text/m);
    expect(again.stdout).not.toMatch(/items\[/);
  });

  it('when a file of 250 good lines is written, then it goes in 3 batches, exit 0; resent, all are Replayed', async () => {
    const tenant = await createTenant();
    const { tm, home } = cliUser();
    await tm(['login', '--api-key-stdin'], { input: tenant.api_key });
    const namespace = uniqueNamespace('cli-batch');
    const file = join(home, 'many.jsonl');
    writeFileSync(
      file,
      `${Array.from({ length: 250 }, (_, i) =>
        JSON.stringify({
          idempotency_key: `k-${i}`,
          event: { occurred_at: '2026-11-22T09:30:00Z', content: { text: `note ${i}` } },
        }),
      ).join('\n')}\n`,
    );

    const first = await tm(['write', '-n', namespace, '-f', file, '--json']);
    const again = await tm(['write', '-n', namespace, '-f', file, '--json']);

    expect(first.code, first.stderr).toBe(0);
    expect(json(first)).toMatchObject({
      item_counts: { total: 250, accepted: 250, replayed: 0 },
      failed_lines: [],
      request_ids: [expect.any(String), expect.any(String), expect.any(String)],
    });
    expect(again.code, again.stderr).toBe(0);
    expect(json(again)).toMatchObject({
      item_counts: { total: 250, accepted: 0, replayed: 250 },
      failed_lines: [],
    });
  });

  it('when the file has more than 100,000 lines or a text is given too, then exit 2 and nothing is sent', async () => {
    const { tm, home } = cliUser();
    const file = join(home, 'huge.jsonl');
    writeFileSync(file, '{}\n'.repeat(100_001));

    const tooLong = await tm(['write', '-n', 'ns', '--file', file]);
    const both = await tm(['write', 'some text', '-n', 'ns', '--file', file]);

    expect(tooLong.code).toBe(2);
    expect(tooLong.stderr).toContain('more than 100000');
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('not both');
  });
});

describe('tm namespaces', () => {
  it('when a tenant has two namespaces, then a table, one page with a cursor to follow, --all and --json list them by name with counts', async () => {
    const tenant = await createTenant();
    const { tm } = cliUser();
    const env = { TM_API_KEY: tenant.api_key };
    const base = uniqueNamespace('cli-ns');
    const [first, second] = [`${base}-a`, `${base}-b`];
    await tm(['write', 'second, once', '-n', second], { env });
    await tm(['write', 'first, once', '-n', first], { env });
    await tm(['write', 'first, twice', '-n', first], { env });

    const table = await tm(['namespaces'], { env });
    const onePage = await tm(['namespaces', '--limit', '1'], { env });
    const page = await tm(['namespaces', '--json'], { env });
    const all = await tm(['namespaces', '--all', '--limit', '1', '--json'], { env });

    expect(table).toMatchObject({ code: 0, stderr: '' });
    expect(table.stdout).toMatch(/^NAMESPACE +RECORDS +CURRENT +SUPERSEDED +LAST RETAINED AT$/m);
    expect(table.stdout).toMatch(new RegExp(`^${first} +2 +2 +0 +\\d{4}-\\d\\d-\\d\\dT[^ ]+Z$`, 'm'));
    expect(table.stdout.indexOf(first)).toBeLessThan(table.stdout.indexOf(second));
    expect(onePage.code, onePage.stderr).toBe(0);
    expect(onePage.stdout).toContain(first);
    expect(onePage.stdout).not.toContain(second);
    expect(onePage.stderr).toMatch(/^more: --cursor [A-Za-z0-9_-]+, or --all$/m);
    expect(page.code, page.stderr).toBe(0);
    expect(json(page)).toMatchObject({
      contract_version: 'v1',
      data: [
        { namespace: first, records: 2, current_records: 2, superseded_records: 0 },
        { namespace: second, records: 1, current_records: 1, superseded_records: 0 },
      ],
      paging: { limit: 100, returned: 2, has_more: false, next_cursor: null },
    });
    expect(all).toMatchObject({ code: 0, stderr: '' });
    expect(json(all).map((n: { namespace: string }) => n.namespace)).toEqual([first, second]);
  });
});

describe('tm exit codes and error output', () => {
  it('when a namespace is invalid, then the SDK refuses it before sending: exit 2, a JSON error on stderr', async () => {
    const tenant = await createTenant();
    const { tm } = cliUser();

    const run = await tm(['recall', 'tea', '-n', 'not a namespace!', '--json'], {
      env: { TM_API_KEY: tenant.api_key },
    });

    expect(run).toMatchObject({ code: 2, stdout: '' });
    expect(JSON.parse(run.stderr)).toEqual({
      error: expect.stringContaining('namespace must start with a letter or digit'),
      code: 'validation_failed',
      fields: [{ path: 'namespace', message: expect.any(String) }],
    });
  });

  it('when a flag is not a number, then commander refuses it with exit 2', async () => {
    const { tm } = cliUser();

    const run = await tm(['recall', 'tea', '-n', 'ns', '--top-k', 'many'], { env: { TM_API_KEY: 'tmk_x' } });

    expect(run).toMatchObject({ code: 2, stdout: '' });
    expect(run.stderr).toContain("option '-k, --top-k <count>' argument 'many' is invalid");
  });

  it('when the key is wrong, then the service refuses with 401: exit 3 saying the key sent was not accepted, with code and request id, and the key is not printed', async () => {
    const wrongKey = `tmk_wrong_${uniqueNamespace('key')}`;
    const { tm } = cliUser();

    const run = await tm(['recall', 'tea', '-n', 'ns'], { env: { TM_API_KEY: wrongKey } });
    const login = await tm(['login', '--api-key-stdin'], { input: wrongKey });

    expect(run).toMatchObject({
      code: 3,
      stdout: '',
      stderr: expect.stringMatching(
        /^tm: The API key was not accepted: it is unknown, revoked or mistyped\. Run `tm login` with a valid key, or set TM_API_KEY\n {2}code: authentication_required {2}status: 401 {2}request id: \S+\n$/,
      ),
    });
    expect(run.stderr).not.toContain(wrongKey);
    expect(login).toMatchObject({ code: 3, stdout: '' });
    expect(login.stderr).toMatch(/^tm: The API key was not accepted: /);
    expect(login.stderr).not.toContain(wrongKey);
  });

  it('when the session token is refused, then exit 3 saying the session token was not accepted, never that none was sent, and the token is not printed', async () => {
    const token = `ended-session-${uniqueNamespace('token')}`;
    const { tm } = cliUser();

    const run = await tm(['keys', 'list'], { env: { TM_SESSION_TOKEN: token } });

    expect(run).toMatchObject({
      code: 3,
      stdout: '',
      stderr: expect.stringMatching(
        /^tm: The session token was not accepted: it is unknown, expired or ended\. Run `tm login --email <email>` again, or set TM_SESSION_TOKEN\n {2}code: authentication_required {2}status: 401 {2}request id: \S+\n$/,
      ),
    });
    expect(run.stderr).not.toContain(token);
  });

  it('when nothing listens at the base URL, then exit 4 after the retries', async () => {
    const { tm } = cliUser();

    const run = await tm(['health', '--json'], { env: { TM_BASE_URL: 'http://127.0.0.1:9' } });

    expect(run).toMatchObject({ code: 4, stdout: '' });
    expect(JSON.parse(run.stderr)).toMatchObject({ code: 'connection_failed' });
  });

  it('when health answers 503 unavailable, then the report is printed and the exit code is 4', async () => {
    // A stand-in deployment whose memory database is down: the gateway's 503 health report.
    const report = {
      status: 'unavailable',
      available: false,
      execution_mode: 'mock',
      services: { memory: { available: false, required: true } },
      error: 'memory (database) unavailable',
      retryable: true,
    };
    const server = createServer((_req, res) => {
      res
        .writeHead(503, { 'content-type': 'application/json', 'retry-after': '2' })
        .end(JSON.stringify(report));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    const { tm } = cliUser();

    const run = await tm(['health', '--json'], { env: { TM_BASE_URL: `http://127.0.0.1:${port}` } }).finally(
      () => new Promise((resolve) => server.close(resolve)),
    );

    expect(run.code).toBe(4);
    expect(JSON.parse(run.stdout)).toMatchObject({ status: 'unavailable', available: false });
  });
});

describe('tm health and status for people', () => {
  it('when health and status are asked without --json, then each service is one aligned line: state, required, dependencies', async () => {
    const tenant = await createTenant();
    const { tm } = cliUser();

    const health = await tm(['health']);
    const status = await tm(['status'], { env: { TM_API_KEY: tenant.api_key } });

    for (const run of [health, status]) {
      expect(run).toMatchObject({ code: 0, stderr: '' });
      expect(run.stdout).toMatch(/^SERVICE +STATE +REQUIRED +DEPENDENCIES$/m);
      expect(run.stdout).toMatch(/^memory +available +yes +database up \d+ ms/m);
      expect(run.stdout).not.toContain('{');
    }
    expect(health.stdout).toMatch(/^status: +ok$/m);
    expect(status.stdout).toMatch(/^consent: +\w+$/m);
  });
});

describe('tm export', () => {
  it('when the output is -, then the export is written to stdout and the summary to stderr; no file named - appears', async () => {
    const tenant = await createTenant();
    const { tm, home } = cliUser();
    const env = { TM_API_KEY: tenant.api_key };
    const namespace = uniqueNamespace('cli-export');
    await tm(['write', 'exported to stdout', '-n', namespace], { env });

    const run = await tm(['export', '-n', namespace, '-o', '-'], { env, cwd: home });

    expect(run.code, run.stderr).toBe(0);
    expect(JSON.stringify(JSON.parse(run.stdout))).toContain('exported to stdout');
    expect(run.stderr).toMatch(/^Exported \d+ bytes to stdout \(request id \S+\)$/m);
    expect(existsSync(join(home, '-'))).toBe(false);
  });
});

describe('tm restore', () => {
  it('when an export file is restored into another namespace, then exit 0 with the records written; restored again, nothing is written; a record changed under its event id is listed and exit 3', async () => {
    const tenant = await createTenant();
    const { tm, home } = cliUser();
    const env = { TM_API_KEY: tenant.api_key };
    const source = uniqueNamespace('cli-source');
    const target = uniqueNamespace('cli-target');
    await tm(['write', 'The pier opens at six', '-n', source, '--key', 'pier-1'], { env });
    await tm(
      ['write', 'The pier opens at seven', '-n', source, '--key', 'pier-2', '--supersedes', 'pier-1'],
      {
        env,
      },
    );
    const file = join(home, 'export.json');
    expect((await tm(['export', '-n', source, '-o', file], { env })).code).toBe(0);
    const edited = join(home, 'edited.json');
    writeFileSync(
      edited,
      readFileSync(file, 'utf8')
        .replace('open at seven', 'opens at eight')
        .replace('opens at seven', 'opens at eight'),
    );

    const first = await tm(['restore', '--file', file, '-n', target, '--json'], { env });
    const again = await tm(['restore', '--file', file, '-n', target, '--json'], { env });
    const changed = await tm(['restore', '--file', edited, '-n', target], { env });

    expect(first.code, first.stderr).toBe(0);
    expect(json(first)).toMatchObject({
      state: 'completed',
      namespace: target,
      from_namespace: source,
      total: 2,
      written: 2,
      failures: [],
    });
    expect(again.code, again.stderr).toBe(0);
    expect(json(again)).toMatchObject({ written: 0, already_present: 2, failed: 0 });
    expect(changed.code, changed.stderr).toBe(3);
    expect(changed.stdout).toMatch(/^failed: +1$/m);
    expect(changed.stdout).toMatch(/pier-2\s+write_refused/);
  });

  it('when the file is not JSON, then exit 2 and nothing is sent', async () => {
    const { tm, home } = cliUser();
    const file = join(home, 'not-an-export.json');
    writeFileSync(file, '{"records": [');

    const run = await tm(['restore', '--file', file], { env: { TM_API_KEY: 'tm_unused' } });

    expect(run.code).toBe(2);
    expect(run.stderr).toContain('is not an export file');
  });
});

describe('secrets on the command line', () => {
  it('when the API key or the operator token is passed as a flag, then it still works with a warning on stderr; stdin and the environment work without one', async () => {
    const tenant = await createTenant();
    const session = await t.api.login(tenant.owner.email, tenant.owner.password);
    const issued = await t.api.post('/api/v1/control/operator-tokens', {
      key: session,
      body: { name: 'cli flags' },
    });
    expect(issued.status).toBe(201);
    const operatorToken = issued.body.token as string;
    recordSecrets([operatorToken]);
    const { tm } = cliUser();
    const env = { TM_API_KEY: tenant.api_key };

    const loginFlag = await tm(['login', '--api-key', tenant.api_key]);
    const tokenFlag = await tm(['smoke-test', '--operator-token', operatorToken], { env });
    const tokenStdin = await tm(['smoke-test', '--operator-token-stdin'], {
      env,
      input: `${operatorToken}\n`,
    });
    const tokenEnv = await tm(['smoke-test', '--json'], {
      env: { ...env, TM_OPERATOR_TOKEN: operatorToken },
    });

    expect(loginFlag.code, loginFlag.stderr).toBe(0);
    expect(loginFlag.stderr).toBe(
      'tm: warning: --api-key puts the secret in shell history and the process list; prefer the prompt, --api-key-stdin or TM_API_KEY\n',
    );
    expect(tokenFlag.code, tokenFlag.stderr).toBe(0);
    expect(tokenFlag.stderr).toBe(
      'tm: warning: --operator-token puts the secret in shell history and the process list; prefer TM_OPERATOR_TOKEN or --operator-token-stdin\n',
    );
    expect(tokenFlag.stdout).toMatch(/^outcome: +passed$/m);
    expect(tokenStdin).toMatchObject({ code: 0, stderr: '' });
    expect(tokenStdin.stdout).toMatch(/^outcome: +passed$/m);
    expect(tokenEnv).toMatchObject({ code: 0, stderr: '' });
    expect(json(tokenEnv)).toMatchObject({ outcome: 'passed' });
    for (const run of [loginFlag, tokenFlag, tokenStdin, tokenEnv]) {
      expect(`${run.stdout}${run.stderr}`).not.toContain(operatorToken);
      expect(`${run.stdout}${run.stderr}`).not.toContain(tenant.api_key);
    }
  });
});

describe('tm smoke-test', () => {
  it('when the memory service is stopped, then it prints the report with the write step failed and exits 4, --json prints the report; once memory is back, it exits 0', async () => {
    const tenant = await createTenant();
    const session = await t.api.login(tenant.owner.email, tenant.owner.password);
    const issued = await t.api.post('/api/v1/control/operator-tokens', {
      key: session,
      body: { name: 'cli smoke' },
    });
    expect(issued.status).toBe(201);
    recordSecrets([issued.body.token]);
    const { tm } = cliUser();
    const env = { TM_API_KEY: tenant.api_key, TM_OPERATOR_TOKEN: issued.body.token as string };

    await t.stack.stopMemory();
    let human: Awaited<ReturnType<typeof tm>>;
    let asJson: Awaited<ReturnType<typeof tm>>;
    try {
      human = await tm(['smoke-test'], { env });
      asJson = await tm(['smoke-test', '--json'], { env });
    } finally {
      await t.stack.startMemory();
    }

    expect(human.code, human.stderr).toBe(4);
    expect(human.stdout).toMatch(/^outcome: +failed$/m);
    expect(human.stdout).toMatch(/^request id: +\S+$/m);
    expect(human.stdout).toMatch(/^STEP +OUTCOME +MS +DETAIL$/m);
    expect(human.stdout).toMatch(/^write +failed +\d+ +\S/m);
    expect(human.stdout).toMatch(/^recall +skipped /m);
    expect(`${human.stdout}${human.stderr}`).not.toContain(issued.body.token);
    expect(asJson.code, asJson.stderr).toBe(4);
    const report = json(asJson);
    expect(report).toMatchObject({
      outcome: 'failed',
      namespace: expect.stringMatching(/^tm-smoke-test\//),
      metered: true,
      retryable: true,
      details: { code: 'service_unavailable', request_id: report.request_id },
    });
    expect(
      Object.fromEntries(report.steps.map((s: { step: string; outcome: string }) => [s.step, s.outcome])),
    ).toMatchObject({
      write: 'failed',
      recall: 'skipped',
    });

    await expect.poll(async () => (await tm(['smoke-test'], { env })).code, EVENTUALLY).toBe(0);
    const passed = await tm(['smoke-test', '--json'], { env });
    expect(passed.code, passed.stderr).toBe(0);
    expect(json(passed)).toMatchObject({ outcome: 'passed' });
  });
});

describe('tm import', () => {
  it('when a CSV is imported with --yes, then the estimate, progress lines, completion and the failed row are shown', async () => {
    const tenant = await createTenant();
    const { tm, home } = cliUser();
    const env = { TM_API_KEY: tenant.api_key };
    const namespace = uniqueNamespace('cli-import');
    const file = join(home, 'people.csv');
    writeFileSync(file, 'name,city\nAna,Lisbon\nBo,\nonly-one-value\n');

    const run = await tm(
      [
        'import',
        file,
        '-n',
        namespace,
        '--format',
        '{name} lives in {city|an unknown city}.',
        '--yes',
        '--interval-ms',
        '200',
      ],
      { env },
    );
    const recall = await tm(['recall', 'who lives in an unknown city', '-n', namespace, '--json'], { env });

    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^rows: +3$/m);
    expect(run.stdout).toMatch(/^billable rows: +2$/m);
    expect(run.stdout).toMatch(/^estimated cost: +0\.0002 USD/m);
    expect(run.stderr).toMatch(/^upload .*B of .*B$/m);
    expect(run.stderr).toMatch(/^import 3\/3 rows \(retained 2, failed 1\)$/m);
    expect(run.stdout).toMatch(/^state: +completed$/m);
    expect(run.stdout).toMatch(/^retained: +2 of 3$/m);
    expect(run.stdout).toMatch(/^ROW +REASON +MESSAGE$/m);
    expect(run.stdout).toMatch(/^4 +malformed_row /m);
    expect(json(recall).related.map((r: { text: string }) => r.text)).toContain(
      'Bo lives in an unknown city.',
    );
  });

  it('when there is no --yes and no terminal to confirm on, then exit 2 before anything is sent: no upload, no job left behind', async () => {
    const tenant = await createTenant();
    const { tm, home } = cliUser();
    const env = { TM_API_KEY: tenant.api_key };
    const namespace = uniqueNamespace('cli-import-refused');
    const file = join(home, 'rows.csv');
    writeFileSync(file, 'text\nnot imported\n');

    const run = await tm(['import', file, '-n', namespace, '--format', '{text}'], { env });
    const recall = await tm(['recall', 'imported', '-n', namespace, '--json'], { env });

    expect(run).toMatchObject({
      code: 2,
      stdout: '',
      stderr:
        'tm: No terminal to confirm the estimate on: pass --yes to import without asking (nothing was sent)\n  code: usage_error\n',
    });
    expect(await importJobsOf(tenant.tenant_id)).toBe(0);
    expect(json(recall)).toMatchObject({ retrieval_outcome: 'no_match', related: [] });
  });

  it('when a --format placeholder matches no column, then the service refuses the estimate: exit 3 naming it and the columns, nothing imported', async () => {
    const tenant = await createTenant();
    const { tm, home } = cliUser();
    const env = { TM_API_KEY: tenant.api_key };
    const namespace = uniqueNamespace('cli-import-typo');
    const file = join(home, 'people.csv');
    writeFileSync(file, 'name,city\nAna,Lisbon\n');

    const run = await tm(['import', file, '-n', namespace, '--format', '{nmae} lives in {city}', '--yes'], {
      env,
    });

    const message =
      'Placeholder {nmae} matches no column of the file (columns: name, city); name a column, or give a default: {nmae|…}';
    expect(run).toMatchObject({ code: 3, stdout: '' });
    expect(run.stderr).toContain(`tm: ${message}\n  code: validation_failed  status: 400`);
    expect(run.stderr).toContain(`\n  format: ${message}\n`);
    expect(await importJobsOf(tenant.tenant_id)).toBe(0);
    expect(await recordsInNamespace(tenant.tenant_id, namespace)).toBe(0);
  });
});

describe('tm keys with a session', () => {
  it('when the owner logs in by email, then keys create/list work, the new key writes, and once revoked it gets exit 3', async () => {
    const tenant = await createTenant();
    const { tm, config } = cliUser();

    const login = await tm(['login', '--email', tenant.owner.email, '--password-stdin'], {
      input: `${tenant.owner.password}\n`,
    });
    const stored = JSON.parse(readFileSync(config, 'utf8'));
    recordSecrets([stored.session_token]);
    const created = await tm([
      'keys',
      'create',
      '--name',
      'cli-bot',
      '--permissions',
      'memory:write',
      '--json',
    ]);
    const key = json(created) as { id: string; key: string };
    recordSecrets([key.key]);
    const list = await tm(['keys', 'list']);
    const write = await tm(['write', 'written with the new key', '-n', uniqueNamespace('cli-keys')], {
      env: { TM_API_KEY: key.key },
    });
    const revoke = await tm(['keys', 'revoke', key.id, '--json']);
    const afterRevoke = await tm(['write', 'refused now', '-n', uniqueNamespace('cli-keys')], {
      env: { TM_API_KEY: key.key },
    });

    expect(login.code, login.stderr).toBe(0);
    expect(login.stdout).toContain(`as ${tenant.owner.email} (owner`);
    expect(`${login.stdout}${login.stderr}`).not.toContain(stored.session_token);
    expect(`${login.stdout}${login.stderr}`).not.toContain(tenant.owner.password);
    expect(stored).toEqual({
      base_url: t.stack.url,
      session_token: expect.any(String),
      email: tenant.owner.email,
    });
    expect(statSync(config).mode & 0o777).toBe(0o600);
    expect(created.code, created.stderr).toBe(0);
    expect(json(created)).toMatchObject({
      name: 'cli-bot',
      status: 'active',
      permissions: ['memory:write'],
      key: expect.stringMatching(/^tmk_/),
    });
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toMatch(/^ID +NAME +KEY +STATUS +PERMISSIONS +LAST USED$/m);
    expect(list.stdout).toMatch(new RegExp(`^${key.id} +cli-bot +\\S+ +active +memory:write`, 'm'));
    expect(list.stdout).not.toContain(key.key);
    expect(write.code, write.stderr).toBe(0);
    expect(json(revoke)).toMatchObject({ id: key.id, status: 'revoked' });
    expect(afterRevoke.code).toBe(3);
    expect(afterRevoke.stderr).toContain('The API key was not accepted: it is unknown, revoked or mistyped');
    expect(afterRevoke.stderr).toContain('status: 401');
    expect(afterRevoke.stderr).not.toContain(key.key);
  });
});

/** The CLI README's install block with its placeholder folder replaced by `packs`: what a user runs. */
function readmeInstall(packs: string): string {
  const readme = readFileSync(join(repo, 'libs', 'clients', 'cli', 'README.md'), 'utf8');
  const block = /<!-- install:[^>]*-->\n```sh\n([\s\S]*?)```/.exec(readme)?.[1];
  if (block === undefined) throw new Error('libs/clients/cli/README.md has no block marked install');
  return block.replaceAll('/path/to/text-memory/dist/packages', packs);
}

describe('packed @text-memory/sdk and @text-memory/cli installed with npm', () => {
  it('when the README’s install block runs in a fresh folder, then both tarballs install in its one npm install, tm --help answers, and node_modules/.bin/tm health --json answers from the stack', async () => {
    const packs = mkdtempSync(join(tmpdir(), 'tm-packs-'));
    const project = mkdtempSync(join(tmpdir(), 'tm-user-'));
    writeFileSync(join(project, 'package.json'), '{ "name": "tm-user", "private": true }\n');
    const { packageManager } = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8'));
    const version = (name: string) =>
      JSON.parse(readFileSync(join(repo, 'libs', 'clients', name, 'package.json'), 'utf8')).version as string;
    // pnpm (not npm) packs: it turns `workspace:^` into the SDK's real version range.
    const pnpm = (cwd: string) =>
      runCommand('npx', ['--yes', packageManager, 'pack', '--pack-destination', packs], { cwd });

    const packed = [
      await pnpm(join(repo, 'libs', 'clients', 'sdk')),
      await pnpm(join(repo, 'libs', 'clients', 'cli')),
    ];
    // The block as written, by a shell (its globs and line continuation); npm's audit, fund notice and
    // install scripts off through npm's own environment settings, so the command itself is the README's.
    const install = await runCommand('sh', ['-e', '-c', readmeInstall(packs)], {
      cwd: project,
      env: { npm_config_audit: 'false', npm_config_fund: 'false', npm_config_ignore_scripts: 'true' },
    });
    const installed = JSON.parse(
      readFileSync(join(project, 'node_modules', '@text-memory', 'cli', 'package.json'), 'utf8'),
    );
    const health = await runCommand(join(project, 'node_modules', '.bin', 'tm'), ['health', '--json'], {
      cwd: project,
      env: { TM_BASE_URL: t.stack.url, TM_CONFIG: join(project, 'config.json') },
    });

    for (const run of packed) expect(run.code, run.stderr).toBe(0);
    expect(install.code, install.stderr).toBe(0);
    expect(install.stdout).toMatch(/^Usage: tm /m);
    expect(installed).toMatchObject({
      name: '@text-memory/cli',
      version: version('cli'),
      license: 'Apache-2.0',
      bin: { tm: './dist/bin.js' },
      // pnpm pack turns the workspace range into the SDK's version: semver from the CLI's side.
      dependencies: { '@text-memory/sdk': `^${version('sdk')}` },
    });
    expect(existsSync(join(project, 'node_modules', '@text-memory', 'cli', 'README.md'))).toBe(true);
    expect(health.code, health.stderr).toBe(0);
    expect(JSON.parse(health.stdout)).toMatchObject({
      status: 'ok',
      available: true,
      contract_version: 'v1',
    });
  }, 120_000);
});

describe('tm login with a throttled account', () => {
  it('when the account has had too many failed logins, then tm says how long to wait and exits 3 at once, without retrying', async () => {
    const tenant = await createTenant();
    for (let i = 0; i < 10; i++) {
      const failed = await t.api.post('/api/v1/control/sessions', {
        body: { email: tenant.owner.email, password: `not-the-password-${i}` },
      });
      expect(failed.status).toBe(401);
    }
    const { tm, config } = cliUser();

    // Retrying would wait out Retry-After (30 s a try, the SDK's cap): past this test's timeout.
    const login = await tm(['login', '--email', tenant.owner.email, '--password-stdin'], {
      input: `${tenant.owner.password}\n`,
    });

    expect(login.code).toBe(3);
    expect(login.stderr).toMatch(
      /^tm: Too many failed password attempts for this account; try again in \d+ minutes\n {2}code: rate_limited {2}status: 429/,
    );
    expect(login.stderr).not.toContain(tenant.owner.password);
    expect(existsSync(config)).toBe(false);
  });
});
