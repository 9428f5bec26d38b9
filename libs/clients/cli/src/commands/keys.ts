import type { BodyOf } from '@text-memory/sdk';
import type { Command } from 'commander';
import { type Context, withContext } from '../context.js';

type Key = {
  id: string;
  name: string;
  masked_key: string;
  status: string;
  permissions: string[];
  created_at: string;
  last_used_at?: unknown;
};

function showKey(ctx: Context, key: Key & { key?: string }): void {
  ctx.out.record([
    ['id', key.id],
    ['name', key.name],
    ['status', key.status],
    ['permissions', key.permissions.join(' ')],
    ['created at', key.created_at],
    // The full key exists in this answer only: it is the point of create and rotate.
    ...(key.key
      ? ([['key', key.key]] as Array<[string, unknown]>)
      : [['masked key', key.masked_key] as [string, unknown]]),
  ]);
  if (key.key) ctx.out.note('Store the key now: it is not shown again.');
}

async function list(ctx: Context) {
  const result = await ctx.client('session').control.apiKeys.list();
  ctx.out.result(result, () =>
    ctx.out.table(result.data, [
      { header: 'id', value: (k) => k.id },
      { header: 'name', value: (k) => k.name },
      { header: 'key', value: (k) => k.masked_key },
      { header: 'status', value: (k) => k.status },
      { header: 'permissions', value: (k) => k.permissions.join(' ') },
      { header: 'last used', value: (k) => k.last_used_at },
    ]),
  );
}

async function create(
  ctx: Context,
  options: { name: string; permissions?: string[]; storageConnection?: string },
) {
  const body: BodyOf<'createApiKey'> = {
    name: options.name,
    // The server knows the permission names; it refuses an unknown one with 400 (exit 3).
    ...(options.permissions
      ? { permissions: options.permissions as BodyOf<'createApiKey'>['permissions'] }
      : {}),
    ...(options.storageConnection ? { storage_connection_id: options.storageConnection } : {}),
  };
  const result = await ctx.client('session').control.apiKeys.create(body);
  ctx.out.result(result, () => showKey(ctx, result));
}

async function revoke(ctx: Context, id: string) {
  const result = await ctx.client('session').control.apiKeys.revoke(id);
  ctx.out.result(result, () => showKey(ctx, result));
}

async function rotate(ctx: Context, id: string) {
  const result = await ctx.client('session').control.apiKeys.rotate(id);
  ctx.out.result(result, () => showKey(ctx, result));
}

export function registerKeys(program: Command): void {
  const keys = program
    .command('keys')
    .description('API keys of the tenant (needs a session: tm login --email)');
  keys.command('list').description('Every key, masked').action(withContext(list));
  keys
    .command('create')
    .description('Create a key; the full key is shown once')
    .requiredOption('--name <name>', 'a name for people')
    .option('--permissions <permissions...>', 'e.g. memory:write memory:recall (default: the server default)')
    .option('--storage-connection <id>', 'attach to this storage connection (default: the managed one)')
    .addHelpText(
      'after',
      '\nExample:\n  tm keys create --name support-bot --permissions memory:write memory:recall',
    )
    .action(withContext(create));
  keys
    .command('revoke')
    .description('Revoke a key: it fails from the next request')
    .argument('<id>')
    .action(withContext(revoke));
  keys
    .command('rotate')
    .description('A new key with the same settings; the old one is revoked')
    .argument('<id>')
    .action(withContext(rotate));
}
