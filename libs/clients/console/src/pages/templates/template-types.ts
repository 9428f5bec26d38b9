import type { BodyOf, Schemas } from '@text-memory/sdk';

export type PrivateTemplate = Schemas['Template'];
export type MarketplaceTemplate = Schemas['MarketplaceTemplate'];
export type TemplateField = Schemas['TemplateFieldOutput'];
export type TemplateBody = BodyOf<'createTemplate'>;
export type FieldType = TemplateField['type'];
export const FIELD_TYPES: FieldType[] = ['string', 'number', 'boolean', 'object', 'list'];

/** What a memory is made from: a private template by name, or a marketplace entry by id. */
export type TemplateChoice =
  | { source: 'private'; name: string; fields: TemplateField[]; format: string | undefined }
  | { source: 'marketplace'; id: string; name: string; fields: TemplateField[]; format: string };

export const privateChoice = (template: PrivateTemplate): TemplateChoice => ({
  source: 'private',
  name: template.template_name,
  fields: template.fields,
  format: template.format,
});

export const marketplaceChoice = (entry: MarketplaceTemplate): TemplateChoice => ({
  source: 'marketplace',
  id: entry.marketplace_template_id,
  name: entry.template_name,
  fields: entry.fields,
  format: entry.format,
});
