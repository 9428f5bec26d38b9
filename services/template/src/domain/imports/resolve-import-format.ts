import type { PrismaClient } from '../../data-access/generated/client.js';
import { resolveMemoryTemplate } from '../templates/resolve-memory-template.js';
import { parseFormat } from './format-string.js';

/**
 * An import's format: the one sent, else its template's (the template's fields as `name: {name}`
 * lines when it has none, an optional field's line in a section so that an empty cell leaves it out
 * rather than failing the row). Checked here, so a bad format is refused before anything is read.
 */
export async function resolveImportFormat(
  tenantId: string,
  fields: {
    format?: string | undefined;
    template_name?: string | undefined;
    marketplace_template_id?: string | undefined;
  },
  db: PrismaClient,
): Promise<{ format: string; templateName: string | null; marketplaceTemplateId: string | null }> {
  let format = fields.format;
  let templateName: string | null = null;
  if (fields.template_name !== undefined || fields.marketplace_template_id !== undefined) {
    const template = await resolveMemoryTemplate(tenantId, fields, db);
    templateName = template.metadata.template_name;
    format ??= template.format ?? fieldLines(template.fields);
  }
  if (format === undefined)
    throw new Error('unreachable: the message schema requires a format or a template');
  parseFormat(format);
  return {
    format,
    templateName: fields.marketplace_template_id === undefined ? templateName : null,
    marketplaceTemplateId: fields.marketplace_template_id ?? null,
  };
}

/**
 * `title: {title}` for a required field, `{#owner}owner: {owner}{/owner}` for an optional one; each
 * line after the first starts with its newline, inside its section, so a line left out leaves no gap.
 * Field names are identifiers, so they need no escaping.
 */
function fieldLines(fields: Array<{ name: string; required?: boolean | undefined }>): string {
  return fields
    .map((f, i) => {
      const line = `${i === 0 ? '' : '\n'}${f.name}: {${f.name}}`;
      return f.required ? line : `{#${f.name}}${line}{/${f.name}}`;
    })
    .join('');
}
