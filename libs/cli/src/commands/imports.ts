import { access } from 'node:fs/promises';
import type { ImportJob } from '@text-memory/sdk';
import { uploadFile } from '@text-memory/sdk/node';
import type { Command } from 'commander';
import { type Context, withContext } from '../context.js';
import { UsageError } from '../exit-codes.js';
import { parseCount } from '../parse.js';
import { startProgress } from '../progress.js';
import { confirmOrRefuse } from '../prompt.js';

interface ImportOptions {
  namespace: string;
  format?: string;
  template?: string;
  marketplaceTemplate?: string;
  yes?: boolean;
  intervalMs: number;
}

function showEstimate(ctx: Context, job: ImportJob): void {
  const e = job.estimate;
  ctx.out.record([
    ['import id', job.id],
    ['file', `${job.file_name} (${job.file_kind})`],
    ['namespace', job.namespace],
    ['format', job.format],
    ['rows', e.rows],
    ['billable rows', e.billable_rows],
    ['malformed / empty / too long', `${e.rows_malformed} / ${e.rows_empty_render} / ${e.rows_too_long}`],
    ['estimated cost', `${e.estimated_cost_usd} USD (${e.unit_price_usd} per row, ${e.pricing_version})`],
    ...e.placeholders_without_column.map((p): [string, unknown] => ['no column for', `{${p}}`]),
    ...e.warnings.map((w): [string, unknown] => ['warning', w]),
  ]);
}

async function importFile(ctx: Context, file: string, options: ImportOptions) {
  const sources = [options.format, options.template, options.marketplaceTemplate].filter(
    (s) => s !== undefined,
  );
  if (sources.length !== 1)
    throw new UsageError('Give one of --format, --template or --marketplace-template');
  try {
    await access(file);
  } catch {
    throw new UsageError(`Cannot read ${file}`);
  }
  const tm = ctx.client('apiKey');

  const upload = startProgress('upload', { unit: 'bytes', json: ctx.out.json });
  let estimated: ImportJob;
  try {
    estimated = await uploadFile(
      tm,
      file,
      {
        namespace: options.namespace,
        ...(options.format !== undefined ? { format: options.format } : {}),
        ...(options.template !== undefined ? { template_name: options.template } : {}),
        ...(options.marketplaceTemplate !== undefined
          ? { marketplace_template_id: options.marketplaceTemplate }
          : {}),
      },
      { onProgress: ({ sentBytes, totalBytes }) => upload.update(sentBytes, totalBytes) },
    );
  } finally {
    upload.stop();
  }
  if (!ctx.out.json) showEstimate(ctx, estimated);

  await confirmOrRefuse(
    `Import ${estimated.estimate.billable_rows} rows into "${estimated.namespace}" for about ${estimated.estimate.estimated_cost_usd} USD?`,
    options.yes,
  );

  await tm.imports.start(estimated.id);
  const rows = startProgress('import', { unit: 'rows', total: estimated.total, json: ctx.out.json });
  let job: ImportJob;
  try {
    job = await tm.imports.wait(estimated.id, {
      intervalMs: options.intervalMs,
      onProgress: (current) =>
        rows.update(
          current.processed,
          current.total,
          `(retained ${current.retained}, failed ${current.failed})`,
        ),
    });
  } finally {
    rows.stop();
  }
  // The first page of failures: enough to see what went wrong; --json has the paging to fetch more.
  const failures = await tm.imports.failures(job.id, { limit: 100 });
  ctx.out.result({ estimate: estimated, job, failures }, () => {
    ctx.out.line();
    ctx.out.record([
      ['state', job.state],
      ['retained', `${job.retained} of ${job.total}`],
      ['failed', job.failed],
    ]);
    if (failures.failures.length > 0) {
      ctx.out.line();
      ctx.out.table(failures.failures, [
        { header: 'row', value: (f) => f.row },
        { header: 'reason', value: (f) => f.reason },
        { header: 'message', value: (f) => f.message, max: 80 },
      ]);
      if (failures.paging.total > failures.failures.length)
        ctx.out.note(`${failures.paging.total - failures.failures.length} more failures not shown`);
    }
  });
}

export function registerImports(program: Command): void {
  program
    .command('import')
    .description('Import a CSV, XLSX/XLS or JSON file: estimate, confirm, then write every row with progress')
    .argument('<file>', 'the file; its extension decides the reader')
    .requiredOption('-n, --namespace <namespace>', 'where the rows are retained')
    .option('--format <format>', 'a format string: "{name} lives in {city|an unknown city}"')
    .option('--template <name>', 'take the format from a private template')
    .option('--marketplace-template <id>', 'take the format from a marketplace template')
    .option('-y, --yes', 'go on after the estimate without asking (required without a terminal)')
    .option('--interval-ms <ms>', 'between progress polls', parseCount, 1000)
    .addHelpText(
      'after',
      `\nExample:\n  tm import people.csv -n people --format '{name} lives in {city|an unknown city}.'`,
    )
    .action(withContext(importFile));
}
