/**
 * `pnpm bench`: load-test a running stack (`pnpm start`) with autocannon and print a markdown report.
 *
 *   1. baseline  bare Express 5 + pg, one INSERT per request (child process, throwaway database);
 *                same-work: bare Express 5 + pg running the memory service's own write statement
 *   2. write     POST /api/v1/memory/write, unique idempotency key and fresh text per request
 *      batch     memories a second through POST /api/v1/memory/write/batch (100 events a request) against
 *                single writes, both on --batch-connections (4), back to back, from the same corpus
 *   3. recall    POST /api/v1/memory/recall on a small namespace
 *   4. recall    latency as one namespace grows through the sizes (10k, 100k, 1M), seeded straight into the
 *                memory database (--seed direct, checked against the tokenizer and plain counting) or via the API;
 *                at each size the same-work server runs the memory service's own ranking on the same namespace
 *   5. telemetry events, metrics, anomalies and status over the history the run left (one record per request)
 *
 * With --quality it runs none of these, only the recall-quality bench on LoCoMo (quality/run-quality-bench.ts).
 *
 * The bench's namespaces are deleted at the end. See tests/load/bench-options.ts for flags.
 */
import { writeFile } from 'node:fs/promises';
import { availableParallelism, loadavg } from 'node:os';
import { resolveApiKey } from './api-key.js';
import { type BaselineServer, startBaseline, startSameWork } from './baseline.js';
import { dropBenchDatabases } from './baseline-database.js';
import { type BenchOptions, readBenchOptions } from './bench-options.js';
import { batchTable, benchTargets, type Measured, ratioTable } from './bench-targets.js';
import {
  checkStack,
  cleanUpNamespaces,
  recallRequests,
  WRITE_BATCH_SIZE,
  writeBatchRequests,
  writeRequests,
} from './memory-api.js';
import { vacuumMemoryTables } from './memory-statistics.js';
import { runQualityBench } from './quality/run-quality-bench.js';
import { recallChartSvg } from './recall-chart.js';
import { type ScenarioRow, scenarioTable, targetTable } from './report.js';
import { newRunId } from './run-id.js';
import { type LoadRequest, type LoadResult, runLoad } from './run-load.js';
import { seedNamespace } from './seed.js';
import { checkSeededNamespace } from './seed-check.js';
import { seedDirect } from './seed-direct.js';
import { seedTelemetry, tenantOfRequest } from './seed-telemetry.js';
import { describeStorage, memoryTableSizes } from './storage-report.js';
import { historySize, lastRequestId, telemetryReads } from './telemetry-api.js';
import { estimateHitShare, TextCorpus } from './text-corpus.js';

const log = (message: string) =>
  console.error(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}`);
const count = (n: number) => n.toLocaleString('en-US');

/** Unmeasured warm-up (JIT, pools, caches), then the measured run, with the same settings. */
async function measure(request: LoadRequest, baseUrl: string, connections: number, options: BenchOptions) {
  if (options.warmup > 0) await runLoad(request, { baseUrl, connections, duration: options.warmup });
  return runLoad(request, { baseUrl, connections, duration: options.duration });
}

function describe(label: string, r: LoadResult) {
  log(
    `${label}: ${r.rps.toFixed(0)} req/s, p50 ${r.p50.toFixed(1)} / p95 ${r.p95.toFixed(1)} / p99 ${r.p99.toFixed(1)} ms` +
      ` (${r.ok} ok, status ${JSON.stringify(r.statusCodes)}, ${r.errors} errors)`,
  );
}

async function main() {
  const options = readBenchOptions(process.argv.slice(2));
  if (options.quality) return runQualityBench(options, log);
  const { baseUrl } = options;
  const started = Date.now();
  const loadBefore = loadavg()[0] ?? 0;
  const { apiKey, source } = await resolveApiKey();
  log(`stack ${baseUrl}, key from ${source}`);
  await checkStack(baseUrl, apiKey);
  // The key's tenant, read from telemetry's record of a request: for the same-work server's recalls
  // and the telemetry seeding.
  const tenantId = await tenantOfRequest(await lastRequestId(baseUrl, apiKey));

  const runId = newRunId();
  const namespaces = {
    write: `bench-${runId}-write`,
    batchSingle: `bench-${runId}-batch-single`,
    batch: `bench-${runId}-batch`,
    small: `bench-${runId}-small`,
    large: `bench-${runId}-large`,
  };
  const corpus = new TextCorpus();
  const rows: ScenarioRow[] = [];
  const notes: string[] = [];
  const recallAt: Measured['recallAt'] = new Map();
  const telemetry = new Map<string, LoadResult>();
  let baselineRps = Number.NaN;
  let sameWorkWriteRps = Number.NaN;
  let writeRps = Number.NaN;
  let batchWrite: Measured['batchWrite'];
  let sameWork: BaselineServer | undefined;
  const recall = (namespace: string, cue?: () => string) => recallRequests(apiKey, namespace, corpus, cue);
  const target = (namespace: string, keyPrefix: string) => ({ baseUrl, apiKey, namespace, keyPrefix });
  const seed = (namespace: string, keyPrefix: string, records: number) =>
    options.seed === 'direct'
      ? seedDirect(target(namespace, keyPrefix), corpus, records, log)
      : seedNamespace(target(namespace, keyPrefix), corpus, records, options.seedConnections, log);

  try {
    // 1. Baseline, right before the write scenario so both see the same machine state.
    log('baseline: starting Express 5 + pg server in a throwaway database');
    const baseline = await startBaseline();
    try {
      const result = await measure(
        writeRequests(apiKey, 'baseline', corpus, `${runId}-baseline`),
        baseline.url,
        options.connections,
        options,
      );
      describe('baseline', result);
      rows.push({
        scenario: 'Baseline: bare Express 5 + pg, one INSERT',
        records: '-',
        connections: options.connections,
        result,
      });
      baselineRps = result.rps;
    } finally {
      await baseline.stop();
    }

    // 1b. The same-work baseline's writes: the memory service's own statement, nothing around it.
    log("same-work: starting Express 5 + pg with the memory service's statements");
    sameWork = await startSameWork(tenantId);
    const sameWorkWrite = await measure(
      writeRequests(apiKey, 'same-work', corpus, `${runId}-same-work`),
      sameWork.url,
      options.connections,
      options,
    );
    describe('same-work write', sameWorkWrite);
    rows.push({
      scenario: 'Same-work baseline: the write statement',
      records: '-',
      connections: options.connections,
      result: sameWorkWrite,
    });
    sameWorkWriteRps = sameWorkWrite.rps;

    // 2. Write throughput.
    const write = await measure(
      writeRequests(apiKey, namespaces.write, corpus, `${runId}-write`),
      baseUrl,
      options.connections,
      options,
    );
    describe('write', write);
    rows.push({
      scenario: 'Write (unique key, fresh text)',
      records: 'growing',
      connections: options.connections,
      result: write,
    });
    writeRps = write.rps;

    // 2b. Batch write: memories a second through /write/batch against single /write calls on the
    // same connections, from the same corpus, back to back (single first), each into a fresh namespace.
    const batchSingle = await measure(
      writeRequests(apiKey, namespaces.batchSingle, corpus, `${runId}-batch-single`),
      baseUrl,
      options.batchConnections,
      options,
    );
    describe('write (batch comparison)', batchSingle);
    const batch = await measure(
      writeBatchRequests(apiKey, namespaces.batch, corpus, `${runId}-batch`, WRITE_BATCH_SIZE),
      baseUrl,
      options.batchConnections,
      options,
    );
    describe(`batch write (${WRITE_BATCH_SIZE} a request)`, batch);
    rows.push(
      {
        scenario: 'Write, single events (batch comparison)',
        records: 'growing',
        connections: options.batchConnections,
        result: batchSingle,
      },
      {
        scenario: `Batch write, ${WRITE_BATCH_SIZE} events a request (req/s = batches)`,
        records: 'growing',
        connections: options.batchConnections,
        result: batch,
      },
    );
    batchWrite = {
      connections: options.batchConnections,
      size: WRITE_BATCH_SIZE,
      single: batchSingle,
      batch,
    };
    if (batch.statusCodes['429'])
      notes.push(
        `The batch write met the per-key rate limit (${batch.statusCodes['429']}×429): a batch counts one request per event, ` +
          'so its memories a second are capped by RATE_LIMIT_PER_KEY (2,000 by default); raise it on the stack to measure past it.',
      );

    // 3. Recall throughput on a small namespace.
    await seed(namespaces.small, `${runId}-small`, options.smallSize);
    await vacuumMemoryTables();
    const small = await measure(recall(namespaces.small), baseUrl, options.connections, options);
    describe('recall (small)', small);
    rows.push({
      scenario: 'Recall, small namespace',
      records: count(options.smallSize),
      connections: options.connections,
      result: small,
    });

    // 4. Recall latency as one namespace grows: one connection (service time) and under load.
    let size = 0;
    for (const next of options.sizes) {
      const seeded = await seed(namespaces.large, `${runId}-large-${next}`, next - size);
      notes.push(
        options.seed === 'direct'
          ? `Seeding ${count(size)} → ${count(next)} records straight into the memory database: ${seeded.seconds.toFixed(0)} s at ${seeded.rps.toFixed(0)} records/s.`
          : `Seeding ${count(size)} → ${count(next)} records: ${seeded.seconds.toFixed(0)} s at ${seeded.rps.toFixed(0)} writes/s` +
              ` with ${options.seedConnections} connections${seeded.failed ? ` (${seeded.failed} writes not retained, topped up)` : ''}.`,
      );
      size = next;
      await vacuumMemoryTables();
      notes.push(describeStorage(next, await memoryTableSizes()));
      if (options.seed === 'direct') {
        const checked = await checkSeededNamespace({ baseUrl, apiKey, namespace: namespaces.large }, corpus);
        log(`seed check at ${count(next)}: ${checked}`);
      }
      const sameWorkSingle = await measure(recall(namespaces.large), sameWork.url, 1, options);
      describe(`same-work recall @${next}, 1 connection`, sameWorkSingle);
      const single = await measure(recall(namespaces.large), baseUrl, 1, options);
      describe(`recall @${next}, 1 connection`, single);
      const rare = await measure(
        recall(namespaces.large, () => corpus.rareCue()),
        baseUrl,
        1,
        options,
      );
      describe(`recall @${next}, 1 connection, rare-word cues`, rare);
      const common = await measure(
        recall(namespaces.large, () => corpus.commonCue()),
        baseUrl,
        1,
        options,
      );
      describe(`recall @${next}, 1 connection, common-word cues`, common);
      const question = await measure(
        recall(namespaces.large, () => corpus.questionCue()),
        baseUrl,
        1,
        options,
      );
      describe(`recall @${next}, 1 connection, natural questions`, question);
      const sameWorkLoaded = await measure(
        recall(namespaces.large),
        sameWork.url,
        options.connections,
        options,
      );
      describe(`same-work recall @${next}, ${options.connections} connections`, sameWorkLoaded);
      const loaded = await measure(recall(namespaces.large), baseUrl, options.connections, options);
      describe(`recall @${next}, ${options.connections} connections`, loaded);
      const loadedQuestions = await measure(
        recall(namespaces.large, () => corpus.questionCue()),
        baseUrl,
        options.connections,
        options,
      );
      describe(`recall @${next}, ${options.connections} connections, natural questions`, loadedQuestions);
      rows.push({
        scenario: 'Same-work baseline: the ranking, one client',
        records: count(next),
        connections: 1,
        result: sameWorkSingle,
      });
      rows.push({ scenario: 'Recall, one client', records: count(next), connections: 1, result: single });
      rows.push({
        scenario: 'Recall, one client, rare-word cues',
        records: count(next),
        connections: 1,
        result: rare,
      });
      rows.push({
        scenario: 'Recall, one client, common-word cues',
        records: count(next),
        connections: 1,
        result: common,
      });
      rows.push({
        scenario: 'Recall, one client, natural questions',
        records: count(next),
        connections: 1,
        result: question,
      });
      rows.push({
        scenario: 'Same-work baseline: the ranking, under load',
        records: count(next),
        connections: options.connections,
        result: sameWorkLoaded,
      });
      rows.push({
        scenario: 'Recall, under load',
        records: count(next),
        connections: options.connections,
        result: loaded,
      });
      rows.push({
        scenario: 'Recall, under load, natural questions',
        records: count(next),
        connections: options.connections,
        result: loadedQuestions,
      });
      recallAt.set(next, {
        single,
        rare,
        common,
        question,
        loaded,
        loadedQuestions,
        sameWorkSingle,
        sameWorkLoaded,
      });
    }

    // 5. Telemetry reads, one client, over every request this run made (each is a record by now),
    // and the history --telemetry-records seeded.
    const { recent, older } = options.telemetryRecords;
    if (recent + older > 0) {
      const seconds = await seedTelemetry(tenantId, { recent, older }, log);
      notes.push(
        `Seeded ${count(recent)} request records in the last hour and ${count(older)} older ones in ${seconds.toFixed(0)} s.`,
      );
    }
    const history = count(await historySize(baseUrl, apiKey));
    for (const [label, request] of telemetryReads(apiKey)) {
      const result = await measure(request, baseUrl, 1, options);
      describe(`telemetry ${label}`, result);
      rows.push({ scenario: `Telemetry: ${label}`, records: `${history} requests`, connections: 1, result });
      telemetry.set(label, result);
    }
  } finally {
    // Dropped only now: DROP DATABASE forces a checkpoint, and one between the baseline and the write
    // scenario made every write after it pay full-page images in the WAL that the baseline never paid.
    await sameWork?.stop();
    await dropBenchDatabases();
    notes.push(
      ...(await cleanUpNamespaces(
        { baseUrl, apiKey, keySource: source },
        Object.values(namespaces),
        options.keep,
        log,
      )),
    );
  }

  notes.push(
    `1-minute load average ${loadBefore.toFixed(2)} before the run and ${(loadavg()[0] ?? 0).toFixed(2)} after it ` +
      `on ${availableParallelism()} CPUs (bench client, stack, PostgreSQL and NATS share them; so does anything else running).`,
  );
  const share = estimateHitShare({});
  notes.unshift(
    `Cues (3-6 words) and texts (8-32 words) come from a ${count(corpus.words.length)}-word vocabulary with a Zipf (s = 1) ` +
      `distribution; a cue shares at least one term with a median ${(share.median * 100).toFixed(0)}% ` +
      `(p90 ${(share.p90 * 100).toFixed(0)}%) of the records, all of which recall scores.`,
  );

  const measured: Measured = {
    baselineRps,
    sameWorkWriteRps,
    writeRps,
    connections: options.connections,
    batchWrite,
    recallAt,
    telemetry,
  };
  const targets = benchTargets(measured);
  notes.push(
    'Telemetry targets are for 1M request records in the last hour (10M in history); the history above is what this run left.',
  );

  if (options.chart) {
    const points = [...recallAt].flatMap(([records, byScenario]) =>
      (
        [
          ['one client, Zipf cues', byScenario.single],
          ['one client, rare-word cues', byScenario.rare],
          ['one client, common-word cues', byScenario.common],
          ['one client, natural questions', byScenario.question],
          [`${options.connections} connections, Zipf cues`, byScenario.loaded],
          [`${options.connections} connections, natural questions`, byScenario.loadedQuestions],
        ] as const
      ).map(([scenario, r]) => ({ records, scenario, p50: r.p50, p95: r.p95 })),
    );
    await writeFile(
      options.chart,
      await recallChartSvg(
        points,
        `Recall latency by namespace size (${new Date().toISOString().slice(0, 10)})`,
      ),
    );
    log(`chart written to ${options.chart}`);
  }

  const minutes = ((Date.now() - started) / 60_000).toFixed(1);
  console.log(
    [
      `## Benchmark ${new Date().toISOString()}${options.quick ? ' (quick)' : ''}`,
      '',
      `Stack ${baseUrl}; ${options.duration} s measured per scenario after ${options.warmup} s warm-up; ` +
        `latencies are of successful requests; run took ${minutes} min.`,
      '',
      scenarioTable(rows),
      '',
      ratioTable(measured),
      '',
      ...(batchWrite ? [batchTable(measured), ''] : []),
      targetTable(targets),
      '',
      ...notes.map((n) => `- ${n}`),
    ].join('\n'),
  );
  return options.check && targets.some((t) => t.met === false) ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(`bench: ${(err as Error).stack ?? err}`);
    process.exit(2);
  },
);
