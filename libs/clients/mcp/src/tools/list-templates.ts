import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Schemas } from '@text-memory/sdk';
import { z } from 'zod';
import type { ToolContext } from './context.js';
import { mirrors } from './mirrors.js';
import { callService, success } from './results.js';

type Field = Schemas['TemplateFieldOutput'];

const FieldOutput = mirrors<Field>()(
  z.object({
    name: z.string(),
    type: z.enum(['string', 'number', 'boolean', 'object', 'list']),
    required: z.boolean(),
    description: z.string(),
  }),
);

/** What `list_templates` answers: each list asked for, its templates' facts and the list's total. */
const ListTemplatesOutput = mirrors<{
  private?: Pick<Schemas['Template'], 'template_name' | 'id' | 'description' | 'version' | 'fields'>[];
  private_total?: number;
  marketplace?: Pick<
    Schemas['MarketplaceTemplate'],
    'marketplace_template_id' | 'template_name' | 'description' | 'category' | 'version' | 'fields'
  >[];
  marketplace_total?: number;
}>()(
  z.object({
    private: z
      .array(
        z.object({
          template_name: z.string(),
          id: z.string(),
          description: z.string(),
          version: z.string(),
          fields: z.array(FieldOutput),
        }),
      )
      .optional(),
    private_total: z.number().optional(),
    marketplace: z
      .array(
        z.object({
          marketplace_template_id: z.string(),
          template_name: z.string(),
          description: z.string(),
          category: z.string(),
          version: z.string(),
          fields: z.array(FieldOutput),
        }),
      )
      .optional(),
    marketplace_total: z.number().optional(),
  }),
);

export function registerListTemplates(server: McpServer, { tm }: ToolContext) {
  server.registerTool(
    'list_templates',
    {
      title: 'List memory templates',
      description:
        'List the templates `use_template` can fill: the tenant’s private templates and/or the shared ' +
        'marketplace (search it by keyword or category). Each comes with its fields (name, type, ' +
        'required), which are the keys of `use_template`’s `data`.',
      inputSchema: {
        source: z
          .enum(['private', 'marketplace', 'both'])
          .describe('Which list. Default: both, or marketplace alone when keyword or category is given.')
          .optional(),
        keyword: z
          .string()
          .min(1)
          .describe('Marketplace only: words that must each appear in the name, description or keywords.')
          .optional(),
        category: z
          .string()
          .min(1)
          .describe('Marketplace only: a category slug, e.g. "productivity".')
          .optional(),
        offset: z
          .number()
          .int()
          .min(0)
          .describe('Skip this many templates of each list (paging).')
          .optional(),
      },
      outputSchema: ListTemplatesOutput,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ source, keyword, category, offset }) => {
      const filtered = keyword !== undefined || category !== undefined;
      const which = source ?? (filtered ? 'marketplace' : 'both');
      const paging = offset !== undefined ? { offset } : {};
      return callService(async () => {
        const [own, shared] = await Promise.all([
          which === 'marketplace' ? undefined : tm.templates.list(paging),
          which === 'private'
            ? undefined
            : tm.marketplace.search({
                ...paging,
                ...(keyword !== undefined ? { keyword } : {}),
                ...(category !== undefined ? { category } : {}),
              }),
        ]);
        const lines: string[] = [];
        const structured: z.input<typeof ListTemplatesOutput> = {};
        if (own) {
          structured.private = own.data.map((t) => ({
            template_name: t.template_name,
            id: t.id,
            description: t.description,
            version: t.version,
            fields: t.fields.map(field),
          }));
          structured.private_total = own.paging.total;
          lines.push(`Private templates (${own.paging.returned} of ${own.paging.total}):`);
          if (own.data.length === 0) lines.push('(none)');
          for (const t of own.data)
            lines.push(
              `- template_name "${t.template_name}" (version ${t.version}): ${t.description}`,
              fieldLine(t.fields),
            );
        }
        if (shared) {
          structured.marketplace = shared.data.map((t) => ({
            marketplace_template_id: t.marketplace_template_id,
            template_name: t.template_name,
            description: t.description,
            category: t.category,
            version: t.version,
            fields: t.fields.map(field),
          }));
          structured.marketplace_total = shared.paging.total;
          lines.push(`Marketplace templates (${shared.paging.returned} of ${shared.paging.total}):`);
          if (shared.data.length === 0) lines.push('(none match)');
          for (const t of shared.data)
            lines.push(
              `- marketplace_template_id "${t.marketplace_template_id}" [${t.category}] ${t.template_name}: ${t.description}`,
              fieldLine(t.fields),
            );
        }
        return success(ListTemplatesOutput, lines.join('\n'), structured);
      });
    },
  );
}

const field = (f: Field) => ({
  name: f.name,
  type: f.type,
  required: f.required,
  description: f.description,
});

const fieldLine = (fields: Field[]) =>
  `  fields: ${fields.map((f) => `${f.name} (${f.type}${f.required ? ', required' : ''})${f.description ? ` ${f.description}` : ''}`).join('; ')}`;
