import {
  AppError,
  type CreateTemplateMemoryRequest,
  ErrorCode,
  type TemplateMemoryTemplate,
} from '@tm/contracts';
import { findMarketplaceTemplate } from '../../data-access/marketplace-repository.js';
import { getPrisma } from '../../data-access/prisma-client.js';
import { findTemplate } from '../../data-access/template-repository.js';
import type { FieldSpec } from './validate-template-data.js';

export interface MemoryTemplate {
  metadata: TemplateMemoryTemplate;
  fields: FieldSpec[];
  format: string | null;
}

/** The template a memory is created with: the private one's current version, or the marketplace entry. */
export async function resolveMemoryTemplate(
  tenantId: string,
  body: Pick<CreateTemplateMemoryRequest, 'template_name' | 'marketplace_template_id'>,
  db = getPrisma(),
): Promise<MemoryTemplate> {
  if (body.marketplace_template_id !== undefined) {
    const entry = await findMarketplaceTemplate(db, body.marketplace_template_id);
    if (!entry) {
      throw new AppError(ErrorCode.NotFound, 'No such marketplace template', {
        fields: [{ path: 'marketplace_template_id', message: 'names no marketplace template' }],
      });
    }
    return {
      metadata: {
        source: 'marketplace',
        template_id: null,
        template_name: entry.name,
        template_version: entry.version,
        template_revision: null,
        marketplace_template_id: entry.id,
      },
      fields: entry.fields as FieldSpec[],
      format: entry.format,
    };
  }
  const template = await findTemplate(db, tenantId, body.template_name ?? '');
  if (!template) {
    throw new AppError(ErrorCode.NotFound, 'No such template', {
      fields: [{ path: 'template_name', message: 'names no template of this tenant' }],
    });
  }
  return {
    metadata: {
      source: 'private',
      template_id: template.id,
      template_name: template.name,
      template_version: template.label,
      template_revision: template.version,
      marketplace_template_id: null,
    },
    fields: template.fields,
    format: template.format,
  };
}
