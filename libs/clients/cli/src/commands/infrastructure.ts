import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { Writable } from 'node:stream';
import type { HealthResponse, NamespaceSummary, RequestEvent } from '@text-memory/sdk';
import type { Command } from 'commander';
import { type Context, withContext } from '../context.js';
import { EXIT, ExitWith, UsageError } from '../exit-codes.js';
import type { Output } from '../output.js';
import { parseCount } from '../parse.js';
import { startProgress } from '../progress.js';
import { readStdinLine } from '../prompt.js';
import { secretFlagWarning } from '../secret-flags.js';

function eventsTable(out: Output, events: readonly RequestEvent[]): void {
  out.table(events, [
    { header: 'occurred at', value: (e) => e.occurred_at },
    { header: 'operation', value: (e) => e.operation ?? `${e.method} ${e.route}` },
    { header: 'status', value: (e) => e.status },
    { header: 'outcome', value: (e) => e.outcome },
    { header: 'error', value: (e) => e.error_code },
    { header: 'ms', value: (e) => Math.round(e.latency_ms) },
    { header: 'units', value: (e) => e.units },
    { header: 'request id', value: (e) => e.request_id },
  ]);
}

async function events(ctx: Context, options: { limit?: number; offset?: number; all?: boolean }) {
  const tm = ctx.client('either');
  const query = {
    ...(options.limit !== undefined ? { limit: options.limit } : {}),
    ...(options.offset !== undefined ? { offset: options.offset } : {}),
  };
  if (options.all) {
    const all: RequestEvent[] = [];
    for await (const event of tm.infrastructure.events(query)) all.push(event);
    ctx.out.result(all, () => eventsTable(ctx.out, all));
    return;
  }
  const page = await tm.infrastructure.eventsPage(query);
  ctx.out.result(page, () => {
    eventsTable(ctx.out, page.data);
    const { paging } = page;
    ctx.out.note(
      `${paging.offset + 1}-${paging.offset + paging.returned} of ${paging.total}` +
        (paging.has_more ? ` (next: --offset ${paging.next_offset}, or --all)` : ''),
    );
  });
}

function namespacesTable(out: Output, namespaces: readonly NamespaceSummary[]): void {
  out.table(namespaces, [
    { header: 'namespace', value: (n) => n.namespace },
    { header: 'records', value: (n) => n.records },
    { header: 'current', value: (n) => n.current_records },
    { header: 'superseded', value: (n) => n.superseded_records },
    { header: 'last retained at', value: (n) => n.last_retained_at },
  ]);
}

async function namespaces(ctx: Context, options: { limit?: number; cursor?: string; all?: boolean }) {
  const tm = ctx.client('either');
  const limit = options.limit !== undefined ? { limit: options.limit } : {};
  let page = await tm.infrastructure.namespaces({
    ...limit,
    ...(options.cursor !== undefined ? { cursor: options.cursor } : {}),
  });
  if (options.all) {
    const all = [...page.data];
    while (page.paging.next_cursor) {
      page = await tm.infrastructure.namespaces({ ...limit, cursor: page.paging.next_cursor });
      all.push(...page.data);
    }
    ctx.out.result(all, () => namespacesTable(ctx.out, all));
    return;
  }
  const { data, paging } = page;
  ctx.out.result(page, () => {
    namespacesTable(ctx.out, data);
    if (paging.next_cursor) ctx.out.note(`more: --cursor ${paging.next_cursor}, or --all`);
  });
}

const windowQuery = (options: { windowMinutes?: number }) =>
  options.windowMinutes !== undefined ? { window_minutes: options.windowMinutes } : {};

async function metrics(ctx: Context, options: { windowMinutes?: number }) {
  const result = await ctx.client('either').infrastructure.metrics(windowQuery(options));
  ctx.out.result(result, () => {
    const q = result.quality;
    ctx.out.record([
      ['state', result.state],
      ['window', `${result.window.minutes} min (${result.window.from} to ${result.window.to})`],
      ['requests', q.requests],
      ['errors', `${q.errors} (rate ${q.error_rate})`],
      ['timeouts', `${q.timeouts} (rate ${q.timeout_rate})`],
      ['blocked', `${q.blocked} (rate ${q.blocked_rate})`],
      ['deployment', `${result.deployment.deployment_version} ${result.deployment.environment}`],
    ]);
    ctx.out.line();
    ctx.out.table(result.latency, [
      { header: 'operation', value: (l) => l.operation },
      { header: 'requests', value: (l) => l.requests },
      { header: 'p50 ms', value: (l) => l.p50_ms },
      { header: 'p95 ms', value: (l) => l.p95_ms },
      { header: 'p99 ms', value: (l) => l.p99_ms },
      { header: 'max ms', value: (l) => l.max_ms },
    ]);
  });
}

async function anomalies(ctx: Context, options: { windowMinutes?: number }) {
  const result = await ctx.client('either').infrastructure.anomalies(windowQuery(options));
  ctx.out.result(result, () => {
    ctx.out.record([
      ['state', result.state],
      ['window', `${result.window.minutes} min`],
      ['anomalies', result.anomaly_count],
    ]);
    if (result.anomalies.length > 0) {
      ctx.out.line();
      ctx.out.table(result.anomalies, [
        { header: 'signal', value: (a) => a.name },
        { header: 'severity', value: (a) => a.severity },
        { header: 'observed', value: (a) => a.observed },
        { header: 'threshold', value: (a) => a.threshold },
        { header: 'message', value: (a) => a.message, max: 70 },
      ]);
    }
  });
}

async function usage(ctx: Context, options: { windowMinutes?: number }) {
  const result = await ctx.client('either').infrastructure.usage(windowQuery(options));
  ctx.out.result(result, () => {
    ctx.out.record([
      ['state', result.state],
      ['window', `${result.window.minutes} min`],
      ['requests', result.request_volume],
      ['recorded charge', `${result.recorded_charge_usd} USD${result.sandbox ? ' (sandbox)' : ''}`],
      ['pricing', result.pricing_version],
    ]);
    ctx.out.line();
    ctx.out.table(result.operations, [
      { header: 'operation', value: (o) => o.operation },
      { header: 'requests', value: (o) => o.requests },
      { header: 'units', value: (o) => o.units },
      { header: 'charge usd', value: (o) => o.recorded_charge_usd },
    ]);
  });
}

type Services = HealthResponse['services'];

/** What a service reported of its dependencies, in a line: `database up 2 ms, usage-outbox up 0 pending`. */
function dependencies(service: Services[string]): string | undefined {
  const entries = Object.entries(service.dependencies ?? {});
  if (entries.length === 0) return undefined;
  return entries
    .map(([name, d]) =>
      [
        name,
        d.available ? 'up' : 'down',
        d.latency_ms === undefined ? undefined : `${Math.round(d.latency_ms)} ms`,
        d.pending === undefined ? undefined : `${d.pending} pending`,
      ]
        .filter(Boolean)
        .join(' '),
    )
    .join(', ');
}

/** One aligned line per service (`--json` keeps the whole report). */
function servicesTable(out: Output, services: Services): void {
  out.table(Object.entries(services), [
    { header: 'service', value: ([name]) => name },
    { header: 'state', value: ([, s]) => (s.available ? 'available' : 'unavailable') },
    { header: 'required', value: ([, s]) => (s.required ? 'yes' : 'no') },
    { header: 'dependencies', value: ([, s]) => dependencies(s), max: 100 },
  ]);
}

async function status(ctx: Context) {
  const result = await ctx.client('either').infrastructure.status();
  ctx.out.result(result, () => {
    ctx.out.record([
      ['status', result.status],
      ['available', result.available],
      ['deployment', `${result.deployment_version} ${result.environment}`],
      ['execution', `${result.execution_mode} (${result.provider}, ${result.model_version})`],
      ['monitoring', result.monitoring.state],
      ['anomalies', result.monitoring.anomaly_count],
      ['consent', result.consent.state],
      ['request id', result.request_id],
    ]);
    ctx.out.line();
    servicesTable(ctx.out, result.services);
  });
}

async function health(ctx: Context) {
  const result = await ctx.client('none').infrastructure.health();
  ctx.out.result(result, () => {
    ctx.out.record([
      ['status', result.status],
      ['available', result.available],
      ['deployment', `${result.deployment_version} ${result.environment}`],
      ['execution mode', result.execution_mode],
      ['production ready', result.production_ready],
      ['contract / schema', `${result.contract_version} / ${result.schema_version}`],
      ['checked at', result.checked_at],
    ]);
    ctx.out.line();
    servicesTable(ctx.out, result.services);
  });
  // The report is printed either way; scripts and probes branch on the code.
  if (!result.available) throw new ExitWith(EXIT.unavailable);
}

async function capabilities(ctx: Context) {
  const result = await ctx.client('none').infrastructure.capabilities();
  ctx.out.result(result, () => {
    ctx.out.table(result.capabilities, [
      { header: 'capability', value: (c) => c.title },
      { header: 'status', value: (c) => c.status },
      { header: 'meaning', value: (c) => c.meaning, max: 70 },
    ]);
    ctx.out.line();
    ctx.out.table(result.operations, [
      { header: 'operation', value: (o) => o.operation },
      { header: 'route', value: (o) => `${o.method} ${o.path}` },
      { header: 'status', value: (o) => o.status },
    ]);
    ctx.out.line();
    ctx.out.record(Object.entries(result.limits as Record<string, unknown>));
  });
}

/** `-o -`: the export on stdout, with backpressure; stdout itself is never closed. */
function stdoutStream(): WritableStream<Uint8Array> {
  return new WritableStream<Uint8Array>({
    write: (chunk) =>
      new Promise<void>((resolve, reject) =>
        process.stdout.write(chunk, (error) => (error ? reject(error) : resolve())),
      ),
  });
}

async function exportCommand(ctx: Context, options: { namespace?: string[]; output: string }) {
  const tm = ctx.client('either');
  const toStdout = options.output === '-';
  const progress = startProgress('export', { unit: 'bytes', json: ctx.out.json });
  const destination = toStdout
    ? stdoutStream()
    : (Writable.toWeb(createWriteStream(options.output)) as WritableStream<Uint8Array>);
  let written = 0;
  // Counted on the way to the file, so the progress moves while the export streams.
  const counter = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      written += chunk.byteLength;
      progress.update(written);
      controller.enqueue(chunk);
    },
  });
  const toFile = counter.readable.pipeTo(destination);
  try {
    const result = await tm.infrastructure.exportTo(
      counter.writable,
      options.namespace ? { namespace: options.namespace } : {},
    );
    // The SDK is done when the last chunk entered the counter; the file is done when it is flushed.
    await toFile;
    progress.stop();
    const summary = `Exported ${result.bytes} bytes to ${toStdout ? 'stdout' : options.output} (request id ${result.request_id})`;
    // On stdout the export is all there is: the summary goes to stderr, even with --json.
    if (toStdout) process.stderr.write(`${ctx.out.json ? JSON.stringify(result) : summary}\n`);
    else ctx.out.result(result, () => ctx.out.line(summary));
  } catch (error) {
    progress.stop();
    // Refused before streaming: the counter was never piped into, so end it here.
    if (!counter.writable.locked) await counter.writable.abort(error).catch(() => {});
    await toFile.catch(() => {});
    // A partial export would look like a whole one.
    if (!toStdout) await rm(options.output, { force: true });
    throw error;
  }
}

async function smokeTest(ctx: Context, options: { operatorToken?: string; operatorTokenStdin?: boolean }) {
  if (options.operatorToken !== undefined) {
    if (options.operatorTokenStdin)
      throw new UsageError('Give either --operator-token or --operator-token-stdin');
    ctx.out.warn(secretFlagWarning('--operator-token', 'TM_OPERATOR_TOKEN or --operator-token-stdin'));
  }
  const operatorToken = options.operatorTokenStdin
    ? (await readStdinLine()).trim()
    : (options.operatorToken ?? process.env.TM_OPERATOR_TOKEN);
  if (!operatorToken)
    throw new UsageError('Set TM_OPERATOR_TOKEN, or pipe the token to --operator-token-stdin');
  const result = await ctx.client('apiKey', { operatorToken }).infrastructure.smokeTest();
  ctx.out.result(result, () => {
    ctx.out.record([
      ['outcome', result.outcome],
      ['namespace', result.namespace],
      ['metered', result.metered],
      ['request id', result.request_id],
    ]);
    ctx.out.line();
    ctx.out.table(result.steps, [
      { header: 'step', value: (s) => s.step },
      { header: 'outcome', value: (s) => s.outcome },
      { header: 'ms', value: (s) => (s.latency_ms === null ? null : Math.round(s.latency_ms)) },
      { header: 'detail', value: (s) => s.detail, max: 70 },
    ]);
  });
  // A failed step's report (the route's 503) is printed like a passed one; scripts branch on the code.
  if (result.outcome === 'failed') throw new ExitWith(EXIT.unavailable);
}

export function registerInfrastructure(program: Command): void {
  program
    .command('health')
    .description('Readiness of the deployment (no credential needed)')
    .action(withContext(health));
  program
    .command('capabilities')
    .description('Operations, capability statuses and input limits (no credential needed)')
    .action(withContext(capabilities));
  program
    .command('status')
    .description('Combined health, monitoring, anomalies and consent')
    .action(withContext(status));
  program
    .command('usage')
    .description('Request volume, operations and charges over a window, from the billing ledger')
    .option('-w, --window-minutes <minutes>', 'lookback window', parseCount)
    .action(withContext(usage));
  program
    .command('metrics')
    .description('Latency percentiles, request quality and operation mix over a window')
    .option('-w, --window-minutes <minutes>', 'lookback window', parseCount)
    .action(withContext(metrics));
  program
    .command('anomalies')
    .description('Thresholded signals over a window')
    .option('-w, --window-minutes <minutes>', 'lookback window', parseCount)
    .addHelpText('after', '\nExample:\n  tm anomalies --window-minutes 15')
    .action(withContext(anomalies));
  program
    .command('events')
    .description('The redacted request history, newest first (one page, or --all)')
    .option('--limit <count>', 'rows per page (server default 100)', parseCount)
    .option('--offset <count>', 'start after this many rows', parseCount)
    .option('--all', 'fetch every page from --offset on')
    .addHelpText('after', '\nExamples:\n  tm events --limit 20\n  tm events --all --json > history.json')
    .action(withContext(events));
  program
    .command('namespaces')
    .description("The tenant's namespaces that hold records, by name, with their counts (one page, or --all)")
    .option('--limit <count>', 'namespaces per page (server default 100, at most 1000)', parseCount)
    .option('--cursor <cursor>', 'start after the page that gave this next_cursor')
    .option('--all', 'fetch every page')
    .addHelpText('after', '\nExamples:\n  tm namespaces\n  tm namespaces --all --json > namespaces.json')
    .action(withContext(namespaces));
  program
    .command('export')
    .description('Stream the JSON export (records, supersession relations, redacted history) to a file')
    .option('-n, --namespace <namespaces...>', 'namespaces to export (default: all)')
    .requiredOption('-o, --output <file>', 'where to write the export (- for stdout)')
    .addHelpText(
      'after',
      '\nExamples:\n  tm export -n support-bot -o export.json\n  tm export -o - | gzip > export.json.gz',
    )
    .action(withContext(exportCommand));
  program
    .command('smoke-test')
    .description(
      'The authorized diagnostic (write, recall, delete in a reserved namespace); metered. Exits 4 when a step failed',
    )
    .option('--operator-token-stdin', 'read the tenant operator token from stdin (or set TM_OPERATOR_TOKEN)')
    .option(
      '--operator-token <token>',
      'the token as a flag: kept for compatibility, with a warning (it shows in shell history and the process list)',
    )
    .addHelpText(
      'after',
      '\nExamples:\n  TM_OPERATOR_TOKEN=tmo_... tm smoke-test\n  tm smoke-test --operator-token-stdin < operator-token.txt',
    )
    .action(withContext(smokeTest));
}
