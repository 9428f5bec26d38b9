import type { Command } from 'commander';
import { type Context, withContext } from '../context.js';

async function search(ctx: Context, options: { category?: string; keyword?: string }) {
  const result = await ctx.client('apiKey').marketplace.search({
    ...(options.category ? { category: options.category } : {}),
    ...(options.keyword ? { keyword: options.keyword } : {}),
  });
  ctx.out.result(result, () =>
    ctx.out.table(result.data, [
      { header: 'id', value: (t) => t.marketplace_template_id },
      { header: 'category', value: (t) => t.category },
      { header: 'fields', value: (t) => t.fields.map((f) => f.name).join(' '), max: 40 },
      { header: 'description', value: (t) => t.description, max: 60 },
    ]),
  );
}

async function get(ctx: Context, id: string) {
  const result = await ctx.client('apiKey').marketplace.get(id);
  ctx.out.result(result, () => {
    ctx.out.record([
      ['id', result.marketplace_template_id],
      ['name', result.name],
      ['category', result.category],
      ['keywords', result.keywords.join(' ')],
      ['version', result.version],
      ['format', result.format],
      ['description', result.description],
    ]);
    ctx.out.line();
    ctx.out.table(result.fields, [
      { header: 'field', value: (f) => f.name },
      { header: 'type', value: (f) => f.type },
      { header: 'required', value: (f) => (f.required ? 'yes' : 'no') },
      { header: 'description', value: (f) => f.description, max: 60 },
    ]);
  });
}

export function registerMarketplace(program: Command): void {
  const marketplace = program.command('marketplace').description('Ready-made memory templates');
  marketplace
    .command('search')
    .description('Search by category and keyword')
    .option('--category <category>', 'e.g. productivity')
    .option('--keyword <keyword>', 'a word in the name, description or keywords')
    .addHelpText('after', '\nExample:\n  tm marketplace search --category productivity')
    .action(withContext(search));
  marketplace
    .command('get')
    .description('One marketplace template')
    .argument('<id>')
    .action(withContext(get));
}
