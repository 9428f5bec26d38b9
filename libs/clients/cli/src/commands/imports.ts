import { access } from 'node:fs/promises';
import { type ImportJob, TextMemoryError } from '@text-memory/sdk';
import { uploadFile } from '@text-memory/sdk/node';
import type { Command } from 'commander';
import { type Context, knownSecrets, withContext } from '../context.js';
import { UsageError } from '../exit-codes.js';
import { parseCount } from '../parse.js';
import { startProgress } from '../progress.js';
import { confirmOrRefuse, isInteractive } from '../prompt.js';

interface ImportOptions {
  namespace: string;
  format?: string;
  template?: string;
  marketplaceTemplate?: string;
  dataset?: string;
  split?: string;
  config?: string;
  revision?: string;
  yes?: boolean;
  intervalMs: number;
}

/** A hub token is read from here, never from a flag: flags end up in shell history and `ps`. */
const HUB_TOKEN_VARIABLE = 'TM_HUB_TOKEN';

function showEstimate(ctx: Context, job: ImportJob): void {
  const e = job.estimate;
  ctx.out.record([
    ['import id', job.id],
    job.dataset
      ? ['dataset', `${job.dataset.id} ${job.dataset.config}/${job.dataset.split} @ ${job.dataset.revision}`]
      : ['file', `${job.file_name} (${job.file_kind})`],
    ['namespace', job.namespace],
    ['format', job.format],
    ['rows', e.rows],
    ['billable rows', e.billable_rows],
    [
      'malformed / empty / empty cell / too long',
      `${e.rows_malformed} / ${e.rows_empty_render} / ${e.rows_missing_value} / ${e.rows_too_long}`,
    ],
    ['estimated cost', `${e.estimated_cost_usd} USD (${e.unit_price_usd} per row, ${e.pricing_version})`],
    ...e.placeholders_without_column.map((p): [string, unknown] => ['no column for', `{${p}}`]),
    ...e.warnings.map((w): [string, unknown] => ['warning', w]),
  ]);
}

/** The format (or template) and namespace, as both kinds of import take them. */
function mappingOf(options: ImportOptions) {
  return {
    namespace: options.namespace,
    ...(options.format !== undefined ? { format: options.format } : {}),
    ...(options.template !== undefined ? { template_name: options.template } : {}),
    ...(options.marketplaceTemplate !== undefined
      ? { marketplace_template_id: options.marketplaceTemplate }
      : {}),
  };
}

async function uploadEstimate(ctx: Context, file: string, options: ImportOptions): Promise<ImportJob> {
  try {
    await access(file);
  } catch {
    throw new UsageError(`Cannot read ${file}`);
  }
  const upload = startProgress('upload', { unit: 'bytes', json: ctx.out.json });
  try {
    return await uploadFile(ctx.client('apiKey'), file, mappingOf(options), {
      onProgress: ({ sentBytes, totalBytes }) => upload.update(sentBytes, totalBytes),
    });
  } finally {
    upload.stop();
  }
}

/** A model-hub dataset split: the estimate comes from the hub's metadata. */
async function datasetEstimate(ctx: Context, dataset: string, options: ImportOptions): Promise<ImportJob> {
  if (options.split === undefined) throw new UsageError('--dataset needs --split (e.g. --split train)');
  const token = process.env[HUB_TOKEN_VARIABLE];
  // Masked in any error text, as the service's credentials are.
  if (token) knownSecrets.add(token);
  try {
    return await ctx.client('apiKey').imports.fromDataset({
      dataset,
      split: options.split,
      ...(options.config !== undefined ? { config: options.config } : {}),
      ...(options.revision !== undefined ? { revision: options.revision } : {}),
      ...(token ? { hub_token: token } : {}),
      ...mappingOf(options),
    });
  } catch (error) {
    // The service says "send a hub_token"; the CLI takes it only from the environment: say where.
    if (error instanceof TextMemoryError && error.code === 'dataset_gated')
      ctx.out.note(
        token
          ? `The hub token in ${HUB_TOKEN_VARIABLE} has no access to ${dataset}: request access on the hub, or set another token.`
          : `${dataset} is gated or private (or not on the hub): set ${HUB_TOKEN_VARIABLE} to a hub token with access.`,
      );
    throw error;
  }
}

async function importFile(ctx: Context, file: string | undefined, options: ImportOptions) {
  const sources = [options.format, options.template, options.marketplaceTemplate].filter(
    (s) => s !== undefined,
  );
  if (sources.length !== 1)
    throw new UsageError('Give one of --format, --template or --marketplace-template');
  if ((file === undefined) === (options.dataset === undefined))
    throw new UsageError('Give a file or --dataset owner/name, not both');
  // Nobody could confirm the estimate: refused before anything is sent, so no upload is left behind.
  if (!options.yes && !isInteractive())
    throw new UsageError(
      'No terminal to confirm the estimate on: pass --yes to import without asking (nothing was sent)',
    );
  const tm = ctx.client('apiKey');

  const estimated =
    options.dataset !== undefined
      ? await datasetEstimate(ctx, options.dataset, options)
      : await uploadEstimate(ctx, file ?? '', options);
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
    .description(
      'Import a CSV, XLSX/XLS or JSON file, or a model-hub dataset split: estimate, confirm, then write every row with progress',
    )
    .argument('[file]', 'the file; its extension decides the reader')
    .requiredOption('-n, --namespace <namespace>', 'where the rows are retained')
    .option('--format <format>', 'a format string: "{name} lives in {city|an unknown city}"')
    .option('--template <name>', 'take the format from a private template')
    .option('--marketplace-template <id>', 'take the format from a marketplace template')
    .option(
      '--dataset <owner/name>',
      `import a public model-hub dataset instead of a file (token, if any: $${HUB_TOKEN_VARIABLE})`,
    )
    .option('--split <split>', 'the dataset split to import, e.g. train')
    .option('--config <config>', 'the dataset config (default: its only one, or "default")')
    .option('--revision <sha>', 'the revision the hub serves (its current commit)')
    .option('-y, --yes', 'go on after the estimate without asking (required without a terminal)')
    .option('--interval-ms <ms>', 'between progress polls', parseCount, 1000)
    .addHelpText(
      'after',
      `\nExamples:\n  tm import people.csv -n people --format '{name} lives in {city|an unknown city}.'\n` +
        `  TM_HUB_TOKEN=hf_... tm import --dataset owner/name --split train -n qa --format 'Q: {question} A: {answer}'`,
    )
    .action(withContext(importFile));
}
