import type { PrismaClient } from '../../data-access/generated/client.js';
import { resolveMemoryTemplate } from '../templates/resolve-memory-template.js';
import { parseFormat } from './format-string.js';

/**
 * An import's format: the one sent, else its template's (the template's fields as `name: {name}`
 * lines when it has none). Checked here, so a bad format is refused before anything is read.
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
    format ??= template.format ?? template.fields.map((f) => `${f.name}: {${f.name}}`).join('\n');
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
