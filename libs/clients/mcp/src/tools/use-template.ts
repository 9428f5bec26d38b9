import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { BodyOf, Schemas } from '@text-memory/sdk';
import { z } from 'zod';
import { eventIdArgument, namespaceArgument } from './arguments.js';
import type { ToolContext } from './context.js';
import { mirrors } from './mirrors.js';
import { callService, refusal, success } from './results.js';
import { type WithoutNulls, withoutNulls } from './without-nulls.js';

type Created = Schemas['CreateTemplateMemoryResponse'];

/**
 * What `use_template` answers: the memory's receipt, its rendered text and the template it came from,
 * its nulls left out (without-nulls.ts).
 */
const UseTemplateOutput = mirrors<
  WithoutNulls<
    Pick<Created, 'state' | 'memory_id' | 'namespace' | 'text' | 'idempotency_outcome' | 'request_id'> & {
      template: Pick<Created['template'], 'source' | 'template_name' | 'template_version'>;
    }
  >
>()(
  z.object({
    state: z.enum(['retained', 'not_retained']),
    memory_id: z.string().describe('Absent when the text was not retained').optional(),
    namespace: z.string(),
    text: z.string(),
    idempotency_outcome: z.enum(['Accepted', 'Replayed']),
    template: z.object({
      source: z.enum(['private', 'marketplace']),
      template_name: z.string(),
      template_version: z.string(),
    }),
    request_id: z.string(),
  }),
);

export function registerUseTemplate(server: McpServer, { tm, defaultNamespace }: ToolContext) {
  server.registerTool(
    'use_template',
    {
      title: 'Remember structured data through a template',
      description:
        'Fill a template (see `list_templates`) with `data` and store the sentence it renders as a ' +
        'memory, recallable like any other. Name exactly one template: `template_name` for a private ' +
        'template, or `marketplace_template_id` for a marketplace one. `data` has one key per template ' +
        'field; required fields must be present.',
      inputSchema: {
        template_name: z.string().min(1).describe('A private template’s name (or id).').optional(),
        marketplace_template_id: z
          .string()
          .min(1)
          .describe('A marketplace template’s id, e.g. "task".')
          .optional(),
        // Any JSON value per field, spelled as a free-form object: zod writes z.unknown() as `{}`, a
        // schema that constrains nothing, which the MCP Inspector flags as unportable.
        data: z
          .record(z.string(), z.unknown())
          .meta({ additionalProperties: true })
          .describe('Values by field name, e.g. {"title": "File taxes", "owner": "Ana"}.'),
        namespace: namespaceArgument(
          'Partition to store it in. Default: the server’s default namespace if it has one (tm-mcp: ' +
            'TM_NAMESPACE), else the service’s "templates".',
        ).optional(),
        event_id: eventIdArgument(
          'Idempotency key: repeat a call with the same one and the memory is stored once. Generated when absent.',
        ).optional(),
      },
      outputSchema: UseTemplateOutput,
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      },
    },
    async (args) => {
      if ((args.template_name === undefined) === (args.marketplace_template_id === undefined))
        return refusal(
          'Name exactly one template: `template_name` (private) or `marketplace_template_id` (marketplace). ' +
            'list_templates shows both kinds.',
          'template_required',
        );
      const namespace = args.namespace ?? defaultNamespace;
      // The service puts a memory that names no namespace in "templates"; the SDK's type (generated
      // from the response side of the document) marks the field required, hence the cast.
      const body = {
        data: args.data,
        ...(args.template_name !== undefined ? { template_name: args.template_name } : {}),
        ...(args.marketplace_template_id !== undefined
          ? { marketplace_template_id: args.marketplace_template_id }
          : {}),
        ...(namespace !== undefined ? { namespace } : {}),
      } as BodyOf<'createTemplateMemory'>;
      return callService(async () => {
        const memory = await tm.memories.create(
          body,
          args.event_id !== undefined ? { idempotencyKey: args.event_id } : {},
        );
        return success(
          UseTemplateOutput,
          [
            memory.state === 'retained'
              ? `Remembered in namespace "${memory.namespace}" as memory ${memory.memory_id}:`
              : 'Not retained (the tenant has no private-memory consent); the rendered text was:',
            memory.text,
            `template: ${memory.template.source} "${memory.template.template_name}" version ${memory.template.template_version}`,
            `idempotency_outcome: ${memory.idempotency_outcome}`,
            `request_id: ${memory.request_id}`,
          ].join('\n'),
          withoutNulls({
            state: memory.state,
            memory_id: memory.memory_id,
            namespace: memory.namespace,
            text: memory.text,
            idempotency_outcome: memory.idempotency_outcome,
            template: {
              source: memory.template.source,
              template_name: memory.template.template_name,
              template_version: memory.template.template_version,
            },
            request_id: memory.request_id,
          }),
        );
      });
    },
  );
}
