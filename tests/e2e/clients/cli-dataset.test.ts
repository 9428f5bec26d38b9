import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { cliUsers, json, type Run, requireBuiltCli } from '../support/cli.js';
import { createTenant, uniqueNamespace } from '../support/factories.js';
import { recordSecrets } from '../support/log-capture.js';
import { useStack } from '../support/stack.js';
import { type StubDataset, type StubHub, startStubHub } from '../support/stub-hub.js';

// `tm import --dataset` as a user runs it: the built CLI (support/cli.ts) against this file's
// stack, whose template service reads the stub hub. Each step is a new node process: a hang guard.
vi.setConfig({ testTimeout: 90_000 });

let hub: StubHub;
beforeAll(async () => {
  requireBuiltCli();
  hub = await startStubHub();
});
afterAll(() => hub?.close());

const t = useStack({
  templateEnv: () => ({
    ...hub.env,
    HUB_TIMEOUT_MS: '2000',
    HUB_RETRIES: '1',
    HUB_RETRY_BASE_MS: '20',
    IMPORT_POLL_MS: '200',
    IMPORT_SECRET_KEY: randomBytes(32).toString('base64url'),
  }),
});
const cliUser = cliUsers(() => t.stack.url);

const FORMAT = 'Q: {question} A: {answer}';
let serial = 0;

/** A small dataset on the stub hub: three train rows, two test rows. */
function addDataset(label: string, extra: Partial<StubDataset> = {}): StubDataset {
  const rows = (split: string, count: number) =>
    Array.from({ length: count }, (_, i) => ({ question: `${split} question ${i}`, answer: `answer ${i}` }));
  const dataset: StubDataset = {
    id: `stub-org/${label}-${process.pid}-${++serial}`,
    sha: randomBytes(20).toString('hex'),
    configs: { default: { train: rows('train', 3), test: rows('test', 2) } },
    columns: ['question', 'answer'],
    ...extra,
  };
  hub.add(dataset);
  return dataset;
}

const rowRequestsOf = (dataset: StubDataset) =>
  hub.requests.filter(
    (r) => r.url.startsWith('/viewer/rows') && r.url.includes(encodeURIComponent(dataset.id)),
  );
const hubRequestsOf = (dataset: StubDataset) =>
  hub.requests.filter((r) => r.url.includes(dataset.id) || r.url.includes(encodeURIComponent(dataset.id)));

/** The tenant's namespaces holding records, through `tm namespaces --all --json`. */
async function namespacesOf(tm: ReturnType<typeof cliUser>['tm'], env: Record<string, string>) {
  const run = await tm(['namespaces', '--all', '--json'], { env });
  expect(run.code, run.stderr).toBe(0);
  return json(run) as Array<{ namespace: string; records: number }>;
}

const importArgs = (dataset: StubDataset, namespace: string, ...more: string[]) => [
  'import',
  '--dataset',
  dataset.id,
  '-n',
  namespace,
  '--format',
  FORMAT,
  '--interval-ms',
  '200',
  ...more,
];

describe('tm import --dataset from the model hub', () => {
  it('when a split is imported with --yes, then the estimate from the hub’s metadata, progress and completion are shown and every row is stored with its source', async () => {
    const dataset = addDataset('qa');
    const tenant = await createTenant();
    const { tm } = cliUser();
    const env = { TM_API_KEY: tenant.api_key };
    const namespace = uniqueNamespace('cli-hub');

    const run = await tm(importArgs(dataset, namespace, '--split', 'train', '--yes'), { env });
    const recall = await tm(['recall', 'train question answer', '-n', namespace, '--top-k', '10', '--json'], {
      env,
    });
    const namespaces = await namespacesOf(tm, env);

    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`^dataset: +${dataset.id} default/train @ ${dataset.sha}$`, 'm'));
    expect(run.stdout).toMatch(new RegExp(`^namespace: +${namespace}$`, 'm'));
    expect(run.stdout).toMatch(/^rows: +3$/m);
    expect(run.stdout).toMatch(/^billable rows: +3$/m);
    expect(run.stdout).toMatch(/^estimated cost: +0\.0003 USD/m);
    expect(run.stderr).toMatch(/^import 3\/3 rows \(retained 3, failed 0\)$/m);
    expect(run.stdout).toMatch(/^state: +completed$/m);
    expect(run.stdout).toMatch(/^retained: +3 of 3$/m);
    expect(run.stdout).toMatch(/^failed: +0$/m);
    expect(run.stdout).not.toContain('REASON'); // no failure table
    expect(rowRequestsOf(dataset).length).toBeGreaterThan(0);
    expect(recall.code, recall.stderr).toBe(0);
    const related = (json(recall).related as Array<{ text: string; source: unknown }>).toSorted((a, b) =>
      a.text.localeCompare(b.text),
    );
    expect(related).toEqual(
      [0, 1, 2].map((row) =>
        expect.objectContaining({
          text: `Q: train question ${row} A: answer ${row}`,
          source: { type: 'hub_dataset', id: `hub:${dataset.id}@${dataset.sha}:default/train#${row}` },
        }),
      ),
    );
    expect(namespaces).toContainEqual(expect.objectContaining({ namespace, records: 3 }));
  });

  it('when a split is imported with --json, then stdout is only the SDK’s estimate, final job and failures, with the dataset stamped on the job', async () => {
    const dataset = addDataset('qa-json');
    const tenant = await createTenant();
    const { tm } = cliUser();
    const namespace = uniqueNamespace('cli-hub-json');

    const run = await tm(importArgs(dataset, namespace, '--split', 'test', '--yes', '--json'), {
      env: { TM_API_KEY: tenant.api_key },
    });

    expect(run).toMatchObject({ code: 0, stderr: '' });
    const stamp = { id: dataset.id, config: 'default', split: 'test', revision: dataset.sha };
    expect(json(run)).toEqual({
      estimate: expect.objectContaining({
        state: 'estimated',
        dataset: stamp,
        file_name: null,
        namespace,
        format: FORMAT,
        total: 2,
        estimate: expect.objectContaining({ rows: 2, billable_rows: 2, estimated_cost_usd: 0.0002 }),
      }),
      job: expect.objectContaining({
        id: json(run).estimate.id,
        state: 'completed',
        dataset: stamp,
        total: 2,
        processed: 2,
        retained: 2,
        failed: 0,
        error: null,
      }),
      failures: expect.objectContaining({ failures: [] }),
    });
  });

  it('when there is no --yes and no terminal to confirm on, then exit 2 before anything is sent: the hub is not even asked', async () => {
    const dataset = addDataset('unconfirmed');
    const tenant = await createTenant();
    const { tm } = cliUser();
    const env = { TM_API_KEY: tenant.api_key };
    const namespace = uniqueNamespace('cli-hub-unconfirmed');

    const run = await tm(importArgs(dataset, namespace, '--split', 'train'), { env });

    expect(run).toMatchObject({
      code: 2,
      stdout: '',
      stderr:
        'tm: No terminal to confirm the estimate on: pass --yes to import without asking (nothing was sent)\n  code: usage_error\n',
    });
    expect(hubRequestsOf(dataset)).toEqual([]);
    expect((await namespacesOf(tm, env)).map((n) => n.namespace)).not.toContain(namespace);
  });

  it('when the split does not exist, then the service’s 422 dataset_split_unavailable is exit 3 listing the splits there are, and nothing is stored', async () => {
    const dataset = addDataset('splits');
    const tenant = await createTenant();
    const { tm } = cliUser();
    const env = { TM_API_KEY: tenant.api_key };
    const namespace = uniqueNamespace('cli-hub-split');

    const run = await tm(importArgs(dataset, namespace, '--split', 'validation', '--yes'), { env });
    const asJson = await tm(importArgs(dataset, namespace, '--split', 'validation', '--yes', '--json'), {
      env,
    });

    expect(run).toMatchObject({ code: 3, stdout: '' });
    expect(run.stderr).toMatch(/^tm: .*Available splits: train, test/m);
    expect(run.stderr).toMatch(/^ {2}code: dataset_split_unavailable {2}status: 422 {2}request id: \S+$/m);
    expect(run.stderr).toMatch(/^ {2}split: available: train, test$/m);
    expect(asJson).toMatchObject({ code: 3, stdout: '' });
    expect(JSON.parse(asJson.stderr)).toMatchObject({
      code: 'dataset_split_unavailable',
      status: 422,
      fields: [{ path: 'split', message: 'available: train, test' }],
    });
    expect(rowRequestsOf(dataset)).toEqual([]);
    expect((await namespacesOf(tm, env)).map((n) => n.namespace)).not.toContain(namespace);
  });

  it('when a dataset is gated, then without TM_HUB_TOKEN or with a token lacking access it is exit 3 dataset_gated, with the token it imports, and no token is ever printed', async () => {
    const token = `hf_${randomBytes(24).toString('base64url')}`;
    const wrong = `hf_${randomBytes(24).toString('base64url')}`;
    recordSecrets([token, wrong]);
    const dataset = addDataset('gated', { token });
    const tenant = await createTenant();
    const { tm } = cliUser();
    const env = { TM_API_KEY: tenant.api_key };
    const namespace = uniqueNamespace('cli-hub-gated');
    const args = importArgs(dataset, namespace, '--split', 'train', '--yes');

    const without = await tm(args, { env });
    const refused = await tm(args, { env: { ...env, TM_HUB_TOKEN: wrong } });
    const refusedJson = await tm([...args, '--json'], { env: { ...env, TM_HUB_TOKEN: wrong } });
    const storedAfterRefusals = (await namespacesOf(tm, env)).map((n) => n.namespace);
    const accepted = await tm(args, { env: { ...env, TM_HUB_TOKEN: token } });
    const recall = await tm(['recall', 'train question', '-n', namespace, '--top-k', '10', '--json'], {
      env,
    });

    expect(without).toMatchObject({ code: 3, stdout: '' });
    expect(without.stderr).toMatch(/^ {2}code: dataset_gated {2}status: 403 /m);
    expect(without.stderr).toMatch(/^ {2}hub_token: is required$/m);
    expect(without.stderr).toContain('set TM_HUB_TOKEN');
    expect(refused).toMatchObject({ code: 3, stdout: '' });
    expect(refused.stderr).toMatch(/^ {2}hub_token: has no access to the dataset$/m);
    expect(refusedJson).toMatchObject({ code: 3, stdout: '' });
    expect(JSON.parse(refusedJson.stderr)).toMatchObject({ code: 'dataset_gated', status: 403 });
    expect(storedAfterRefusals).not.toContain(namespace);
    expect(accepted.code, accepted.stderr).toBe(0);
    expect(accepted.stdout).toMatch(/^state: +completed$/m);
    expect(accepted.stdout).toMatch(/^retained: +3 of 3$/m);
    expect(json(recall).related).toHaveLength(3);
    // The hub saw the token where it belongs: the Authorization of every row read.
    expect(rowRequestsOf(dataset).length).toBeGreaterThan(0);
    expect(rowRequestsOf(dataset).every((r) => r.authorization === `Bearer ${token}`)).toBe(true);
    const printed = (run: Run) => `${run.stdout}${run.stderr}`;
    for (const run of [without, refused, refusedJson, accepted]) {
      expect(printed(run)).not.toContain(token);
      expect(printed(run)).not.toContain(wrong);
    }
  });
});

describe('tm import --dataset usage errors', () => {
  /** A stand-in service at TM_BASE_URL that records every request: a usage error must send none. */
  async function recordingService() {
    const requests: string[] = [];
    const server = createServer((req: IncomingMessage, res) => {
      requests.push(`${req.method} ${req.url}`);
      res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"not expected"}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    return {
      requests,
      url: `http://127.0.0.1:${port}`,
      close: () => new Promise<void>((resolve) => server.close(() => resolve())),
    };
  }

  it('when --dataset comes without --split, or with a file too, then exit 2 with the reason and no request is sent', async () => {
    const dataset = addDataset('usage');
    const service = await recordingService();
    const { tm, home } = cliUser();
    const env = { TM_API_KEY: 'tmk_usage_not_sent', TM_BASE_URL: service.url };
    const namespace = uniqueNamespace('cli-hub-usage');

    const noSplit = await tm(importArgs(dataset, namespace, '--yes'), { env });
    const noSplitJson = await tm(importArgs(dataset, namespace, '--yes', '--json'), { env });
    const withFile = await tm(
      [...importArgs(dataset, namespace, '--split', 'train', '--yes'), join(home, 'rows.csv')],
      {
        env,
      },
    ).finally(service.close);

    expect(noSplit).toMatchObject({ code: 2, stdout: '' });
    expect(noSplit.stderr).toContain('--dataset needs --split (e.g. --split train)');
    expect(noSplitJson).toMatchObject({ code: 2, stdout: '' });
    expect(JSON.parse(noSplitJson.stderr)).toEqual({
      error: '--dataset needs --split (e.g. --split train)',
      code: 'usage_error',
    });
    expect(withFile).toMatchObject({ code: 2, stdout: '' });
    expect(withFile.stderr).toContain('Give a file or --dataset owner/name, not both');
    expect(service.requests).toEqual([]);
    expect(hubRequestsOf(dataset)).toEqual([]);
  });
});
