import type { DeleteReceipt, RecallResponse } from '@text-memory/sdk';
import type { Command } from 'commander';
import { type Context, withContext } from '../context.js';
import { UsageError } from '../exit-codes.js';
import type { Output } from '../output.js';
import { parseCount, parseTimestamp } from '../parse.js';
import { startProgress } from '../progress.js';
import { confirmOrRefuse, readStdin } from '../prompt.js';

interface WriteOptions {
  namespace: string;
  key?: string;
  occurredAt?: string;
  supersedes?: string[];
  recall?: boolean;
}

function showRecall(out: Output, recall: RecallResponse): void {
  out.record([
    ['retrieval outcome', recall.retrieval_outcome],
    ['request id', recall.request_id],
  ]);
  out.line();
  out.table(recall.related, [
    { header: 'score', value: (r) => r.score.toFixed(3) },
    { header: 'event id', value: (r) => r.event_id },
    { header: 'occurred at', value: (r) => r.occurred_at },
    { header: 'text', value: (r) => r.text, max: 80 },
  ]);
}

async function write(ctx: Context, argument: string | undefined, options: WriteOptions): Promise<void> {
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

interface RecallOptions {
  namespace: string;
  topK?: number;
  asOf?: string;
}

async function recall(ctx: Context, query: string, options: RecallOptions): Promise<void> {
  const tm = ctx.client('apiKey');
  const result = await tm.memory.recall({
    namespace: options.namespace,
    query,
    ...(options.topK !== undefined ? { top_k: options.topK } : {}),
    ...(options.asOf ? { as_of: options.asOf } : {}),
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
    .description('Retain one text (argument or stdin); retried safely with the same idempotency key')
    .argument('[text]', 'the text; read from stdin when absent')
    .requiredOption('-n, --namespace <namespace>', 'the namespace to write into')
    .option('--key <idempotency-key>', 'idempotency key (and event id); generated when absent')
    .option('--occurred-at <timestamp>', 'event time, ISO 8601 (default: now)', parseTimestamp)
    .option('--supersedes <event-ids...>', 'earlier event ids this one replaces')
    .option('--recall', 'also recall with the written text and show the related results')
    .addHelpText(
      'after',
      '\nExamples:\n  tm write -n support-bot "Alice prefers green tea"\n  echo "Bo moved to Porto" | tm write -n people --key bo-move --recall',
    )
    .action(withContext(write));
  program
    .command('recall')
    .description('Rank retained text by lexical overlap with a query')
    .argument('<query>', 'the cue text')
    .requiredOption('-n, --namespace <namespace>', 'the namespace to search')
    .option('-k, --top-k <count>', 'how many results (1-100, default 10)', parseCount)
    .option('--as-of <timestamp>', 'only events up to this time, ISO 8601', parseTimestamp)
    .addHelpText('after', '\nExample:\n  tm recall -n support-bot "what does Alice drink?" --top-k 3 --json')
    .action(withContext(recall));
  program
    .command('delete')
    .description('Delete one namespace and wait for it, with progress (asks first; --yes without a terminal)')
    .requiredOption('-n, --namespace <namespace>', 'the namespace to delete')
    .option('-y, --yes', 'do not ask for confirmation (required without a terminal)')
    .addHelpText('after', '\nExample:\n  tm delete -n support-bot --yes')
    .action(withContext(remove));
}
