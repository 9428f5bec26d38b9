import type { MarketplaceTemplate, Paging, Template, TemplateField, TemplateMemory } from '@tm/contracts';
import type { MarketplaceRow } from '../../data-access/marketplace-repository.js';
import type { StoredTemplate } from '../../data-access/template-repository.js';

/** Rows as the API shows them: versions as strings, times as ISO text, no tenant ids. */
export const templateView = (t: StoredTemplate): Template => ({
  id: t.id,
  template_name: t.name,
  description: t.description,
  version: t.label,
  revision: t.version,
  fields: t.fields as TemplateField[],
  ...(t.format !== null ? { format: t.format } : {}),
  created_at: t.createdAt.toISOString(),
  updated_at: t.updatedAt.toISOString(),
});

export const marketplaceView = (row: MarketplaceRow): MarketplaceTemplate => ({
  marketplace_template_id: row.id,
  template_name: row.name,
  // The names entries had before the spec's; kept so existing clients keep working.
  id: row.id,
  name: row.name,
  description: row.description,
  category: row.category,
  keywords: row.keywords,
  version: row.version,
  fields: row.fields as TemplateField[],
  format: row.format,
  created_at: row.created_at.toISOString(),
  updated_at: row.updated_at.toISOString(),
});

export const templateMemoryView = (row: {
  memoryId: string;
  namespace: string;
  source: string;
  templateId: string | null;
  marketplaceTemplateId: string | null;
  templateName: string;
  templateVersion: string;
  templateRevision: number | null;
  data: unknown;
  text: string;
  createdAt: Date;
}): TemplateMemory => ({
  memory_id: row.memoryId,
  namespace: row.namespace,
  data: row.data as Record<string, unknown>,
  text: row.text,
  template: {
    source: row.source === 'marketplace' ? 'marketplace' : 'private',
    template_id: row.templateId,
    template_name: row.templateName,
    template_version: row.templateVersion,
    template_revision: row.templateRevision,
    marketplace_template_id: row.marketplaceTemplateId,
  },
  created_at: row.createdAt.toISOString(),
});

export function pagingOf(page: { limit: number; offset: number }, returned: number, total: number): Paging {
  const hasMore = page.offset + returned < total;
  return {
    limit: page.limit,
    offset: page.offset,
    returned,
    total,
    has_more: hasMore,
    next_offset: hasMore ? page.offset + returned : null,
  };
}
