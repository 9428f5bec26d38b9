import type {
  WebhookDelivery,
  WebhookEndpoint,
  WebhookEndpointChange,
  WebhookEndpointInput,
  WebhookEventType,
} from '@text-memory/sdk';
import type { Command } from 'commander';
import { type Context, withContext } from '../context.js';
import { UsageError } from '../exit-codes.js';
import type { Output } from '../output.js';
import { parseCount } from '../parse.js';
import { confirmOrRefuse } from '../prompt.js';

const EVENT_TYPES =
  'memory.retained memory.deleted namespace.deleted import.completed import.failed anomaly.raised charge.voided';

function showEndpoint(ctx: Context, endpoint: WebhookEndpoint & { secret?: string }): void {
  ctx.out.record([
    ['id', endpoint.id],
    ['url', endpoint.url],
    ['events', endpoint.events.join(' ')],
    ['description', endpoint.description],
    ['include text', endpoint.include_text ? 'yes' : 'no'],
    ['enabled', endpoint.enabled ? 'yes' : 'no'],
    ...(endpoint.disabled_reason
      ? ([['disabled because', endpoint.disabled_reason]] as Array<[string, unknown]>)
      : []),
    ['created at', endpoint.created_at],
    ['updated at', endpoint.updated_at],
    // The signing secret exists in the create answer only.
    ...(endpoint.secret ? ([['secret', endpoint.secret]] as Array<[string, unknown]>) : []),
  ]);
  if (endpoint.secret) ctx.out.note('Store the secret now: it is not shown again.');
}

/** One line per delivery; the last attempt's answer is what someone looking at a log wants first. */
function deliveriesTable(out: Output, deliveries: readonly WebhookDelivery[]): void {
  out.table(deliveries, [
    { header: 'id', value: (d) => d.id },
    { header: 'event', value: (d) => d.event_type },
    { header: 'status', value: (d) => d.status },
    { header: 'attempts', value: (d) => d.attempts.length },
    { header: 'last code', value: (d) => d.attempts.at(-1)?.status_code },
    { header: 'last ms', value: (d) => d.attempts.at(-1)?.latency_ms },
    { header: 'last error', value: (d) => d.attempts.at(-1)?.error, max: 60 },
    { header: 'next attempt', value: (d) => d.next_attempt_at },
    { header: 'created at', value: (d) => d.created_at },
  ]);
}

async function list(ctx: Context) {
  const result = await ctx.client('session').control.webhooks.list();
  ctx.out.result(result, () =>
    ctx.out.table(result.data, [
      { header: 'id', value: (e) => e.id },
      { header: 'url', value: (e) => e.url, max: 60 },
      { header: 'events', value: (e) => e.events.join(' ') },
      { header: 'enabled', value: (e) => (e.enabled ? 'yes' : 'no') },
      { header: 'disabled because', value: (e) => e.disabled_reason, max: 60 },
    ]),
  );
}

async function get(ctx: Context, id: string) {
  const result = await ctx.client('session').control.webhooks.get(id);
  ctx.out.result(result, () => showEndpoint(ctx, result));
}

async function create(
  ctx: Context,
  options: { url: string; events: string[]; description?: string; includeText?: boolean },
) {
  const body: WebhookEndpointInput = {
    url: options.url,
    // The server knows the event types; it refuses an unknown one with 400 naming it (exit 3).
    events: options.events as WebhookEventType[],
    ...(options.description !== undefined ? { description: options.description } : {}),
    ...(options.includeText ? { include_text: true } : {}),
  };
  const result = await ctx.client('session').control.webhooks.create(body);
  ctx.out.result(result, () => showEndpoint(ctx, result));
}

interface UpdateOptions {
  url?: string;
  events?: string[];
  description?: string;
  includeText?: boolean;
  enable?: boolean;
  disable?: boolean;
}

async function update(ctx: Context, id: string, options: UpdateOptions) {
  if (options.enable && options.disable) throw new UsageError('Give one of --enable or --disable');
  const change: WebhookEndpointChange = {
    ...(options.url !== undefined ? { url: options.url } : {}),
    ...(options.events ? { events: options.events as WebhookEventType[] } : {}),
    ...(options.description !== undefined ? { description: options.description } : {}),
    ...(options.includeText !== undefined ? { include_text: options.includeText } : {}),
    ...(options.enable ? { enabled: true } : {}),
    ...(options.disable ? { enabled: false } : {}),
  };
  if (Object.keys(change).length === 0)
    throw new UsageError(
      'Nothing to change: give --url, --events, --description, --[no-]include-text, --enable or --disable',
    );
  const result = await ctx.client('session').control.webhooks.update(id, change);
  ctx.out.result(result, () => showEndpoint(ctx, result));
}

async function remove(ctx: Context, id: string, options: { yes?: boolean }) {
  await confirmOrRefuse(
    `Delete webhook endpoint ${id} at ${ctx.credentials.baseUrl}? Its delivery log goes with it.`,
    options.yes,
  );
  const result = await ctx.client('session').control.webhooks.delete(id);
  ctx.out.result(result, () => ctx.out.line(`Deleted webhook endpoint ${result.id}.`));
}

async function rotateSecret(ctx: Context, id: string, options: { yes?: boolean }) {
  await confirmOrRefuse(
    `Rotate the signing secret of webhook endpoint ${id}? The current one keeps signing for 24 hours only.`,
    options.yes,
  );
  const result = await ctx.client('session').control.webhooks.rotateSecret(id);
  ctx.out.result(result, () => {
    ctx.out.record([
      ['id', result.id],
      ['secret', result.secret],
      ['previous secret until', result.previous_secret_expires_at],
    ]);
    ctx.out.note(
      'Store the secret now: it is not shown again. Switch your receiver before the previous one ends.',
    );
  });
}

async function deliveries(
  ctx: Context,
  id: string,
  options: { limit?: number; cursor?: string; all?: boolean },
) {
  const webhooks = ctx.client('session').control.webhooks;
  const limit = options.limit !== undefined ? { limit: options.limit } : {};
  if (options.all) {
    const all: WebhookDelivery[] = [];
    for await (const delivery of webhooks.deliveries(id, limit)) all.push(delivery);
    ctx.out.result(all, () => deliveriesTable(ctx.out, all));
    return;
  }
  const page = await webhooks.deliveriesPage(id, {
    ...limit,
    ...(options.cursor !== undefined ? { cursor: options.cursor } : {}),
  });
  ctx.out.result(page, () => {
    deliveriesTable(ctx.out, page.data);
    if (page.next_cursor) ctx.out.note(`more: --cursor ${page.next_cursor}, or --all`);
  });
}

async function redeliver(ctx: Context, id: string, deliveryId: string) {
  const result = await ctx.client('session').control.webhooks.redeliver(id, deliveryId);
  ctx.out.result(result, () =>
    ctx.out.record([
      ['delivery id', result.id],
      ['message id', result.message_id],
      ['event', result.event_type],
      ['status', result.status],
      ['next attempt', result.next_attempt_at],
      ['attempts so far', result.attempts.length],
    ]),
  );
}

export function registerWebhooks(program: Command): void {
  const webhooks = program
    .command('webhooks')
    .description('Webhook endpoints and their delivery log (an owner or admin session: tm login --email)');
  webhooks.command('list').description('Every endpoint (never its secret)').action(withContext(list));
  webhooks
    .command('get')
    .description('One endpoint, with why it was disabled if it was')
    .argument('<id>')
    .action(withContext(get));
  webhooks
    .command('create')
    .description('Register an endpoint for some event types; its signing secret is shown once')
    .requiredOption(
      '--url <url>',
      'where deliveries are POSTed (http or https; private addresses are refused)',
    )
    .requiredOption('--events <types...>', `event types, of: ${EVENT_TYPES}`)
    .option('--description <text>', 'a note for people')
    .option('--include-text', 'put the memory text in memory.retained payloads (off by default)')
    .addHelpText(
      'after',
      '\nExample:\n  tm webhooks create --url https://example.com/hooks/tm --events memory.retained namespace.deleted',
    )
    .action(withContext(create));
  webhooks
    .command('update')
    .description('Change an endpoint; --enable after the service disabled it clears the reason')
    .argument('<id>')
    .option('--url <url>', 'a new URL')
    .option('--events <types...>', 'the event types, replacing the current ones')
    .option('--description <text>', 'a new description')
    .option('--include-text', 'put the memory text in payloads')
    .option('--no-include-text', 'leave the memory text out of payloads')
    .option('--enable', 'enable it (clears disabled_reason)')
    .option('--disable', 'disable it: new events skip it, pending deliveries wait')
    .addHelpText(
      'after',
      '\nExamples:\n  tm webhooks update <id> --enable\n  tm webhooks update <id> --events memory.deleted',
    )
    .action(withContext(update));
  webhooks
    .command('delete')
    .description('Delete an endpoint with its delivery log (asks first; --yes without a terminal)')
    .argument('<id>')
    .option('-y, --yes', 'do not ask for confirmation (required without a terminal)')
    .action(withContext(remove));
  webhooks
    .command('rotate-secret')
    .description('A new signing secret, shown once; the previous one signs too for 24 hours (asks first)')
    .argument('<id>')
    .option('-y, --yes', 'do not ask for confirmation (required without a terminal)')
    .action(withContext(rotateSecret));
  webhooks
    .command('deliveries')
    .description(
      "An endpoint's delivery log, newest first: status, attempts, last answer (one page, or --all)",
    )
    .argument('<id>')
    .option('--limit <count>', 'deliveries per page (server default 50, at most 100)', parseCount)
    .option('--cursor <cursor>', 'start after the page that gave this next_cursor')
    .option('--all', 'fetch every page')
    .addHelpText(
      'after',
      '\nExamples:\n  tm webhooks deliveries <id>\n  tm webhooks deliveries <id> --all --json > log.json',
    )
    .action(withContext(deliveries));
  webhooks
    .command('redeliver')
    .description('Send a delivery again with a fresh retry schedule (the endpoint must be enabled)')
    .argument('<id>', 'the endpoint')
    .argument('<delivery-id>', 'a delivery of its log')
    .action(withContext(redeliver));
}
