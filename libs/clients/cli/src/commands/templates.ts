import { readFile } from 'node:fs/promises';
import type { BodyOf, Template } from '@text-memory/sdk';
import type { Command } from 'commander';
import { type Context, withContext } from '../context.js';
import { UsageError } from '../exit-codes.js';
import { parseCount } from '../parse.js';
import { readStdin } from '../prompt.js';

/** A JSON document from a file (`-` for stdin); a bad file is the caller's to fix (exit 2). */
export async function readJsonFile(path: string): Promise<unknown> {
  let text: string;
  try {
    text = path === '-' ? await readStdin() : await readFile(path, 'utf8');
  } catch (error) {
    throw new UsageError(`Cannot read ${path}: ${(error as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${path} is not valid JSON: ${(error as Error).message}`);
  }
}

function showTemplate(ctx: Context, template: Template): void {
  ctx.out.record([
    ['id', template.id],
    ['name', template.template_name],
    ['description', template.description],
    ['version', `${template.version} (revision ${template.revision})`],
    ['format', template.format],
    ['updated at', template.updated_at],
  ]);
  ctx.out.line();
  ctx.out.table(template.fields, [
    { header: 'field', value: (f) => f.name },
    { header: 'type', value: (f) => f.type },
    { header: 'required', value: (f) => (f.required ? 'yes' : 'no') },
    { header: 'description', value: (f) => f.description, max: 60 },
  ]);
}

async function list(ctx: Context, options: { limit?: number; offset?: number }) {
  const result = await ctx.client('apiKey').templates.list({
    ...(options.limit !== undefined ? { limit: options.limit } : {}),
    ...(options.offset !== undefined ? { offset: options.offset } : {}),
  });
  ctx.out.result(result, () =>
    ctx.out.table(result.data, [
      { header: 'name', value: (t) => t.template_name },
      { header: 'version', value: (t) => t.version },
      { header: 'revision', value: (t) => t.revision },
      { header: 'fields', value: (t) => t.fields.map((f) => f.name).join(' '), max: 50 },
      { header: 'id', value: (t) => t.id },
    ]),
  );
}

async function get(ctx: Context, nameOrId: string) {
  const result = await ctx.client('apiKey').templates.get(nameOrId);
  ctx.out.result(result, () => showTemplate(ctx, result));
}

async function create(ctx: Context, options: { file: string }) {
  const body = (await readJsonFile(options.file)) as BodyOf<'createTemplate'>;
  const result = await ctx.client('apiKey').templates.create(body);
  ctx.out.result(result, () => showTemplate(ctx, result));
}

async function update(ctx: Context, nameOrId: string, options: { file: string; ifMatch?: number }) {
  const body = (await readJsonFile(options.file)) as BodyOf<'updateTemplate'>;
  const result = await ctx
    .client('apiKey')
    .templates.update(nameOrId, body, options.ifMatch !== undefined ? { ifMatch: options.ifMatch } : {});
  ctx.out.result(result, () => showTemplate(ctx, result));
}

export function registerTemplates(program: Command): void {
  const templates = program.command('templates').description("The tenant's private memory templates");
  templates
    .command('list')
    .description('Private templates')
    .option('--limit <count>', 'rows per page', parseCount)
    .option('--offset <count>', 'start after this many rows', parseCount)
    .action(withContext(list));
  templates
    .command('get')
    .description('One template, by name or id')
    .argument('<name-or-id>')
    .action(withContext(get));
  templates
    .command('create')
    .description(
      'Create a template from a JSON file ({ template_name, description, version, fields, format })',
    )
    .requiredOption('-f, --file <file>', 'the JSON definition (- for stdin)')
    .addHelpText('after', '\nExample:\n  tm templates create -f contact.json')
    .action(withContext(create));
  templates
    .command('update')
    .description('Replace a template with the JSON file as its next revision')
    .argument('<name-or-id>')
    .requiredOption('-f, --file <file>', 'the JSON definition (- for stdin)')
    .option(
      '--if-match <revision>',
      'apply only if the template is still at this revision (else 412)',
      parseCount,
    )
    .action(withContext(update));
}
