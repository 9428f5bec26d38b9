import { readFileSync, statSync } from 'node:fs';
import {
  type DeleteReceipt,
  LIMITS,
  type RecallResponse,
  type WriteBatchItem,
  type WriteBatchItemCounts,
} from '@text-memory/sdk';
import type { Command } from 'commander';
import { type Context, withContext } from '../context.js';
import { EXIT, ExitWith, UsageError } from '../exit-codes.js';
import type { Output } from '../output.js';
import { parseCount, parseTimestamp } from '../parse.js';
import { startProgress } from '../progress.js';
import { confirmOrRefuse, readStdin } from '../prompt.js';
import { explainedRecallLines } from '../recall-explanation.js';

interface WriteOptions {
  namespace: string;
  key?: string;
  occurredAt?: string;
  supersedes?: string[];
  recall?: boolean;
  file?: string;
}

function showRecall(out: Output, recall: RecallResponse): void {
  out.record([
    ['retrieval outcome', recall.retrieval_outcome],
    // v1 while the namespace is re-indexed after an upgrade: worth seeing when scores look unweighted.
    ['ranking', recall.ranking.model_version],
    ['request id', recall.request_id],
  ]);
  out.line();
  if (recall.related.some((r) => r.explanation)) {
    for (const line of explainedRecallLines(recall.related)) out.line(line);
    return;
  }
  out.table(recall.related, [
    { header: 'score', value: (r) => r.score.toFixed(3) },
    { header: 'event id', value: (r) => r.event_id },
    { header: 'occurred at', value: (r) => r.occurred_at },
    { header: 'text', value: (r) => r.text, max: 80 },
  ]);
}

async function write(ctx: Context, argument: string | undefined, options: WriteOptions): Promise<void> {
  if (options.file !== undefined) return writeFile(ctx, argument, options, options.file);
  let text = argument;
  if (text === undefined) {
    if (process.stdin.isTTY) throw new UsageError('Give the text as an argument or on stdin');
    text = (await readStdin()).replace(/\r?\n$/, '');
  }
  const tm = ctx.client('apiKey');
  const result = await tm.memory.write(
    {
      namespace: options.namespace,
      text,
      ...(options.key ? { idempotency_key: options.key } : {}),
      ...(options.occurredAt ? { occurred_at: options.occurredAt } : {}),
      ...(options.supersedes ? { supersedes: options.supersedes } : {}),
    },
    options.recall ? { recall: true } : {},
  );
  ctx.out.result(result, () => {
    ctx.out.record([
      ['state', result.state],
      ['decision', result.decision.value],
      ['memory id', result.memory_id],
      ['event id', result.event_id],
      ['idempotency key', result.idempotency_key],
      ['idempotency', result.idempotency_outcome],
      ['billing', `${result.usage.billing_state} (${result.usage.operation_units} units)`],
      ['request id', result.request_id],
      ...result.supersession.map((s): [string, unknown] => [`supersedes ${s.target_event_id}`, s.status]),
    ]);
    if (result.related_recall) {
      ctx.out.line();
      ctx.out.line('Related recall:');
      showRecall(ctx.out, result.related_recall);
    }
  });
}

/** Lines a `tm write --file` takes: more is refused before anything is sent (1,000 batches). */
export const WRITE_FILE_MAX_LINES = 100_000;
/** And bytes: 100,000 lines of 2.5 kB; read whole, so bounded (a batch's body bound is 4 MiB). */
export const WRITE_FILE_MAX_BYTES = 256 * 1024 * 1024;

/** A line that failed: not sent (bad JSON or shape, found here) or refused by the service (its item's answer). */
interface FailedLine {
  line: number;
  status: number;
  code: string;
  error: string;
  fields?: Array<{ path: string; message: string }>;
}

interface WriteFileSummary {
  namespace: string;
  file: string;
  /** Items sent and lines refused here, counted as the service counts a batch's items (`invalid` both). */
  item_counts: WriteBatchItemCounts;
  failed_lines: FailedLine[];
  request_ids: string[];
}

/** One JSONL line as an item, or why it is not one (never sent). */
function parseLine(text: string): WriteBatchItem | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return `not JSON: ${(error as Error).message}`;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return 'a line must be a JSON object {"idempotency_key": "…", "event": {…}}';
  const item = value as Record<string, unknown>;
  if (typeof item.idempotency_key !== 'string') return 'idempotency_key (a string) is required';
  if (typeof item.event !== 'object' || item.event === null || Array.isArray(item.event))
    return 'event (an object) is required';
  return value as WriteBatchItem;
}

/**
 * The service's `items[i]…` paths, said of the line instead (the line number is shown with them): `i`
 * counts the batch's items, not the file's lines, so left in it would point at the wrong line.
 */
const linePath = (path: string) => path.replace(/^items\[\d+\]\.?/, '') || 'item';
const lineMessage = (message: string) => message.replace(/items\[\d+\]\.?/g, '');

/**
 * `tm write --file events.jsonl`: each line an item of the batch route (`{"idempotency_key", "event"}`),
 * sent through `memory.writeBatch` in batches of 100, one after another. Bad lines are reported with
 * their number and never sent; the others are. Exit 0 when every line was Accepted or Replayed; else,
 * after the summary, 4 when a line's answer was retryable (resend the file: written lines replay), or 3.
 */
async function writeFile(
  ctx: Context,
  argument: string | undefined,
  options: WriteOptions,
  file: string,
): Promise<void> {
  if (argument !== undefined) throw new UsageError('Give either a text or --file, not both');
  for (const [flag, set] of [
    ['--key', options.key],
    ['--occurred-at', options.occurredAt],
    ['--supersedes', options.supersedes],
    ['--recall', options.recall],
  ] as const)
    if (set !== undefined)
      throw new UsageError(`${flag} is for a single write; with --file each line says its own`);
  let size: number;
  try {
    size = statSync(file).size;
  } catch (error) {
    throw new UsageError(`Cannot read ${file}: ${(error as Error).message}`);
  }
  if (size > WRITE_FILE_MAX_BYTES)
    throw new UsageError(`${file} is over ${WRITE_FILE_MAX_BYTES} bytes; split it`);
  const lines = readFileSync(file, 'utf8').split(/\r?\n/);
  if (lines.at(-1) === '') lines.pop();
  if (lines.length > WRITE_FILE_MAX_LINES)
    throw new UsageError(`${file} has ${lines.length} lines, more than ${WRITE_FILE_MAX_LINES}; split it`);
  const items: Array<{ line: number; item: WriteBatchItem }> = [];
  const failed: FailedLine[] = [];
  lines.forEach((text, i) => {
    if (text.trim() === '') return; // blank lines are skipped, not counted
    const parsed = parseLine(text);
    if (typeof parsed === 'string')
      failed.push({ line: i + 1, status: 0, code: 'invalid_line', error: parsed });
    else items.push({ line: i + 1, item: parsed });
  });
  if (items.length === 0 && failed.length === 0) throw new UsageError(`${file} has no lines to write`);

  const counts: WriteBatchItemCounts = {
    total: items.length + failed.length,
    accepted: 0,
    replayed: 0,
    conflict: 0,
    invalid: failed.length,
    failed: 0,
  };
  const requestIds: string[] = [];
  let retryable = false;
  const tm = items.length > 0 ? ctx.client('apiKey') : undefined;
  for (let start = 0; tm && start < items.length; start += LIMITS.writeBatchMaxItems) {
    const chunk = items.slice(start, start + LIMITS.writeBatchMaxItems);
    const batch = await tm.memory.writeBatch({
      namespace: options.namespace,
      items: chunk.map((c) => c.item),
    });
    requestIds.push(batch.request_id);
    for (const key of ['accepted', 'replayed', 'conflict', 'invalid', 'failed'] as const)
      counts[key] += batch.item_counts[key];
    retryable ||= batch.retryable;
    for (const result of batch.results) {
      if (result.status === 200) continue;
      const body = result.body as {
        error?: string;
        details?: { code?: string; fields?: Array<{ path: string; message: string }> };
      };
      const fields = body.details?.fields?.map((f) => ({ path: linePath(f.path), message: f.message }));
      failed.push({
        line: chunk[result.index]?.line ?? 0,
        status: result.status,
        code: body.details?.code ?? 'unknown',
        error: body.error ? lineMessage(body.error) : `status ${result.status}`,
        ...(fields ? { fields } : {}),
      });
    }
  }
  failed.sort((a, b) => a.line - b.line);
  const summary: WriteFileSummary = {
    namespace: options.namespace,
    file,
    item_counts: counts,
    failed_lines: failed,
    request_ids: requestIds,
  };
  ctx.out.result(summary, () => {
    ctx.out.record([
      ['namespace', summary.namespace],
      ['lines', counts.total],
      ['accepted', counts.accepted],
      ['replayed', counts.replayed],
      ['conflict', counts.conflict],
      ['invalid', counts.invalid],
      ['failed', counts.failed],
      ['batches', requestIds.length],
    ]);
    if (failed.length === 0) return;
    ctx.out.line();
    ctx.out.table(failed, [
      { header: 'line', value: (f) => f.line },
      { header: 'status', value: (f) => f.status || 'not sent' },
      { header: 'code', value: (f) => f.code },
      {
        header: 'error',
        value: (f) => [f.error, ...(f.fields ?? []).map((x) => `${x.path}: ${x.message}`)].join('; '),
        max: 120,
      },
    ]);
  });
  if (failed.length > 0) throw new ExitWith(retryable ? EXIT.unavailable : EXIT.refused);
}

interface RecallOptions {
  namespace: string;
  topK?: number;
  asOf?: string;
  explain?: boolean;
}

async function recall(ctx: Context, query: string, options: RecallOptions): Promise<void> {
  const tm = ctx.client('apiKey');
  const result = await tm.memory.recall({
    namespace: options.namespace,
    query,
    ...(options.topK !== undefined ? { top_k: options.topK } : {}),
    ...(options.asOf ? { as_of: options.asOf } : {}),
    ...(options.explain ? { explain: true } : {}),
  });
  ctx.out.result(result, () => showRecall(ctx.out, result));
}

async function remove(ctx: Context, options: { namespace: string; yes?: boolean }): Promise<void> {
  const tm = ctx.client('apiKey');
  await confirmOrRefuse(
    `Delete every memory in namespace "${options.namespace}" at ${ctx.credentials.baseUrl}?`,
    options.yes,
  );
  // The server deletes as a job; tm waits for it (as long as it takes), showing records deleted of
  // the namespace's total. Ctrl-C stops the waiting only: the server goes on.
  const progress = startProgress('delete', { unit: 'records', json: ctx.out.json });
  let receipt: DeleteReceipt;
  try {
    receipt = await tm.memory.delete(options.namespace, {
      maxWaitMs: Number.POSITIVE_INFINITY,
      onProgress: ({ deletion }) =>
        progress.update(deletion.progress.records_deleted, deletion.progress.records_total),
    });
  } finally {
    progress.stop();
  }
  ctx.out.result(receipt, () =>
    ctx.out.record([
      ['state', receipt.state],
      ['namespace', receipt.namespace],
      ['deleted', receipt.deleted],
      ['retained', receipt.retained],
      ['deletion', `${receipt.deletion.id} (${receipt.deletion.status})`],
      ['request id', receipt.request_id],
    ]),
  );
}

export function registerMemory(program: Command): void {
  program
    .command('write')
    .description(
      'Retain one text (argument or stdin), or a JSONL file of events (--file); retried safely with the same idempotency keys',
    )
    .argument('[text]', 'the text; read from stdin when absent')
    .requiredOption('-n, --namespace <namespace>', 'the namespace to write into')
    .option(
      '-f, --file <events.jsonl>',
      `one {"idempotency_key", "event"} per line, sent in batches of ${LIMITS.writeBatchMaxItems} (at most ${WRITE_FILE_MAX_LINES} lines)`,
    )
    .option('--key <idempotency-key>', 'idempotency key (and event id); generated when absent')
    .option(
      '--occurred-at <timestamp>',
      'event time, ISO 8601 (default: when the service stores it)',
      parseTimestamp,
    )
    .option('--supersedes <event-ids...>', 'earlier event ids this one replaces')
    .option('--recall', 'also recall with the written text and show the related results')
    .addHelpText(
      'after',
      '\nExamples:\n  tm write -n support-bot "Alice prefers green tea"\n  echo "Bo moved to Porto" | tm write -n people --key bo-move --recall\n  tm write -n support-bot --file events.jsonl   # {"idempotency_key":"n-1","event":{"occurred_at":"2026-11-22T09:30:00Z","content":{"text":"…"}}}',
    )
    .action(withContext(write));
  program
    .command('recall')
    .description(
      'Rank retained text against a query: score is the share of its term weight a text holds (rarer words weigh more)',
    )
    .argument('<query>', 'the cue text')
    .requiredOption('-n, --namespace <namespace>', 'the namespace to search')
    .option('-k, --top-k <count>', 'how many results (1-100, default 10)', parseCount)
    .option('--as-of <timestamp>', 'only events up to this time, ISO 8601', parseTimestamp)
    .option('--explain', 'show under each result the query terms, their weights and which it holds (✓/✗)')
    .addHelpText(
      'after',
      '\nExamples:\n  tm recall -n support-bot "what does Alice drink?" --top-k 3 --json\n  tm recall -n support-bot "what does Alice drink?" --explain',
    )
    .action(withContext(recall));
  program
    .command('delete')
    .description('Delete one namespace and wait for it, with progress (asks first; --yes without a terminal)')
    .requiredOption('-n, --namespace <namespace>', 'the namespace to delete')
    .option('-y, --yes', 'do not ask for confirmation (required without a terminal)')
    .addHelpText('after', '\nExample:\n  tm delete -n support-bot --yes')
    .action(withContext(remove));
}
