import { z } from 'zod';
import { Scope } from '../control/scope.js';
import { JSON_BOUNDS, jsonBytes, jsonDepth } from '../http/json-bounds.js';
import { queryInteger } from '../http/query-integer.js';
import { UUID_PATTERN } from '../http/uuid.js';
import {
  IdempotencyKey,
  isReservedNamespace,
  Namespace,
  RESERVED_NAMESPACE_PREFIX,
} from '../memory/memory.js';
import { Usage } from '../runtime.js';
import { FormatStringError, type ParsedFormat, parseFormat, placeholderNames } from './format-string.js';

/**
 * Memory templates: a tenant's private templates with their version history, the shared
 * marketplace catalogue, and memories created from either. The template service answers over
 * request/reply; it validates data, renders text and retains it through the memory service.
 */

export const TEMPLATE_LIMITS = {
  nameMaxLength: 64,
  descriptionMaxChars: 2_000,
  fieldsMax: 100,
  fieldNameMaxLength: 64,
  fieldDescriptionMaxChars: 500,
  formatMaxChars: 4_096,
  page: { default: 50, max: 200 },
  queryMaxChars: 100,
} as const;

/** Memories created without a namespace land here. */
export const DEFAULT_TEMPLATE_NAMESPACE = 'templates';

export const FIELD_TYPES = ['string', 'number', 'boolean', 'object', 'list'] as const;
export const FieldType = z.enum(FIELD_TYPES, { error: `type must be one of ${FIELD_TYPES.join(', ')}` });
export type FieldType = z.infer<typeof FieldType>;

export const looksLikeUuid = (value: string) => UUID_PATTERN.test(value);

/** Routes take a name or an id, so a name must never be mistaken for an id. */
export const TemplateName = z
  .string()
  .min(1, 'template_name must not be empty')
  .max(
    TEMPLATE_LIMITS.nameMaxLength,
    `template_name must be at most ${TEMPLATE_LIMITS.nameMaxLength} characters`,
  )
  .regex(
    /^([A-Za-z][A-Za-z0-9._-]*)?$/,
    'template_name must start with a letter and use only letters, digits and . _ -',
  )
  .refine((name) => !looksLikeUuid(name), 'template_name must not look like a UUID')
  .meta({ example: 'meeting-notes' });

export const TemplateField = z
  .strictObject({
    name: z
      .string()
      .min(1, 'name must not be empty')
      .max(TEMPLATE_LIMITS.fieldNameMaxLength)
      .regex(
        /^[A-Za-z_][A-Za-z0-9_]*$/,
        'name must be an identifier: letters, digits and _, not starting with a digit',
      ),
    type: FieldType,
    description: z.string().max(TEMPLATE_LIMITS.fieldDescriptionMaxChars).default(''),
    required: z.boolean().default(false),
  })
  .meta({ id: 'TemplateField' });
export type TemplateField = z.output<typeof TemplateField>;

const Description = z.string().max(TEMPLATE_LIMITS.descriptionMaxChars);
const Format = z
  .string()
  .min(1, 'format must not be empty')
  .max(TEMPLATE_LIMITS.formatMaxChars)
  .meta({
    description:
      'Text with {field} or {field|default} placeholders; {#field}…{/field} keeps its text only when the ' +
      'field has a value (an optional field left empty drops its phrase); {{ and }} are literal braces',
  });

const Fields = z
  .array(TemplateField)
  .min(1, 'fields must name at least one field')
  .max(TEMPLATE_LIMITS.fieldsMax, `fields must hold at most ${TEMPLATE_LIMITS.fieldsMax} fields`);

/** Field names are unique; every placeholder of the format names a field. */
function checkDefinition(
  body: { fields: Array<{ name: string }>; format?: string | undefined },
  ctx: z.RefinementCtx,
): void {
  const seen = new Set<string>();
  body.fields.forEach((field, i) => {
    if (seen.has(field.name)) {
      ctx.addIssue({
        code: 'custom',
        path: ['fields', i, 'name'],
        message: `repeats the field name "${field.name}"`,
      });
    }
    seen.add(field.name);
  });
  if (body.format === undefined) return;
  let parsed: ParsedFormat;
  try {
    parsed = parseFormat(body.format);
  } catch (err) {
    if (!(err instanceof FormatStringError)) throw err;
    ctx.addIssue({ code: 'custom', path: ['format'], message: err.message });
    return;
  }
  for (const name of placeholderNames(parsed)) {
    if (!seen.has(name)) {
      ctx.addIssue({ code: 'custom', path: ['format'], message: `names the unknown field {${name}}` });
    }
  }
}

/** The spec's `version`: the author's label for a definition ("1.2", "2026-q4"); never compared. */
export const TemplateVersionLabel = z
  .string()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9._+-]{0,31}$/,
    'version must be 1-32 letters, digits and . _ + -, starting with a letter or digit',
  )
  .meta({
    description: 'The author’s label for this definition; the revision’s number when not given',
    example: '1.0',
  });

export const CreateTemplateRequest = z
  .strictObject({
    template_name: TemplateName,
    description: Description.default(''),
    version: TemplateVersionLabel.optional(),
    fields: Fields,
    format: Format.optional(),
  })
  .superRefine(checkDefinition)
  .meta({ id: 'CreateTemplateRequest' });
export type CreateTemplateRequest = z.output<typeof CreateTemplateRequest>;

/**
 * PUT replaces description, version label, fields and format as the next revision. Optimistic
 * concurrency is the `If-Match` header (the revision's ETag), not a body field.
 */
export const UpdateTemplateRequest = z
  .strictObject({
    template_name: TemplateName.optional().meta({
      description: 'If sent, must be the current name (no renames)',
    }),
    description: Description.default(''),
    version: TemplateVersionLabel.optional(),
    fields: Fields,
    format: Format.optional(),
  })
  .superRefine(checkDefinition)
  .meta({ id: 'UpdateTemplateRequest' });
export type UpdateTemplateRequest = z.output<typeof UpdateTemplateRequest>;

export const Template = z
  .object({
    id: z.string(),
    template_name: z.string(),
    description: z.string(),
    version: z
      .string()
      .meta({ description: 'The author’s label; the revision’s number when none was given' }),
    revision: z.number().int().min(1).meta({
      description: 'Server-assigned: 1, then 2, … on each update; the ETag (`"2"`) that If-Match takes',
    }),
    fields: z.array(TemplateField),
    format: z.string().optional(),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .meta({ id: 'Template' });
export type Template = z.infer<typeof Template>;

// ---- paging -----------------------------------------------------------------------------------

const pageLimit = queryInteger('limit', { min: 1, ...TEMPLATE_LIMITS.page });
const pageOffset = queryInteger('offset', { min: 0, max: 1_000_000, default: 0 });

export const TemplateListQuery = z.strictObject({ limit: pageLimit, offset: pageOffset });

export const MarketplaceQuery = z.strictObject({
  limit: pageLimit,
  offset: pageOffset,
  category: z
    .string()
    .regex(/^[a-z][a-z0-9-]{0,63}$/, 'category must be a lower-case slug')
    .optional()
    .meta({ example: 'meetings' }),
  keyword: z
    .string()
    .trim()
    .min(1, 'keyword must not be empty')
    .max(TEMPLATE_LIMITS.queryMaxChars)
    .optional()
    .meta({ description: 'Words that must each appear in the name, description or keywords' }),
  q: z
    .string()
    .trim()
    .min(1, 'q must not be empty')
    .max(TEMPLATE_LIMITS.queryMaxChars)
    .optional()
    .meta({ description: 'Older name of keyword, kept for compatibility; with both, every word must match' }),
});
export type MarketplaceQuery = z.output<typeof MarketplaceQuery>;

export const Paging = z.object({
  limit: z.number().int(),
  offset: z.number().int(),
  returned: z.number().int(),
  total: z.number().int().meta({ description: 'Every match, not only this page' }),
  has_more: z.boolean(),
  next_offset: z.number().int().nullable(),
});
export type Paging = z.infer<typeof Paging>;

export const TemplatePage = z
  .object({ data: z.array(Template).meta({ description: 'By name' }), paging: Paging })
  .meta({ id: 'TemplatePage' });
export type TemplatePage = z.infer<typeof TemplatePage>;

export const MarketplaceTemplate = z
  .object({
    marketplace_template_id: z.string().meta({ example: 'meeting-notes' }),
    template_name: z.string().meta({ example: 'Meeting notes' }),
    id: z.string().meta({ description: 'Older name of marketplace_template_id, kept for compatibility' }),
    name: z.string().meta({ description: 'Older name of template_name, kept for compatibility' }),
    description: z.string(),
    category: z.string(),
    keywords: z.array(z.string()),
    version: z.string(),
    fields: z.array(TemplateField),
    format: z.string(),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .meta({ id: 'MarketplaceTemplate' });
export type MarketplaceTemplate = z.infer<typeof MarketplaceTemplate>;

export const MarketplacePage = z
  .object({
    data: z.array(MarketplaceTemplate).meta({ description: 'By category, then name' }),
    paging: Paging,
  })
  .meta({ id: 'MarketplacePage' });
export type MarketplacePage = z.infer<typeof MarketplacePage>;

// ---- memories from templates ---------------------------------------------------------------------

const TemplateNamespace = Namespace.refine(
  (n) => !isReservedNamespace(n),
  `namespace must not start with ${RESERVED_NAMESPACE_PREFIX}`,
);

/**
 * One value per template field, bounded before anything is stored: each value at most
 * JSON_BOUNDS.maxDepth levels deep (reported at its field), the whole at most JSON_BOUNDS.maxBytes.
 */
const TemplateData = z
  .record(z.string(), z.unknown())
  .superRefine((data, ctx) => {
    let deepEnough = true;
    for (const [key, value] of Object.entries(data)) {
      if (jsonDepth(value) > JSON_BOUNDS.maxDepth) {
        deepEnough = false;
        ctx.addIssue({
          code: 'custom',
          path: [key],
          message: `nests objects and lists deeper than ${JSON_BOUNDS.maxDepth} levels`,
        });
      }
    }
    // Measured only when bounded in depth: serialising a deeper value could itself fail.
    if (deepEnough && jsonBytes(data) > JSON_BOUNDS.maxBytes) {
      ctx.addIssue({ code: 'custom', message: `must be at most ${JSON_BOUNDS.maxBytes} bytes as JSON` });
    }
  })
  .meta({
    description: `One value per template field; each at most ${JSON_BOUNDS.maxDepth} levels deep, all at most ${JSON_BOUNDS.maxBytes} bytes as JSON`,
  });

export const CreateTemplateMemoryRequest = z
  .strictObject({
    template_name: z.string().min(1).max(TEMPLATE_LIMITS.nameMaxLength).optional().meta({
      description: 'A private template of the tenant (its name or id)',
    }),
    marketplace_template_id: z.string().min(1).max(TEMPLATE_LIMITS.nameMaxLength).optional(),
    data: TemplateData,
    namespace: TemplateNamespace.default(DEFAULT_TEMPLATE_NAMESPACE),
  })
  .superRefine((body, ctx) => {
    const given =
      Number(body.template_name !== undefined) + Number(body.marketplace_template_id !== undefined);
    if (given !== 1) {
      ctx.addIssue({
        code: 'custom',
        path: [body.template_name === undefined ? 'template_name' : 'marketplace_template_id'],
        message: 'give exactly one of template_name and marketplace_template_id',
      });
    }
  })
  .meta({ id: 'CreateTemplateMemoryRequest' });
export type CreateTemplateMemoryRequest = z.output<typeof CreateTemplateMemoryRequest>;

export const TemplateSource = z.enum(['private', 'marketplace']);

export const TemplateMemoryTemplate = z.object({
  source: TemplateSource,
  template_id: z.string().nullable().meta({ description: 'The private template’s id; null for marketplace' }),
  template_name: z.string(),
  template_version: z.string().meta({ description: 'The version label the memory was created with' }),
  template_revision: z
    .number()
    .int()
    .nullable()
    .meta({ description: 'The private template’s revision it was created with; null for marketplace' }),
  marketplace_template_id: z.string().nullable(),
});
export type TemplateMemoryTemplate = z.infer<typeof TemplateMemoryTemplate>;

export const CreateTemplateMemoryResponse = z
  .object({
    operation: z.literal('template.memory.create'),
    state: z.enum(['retained', 'not_retained']),
    memory_id: z.string().nullable().meta({ description: 'Null when nothing was retained (no consent)' }),
    request_id: z.string(),
    idempotency_key: z.string(),
    idempotency_outcome: z.enum(['Accepted', 'Replayed']),
    namespace: z.string(),
    text: z.string().meta({ description: 'The text rendered from the data and retained' }),
    template: TemplateMemoryTemplate,
    usage: Usage,
    created_at: z.iso.datetime().nullable(),
  })
  .meta({ id: 'CreateTemplateMemoryResponse' });
export type CreateTemplateMemoryResponse = z.infer<typeof CreateTemplateMemoryResponse>;

export const TemplateMemory = z
  .object({
    memory_id: z.string(),
    namespace: z.string(),
    data: z.record(z.string(), z.unknown()),
    text: z.string(),
    template: TemplateMemoryTemplate,
    created_at: z.iso.datetime(),
  })
  .meta({ id: 'TemplateMemory' });
export type TemplateMemory = z.infer<typeof TemplateMemory>;

// ---- bus messages (gateway -> template) -----------------------------------------------------------

const TenantId = z.string().min(1);

export const ListTemplatesMessage = z.object({
  tenant_id: TenantId,
  limit: z.number().int().min(1).max(TEMPLATE_LIMITS.page.max),
  offset: z.number().int().min(0),
});
export type ListTemplatesMessage = z.infer<typeof ListTemplatesMessage>;

export const CreateTemplateMessage = z.object({ tenant_id: TenantId, body: CreateTemplateRequest });
export type CreateTemplateMessage = z.output<typeof CreateTemplateMessage>;

export const GetTemplateMessage = z.object({ tenant_id: TenantId, ref: z.string().min(1).max(128) });
export type GetTemplateMessage = z.infer<typeof GetTemplateMessage>;

export const UpdateTemplateMessage = GetTemplateMessage.extend({
  body: UpdateTemplateRequest,
  /** From If-Match: update only if this is still the current revision; null applies to any. */
  expected_revision: z.number().int().min(1).nullable(),
});
export type UpdateTemplateMessage = z.output<typeof UpdateTemplateMessage>;

export const SearchMarketplaceMessage = z.object({
  category: z.string().nullable(),
  q: z.string().nullable(),
  limit: z.number().int().min(1).max(TEMPLATE_LIMITS.page.max),
  offset: z.number().int().min(0),
});
export type SearchMarketplaceMessage = z.infer<typeof SearchMarketplaceMessage>;

export const GetMarketplaceTemplateMessage = z.object({ id: z.string().min(1).max(128) });
export type GetMarketplaceTemplateMessage = z.infer<typeof GetMarketplaceTemplateMessage>;

export const CreateTemplateMemoryMessage = z.object({
  scope: Scope,
  request_id: z.string(),
  idempotency_key: IdempotencyKey,
  body: CreateTemplateMemoryRequest,
});
export type CreateTemplateMemoryMessage = z.output<typeof CreateTemplateMemoryMessage>;

export const GetTemplateMemoryMessage = z.object({
  tenant_id: TenantId,
  memory_id: z.string().min(1).max(128),
});
export type GetTemplateMemoryMessage = z.infer<typeof GetTemplateMemoryMessage>;

/**
 * The template part of a namespace deletion. `follow`: only follow a deletion already running (the
 * status route's poll), never start one, so reading an old receipt cannot cancel a later import.
 */
export const DeleteTemplateNamespaceMessage = z.object({
  tenant_id: TenantId,
  namespace: Namespace,
  follow: z.boolean().optional(),
});
export type DeleteTemplateNamespaceMessage = z.infer<typeof DeleteTemplateNamespaceMessage>;

export const TemplateNamespaceDeleted = z.object({
  /** `in_progress` while the template data is still being removed in the background. */
  status: z.enum(['in_progress', 'completed']),
  template_memories: z.number().int().nonnegative(),
  import_jobs: z.number().int().nonnegative(),
  /** Imports and restores of the namespace that were running and are now `cancelled`. */
  cancelled_jobs: z.number().int().nonnegative(),
});
export type TemplateNamespaceDeleted = z.infer<typeof TemplateNamespaceDeleted>;
