import type { BodyOf } from '@text-memory/sdk';
import type { Command } from 'commander';
import { type Context, withContext } from '../context.js';
import { UsageError } from '../exit-codes.js';
import { confirmOrRefuse } from '../prompt.js';
import { readJsonFile } from './templates.js';

interface CreateOptions {
  template?: string;
  marketplaceTemplate?: string;
  namespace?: string;
  data?: string;
  dataFile?: string;
  key?: string;
}

async function create(ctx: Context, options: CreateOptions) {
  if (Boolean(options.template) === Boolean(options.marketplaceTemplate))
    throw new UsageError('Give one of --template or --marketplace-template');
  if (Boolean(options.data) === Boolean(options.dataFile))
    throw new UsageError('Give one of --data or --data-file');
  let data: unknown;
  if (options.dataFile) data = await readJsonFile(options.dataFile);
  else {
    try {
      data = JSON.parse(options.data as string);
    } catch (error) {
      throw new UsageError(`--data is not valid JSON: ${(error as Error).message}`);
    }
  }
  const body = {
    ...(options.template ? { template_name: options.template } : {}),
    ...(options.marketplaceTemplate ? { marketplace_template_id: options.marketplaceTemplate } : {}),
    ...(options.namespace ? { namespace: options.namespace } : {}),
    data,
  } as BodyOf<'createTemplateMemory'>;
  const result = await ctx
    .client('apiKey')
    .memories.create(body, options.key ? { idempotencyKey: options.key } : {});
  ctx.out.result(result, () =>
    ctx.out.record([
      ['state', result.state],
      ['memory id', result.memory_id],
      ['namespace', result.namespace],
      ['text', result.text],
      [
        'template',
        `${result.template.template_name} ${result.template.template_version} (${result.template.source})`,
      ],
      ['idempotency', `${result.idempotency_outcome} (key ${result.idempotency_key})`],
      ['request id', result.request_id],
    ]),
  );
}

async function get(ctx: Context, id: string) {
  const result = await ctx.client('apiKey').memories.get(id);
  ctx.out.result(result, () =>
    ctx.out.record([
      ['memory id', result.memory_id],
      ['namespace', result.namespace],
      ['state', result.state],
      ['event id', result.event_id],
      ['occurred at', result.occurred_at],
      ['text', result.text],
      ['data', result.data],
      ['template', result.template],
    ]),
  );
}

async function forget(ctx: Context, id: string, options: { yes?: boolean }) {
  await confirmOrRefuse(
    `Forget memory ${id} at ${ctx.credentials.baseUrl}? Its text goes for good.`,
    options.yes,
  );
  const receipt = await ctx.client('apiKey').memories.forget(id);
  ctx.out.result(receipt, () =>
    ctx.out.record([
      ['state', receipt.state],
      ['memory id', receipt.memory_id],
      ['namespace', receipt.namespace],
      ['forgotten at', receipt.forgotten_at],
      ['postings removed', receipt.removed.postings],
      ['relations removed', receipt.removed.supersession_relations],
      ['relations now unresolved', receipt.unresolved_relations],
      ['current again', receipt.reinstated.length ? receipt.reinstated.join(', ') : 'none'],
      ['idempotency', receipt.idempotency_outcome],
      ['request id', receipt.request_id],
    ]),
  );
}

export function registerMemories(program: Command): void {
  const memories = program
    .command('memories')
    .description('Memories made from templates, and any memory by id');
  memories
    .command('create')
    .description('Fill a template with data, render it and retain it')
    .option('--template <name>', 'a private template')
    .option('--marketplace-template <id>', 'a marketplace template')
    .option('-n, --namespace <namespace>', 'where to retain it')
    .option('--data <json>', 'the data as JSON')
    .option('--data-file <file>', 'the data from a JSON file (- for stdin)')
    .option('--key <idempotency-key>', 'idempotency key; generated when absent')
    .addHelpText(
      'after',
      `\nExample:\n  tm memories create --marketplace-template task -n demo --data '{"title":"File taxes","owner":"Ana"}'`,
    )
    .action(withContext(create));
  memories
    .command('get')
    .description('One memory by its memory id')
    .argument('<memory-id>')
    .action(withContext(get));
  memories
    .command('forget')
    .description(
      'Forget one memory by its memory id: record, postings and the relations it recorded (asks first; --yes without a terminal)',
    )
    .argument('<memory-id>')
    .option('-y, --yes', 'do not ask for confirmation (required without a terminal)')
    .addHelpText('after', '\nExample:\n  tm memories forget 0193f1c2-7a4e-7c1d-9d2a-3c4b5d6e7f80 --yes')
    .action(withContext(forget));
}
