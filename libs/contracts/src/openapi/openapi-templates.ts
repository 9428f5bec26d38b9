import { z } from 'zod';
import type { ZodOpenApiOperationObject, ZodOpenApiPathsObject } from 'zod-openapi';
import { IdempotencyKey } from '../memory/memory.js';
import { ForgetReceipt } from '../memory/memory-forget.js';
import { Memory } from '../memory/memory-get.js';
import {
  CreateTemplateMemoryRequest,
  CreateTemplateMemoryResponse,
  CreateTemplateRequest,
  MarketplacePage,
  MarketplaceQuery,
  MarketplaceTemplate,
  Template,
  TemplateListQuery,
  TemplatePage,
  UpdateTemplateRequest,
} from '../templates/templates.js';
import { errors, json, requestIdHeaders } from './openapi-shared.js';

const apiKey: Array<Record<string, string[]>> = [{ bearerAuth: [] }, { apiKeyHeader: [] }];
const readErrors = errors(400, 401, 403, 429, 500, 503, 504);
const oneErrors = errors(400, 401, 403, 404, 429, 500, 503, 504);
const writeErrors = errors(400, 401, 403, 404, 409, 413, 415, 429, 500, 503, 504);

const etag = {
  headers: z.object({ ETag: z.string().meta({ description: 'The template’s revision, e.g. "2"' }) }),
};

const templateRef = z.object({
  template_name_or_id: z.string().meta({ description: 'The template’s name or its id (a UUID)' }),
});

const op = (operation: ZodOpenApiOperationObject): ZodOpenApiOperationObject => ({
  security: apiKey,
  ...operation,
});

/** Memory templates: private templates, the marketplace, and memories made from either. */
export const templatePaths: ZodOpenApiPathsObject = {
  '/v1/templates': {
    get: op({
      operationId: 'listTemplates',
      summary: 'The tenant’s private templates, by name, at their current version (memory:recall)',
      requestParams: { query: TemplateListQuery, header: requestIdHeaders },
      responses: { '200': { description: 'One page', ...json(TemplatePage) }, ...readErrors },
    }),
    post: op({
      operationId: 'createTemplate',
      summary: 'Create a private template at revision 1 (memory:write)',
      description:
        '`version` is the author’s label for the definition (default "1"); `revision` is the server’s counter.',
      requestParams: { header: requestIdHeaders },
      requestBody: { required: true, ...json(CreateTemplateRequest) },
      responses: {
        '201': { description: 'The template', ...etag, ...json(Template) },
        ...errors(400, 401, 403, 409, 413, 415, 429, 500, 503, 504),
      },
    }),
  },
  '/v1/templates/{template_name_or_id}': {
    get: op({
      operationId: 'getTemplate',
      summary: 'One private template at its current revision (memory:recall)',
      requestParams: { path: templateRef, header: requestIdHeaders },
      responses: { '200': { description: 'The template', ...etag, ...json(Template) }, ...oneErrors },
    }),
    put: op({
      operationId: 'updateTemplate',
      summary: 'Replace description, version label, fields and format as the next revision (memory:write)',
      description:
        'With `If-Match: "<revision>"` (the ETag of a read) the update applies only if that is still the current revision; otherwise 412 `precondition_failed`. ' +
        'Without it the update applies to whatever is current. `version` in the body is the new label (default: the new revision’s number). ' +
        'Memories keep the version and revision they were created with.',
      requestParams: {
        path: templateRef,
        header: requestIdHeaders.extend({
          'If-Match': z
            .string()
            .optional()
            .meta({ description: 'The ETag the update is based on, e.g. "2"' }),
        }),
      },
      requestBody: { required: true, ...json(UpdateTemplateRequest) },
      responses: {
        '200': { description: 'The template at its new revision', ...etag, ...json(Template) },
        ...errors(412),
        ...writeErrors,
      },
    }),
  },
  '/v1/marketplace/templates': {
    get: op({
      operationId: 'searchMarketplace',
      summary: 'Search the marketplace by category and keywords (memory:recall)',
      requestParams: { query: MarketplaceQuery, header: requestIdHeaders },
      responses: { '200': { description: 'One page of matches', ...json(MarketplacePage) }, ...readErrors },
    }),
  },
  '/v1/marketplace/templates/{marketplace_template_id}': {
    get: op({
      operationId: 'getMarketplaceTemplate',
      summary: 'One marketplace template definition (memory:recall)',
      requestParams: {
        path: z.object({ marketplace_template_id: z.string().meta({ example: 'meeting-notes' }) }),
        header: requestIdHeaders,
      },
      responses: { '200': { description: 'The entry', ...json(MarketplaceTemplate) }, ...oneErrors },
    }),
  },
  '/v1/memories': {
    post: op({
      operationId: 'createTemplateMemory',
      summary:
        'Create a memory from a template and data: validated, rendered to text and retained (memory:write)',
      description:
        'The text is retained through the same write as `/api/v1/memory/write`: consent, idempotency and usage apply. ' +
        'Without consent the answer is 200 with `state: not_retained` and `memory_id: null`, and nothing is stored. ' +
        '201 when a memory was created, 200 for a replay of the same Idempotency-Key.',
      requestParams: {
        header: requestIdHeaders.extend({
          'Idempotency-Key': IdempotencyKey.optional().meta({
            description: 'Retry with the same key; generated if absent',
          }),
        }),
      },
      requestBody: { required: true, ...json(CreateTemplateMemoryRequest) },
      responses: {
        '201': { description: 'Retained', ...json(CreateTemplateMemoryResponse) },
        '200': {
          description: 'Replayed, or not retained (read state)',
          ...json(CreateTemplateMemoryResponse),
        },
        ...writeErrors,
      },
    }),
  },
  '/v1/memories/{memory_id}': {
    get: op({
      operationId: 'getMemory',
      summary:
        'Any memory of the tenant by the memory_id the service returned, with template data and metadata when made from a template (memory:recall)',
      description:
        'Memories written by POST /api/v1/memory/write, imports, chat or templates alike. A superseded memory is readable ' +
        '(`state: superseded`); a deleted one, or another tenant’s, is 404.',
      requestParams: { path: z.object({ memory_id: z.string() }), header: requestIdHeaders },
      responses: { '200': { description: 'The memory', ...json(Memory) }, ...oneErrors },
    }),
    delete: op({
      operationId: 'forgetMemory',
      summary: 'Forget one memory: its record, postings and the relations its event recorded (memory:delete)',
      description:
        'As if it had never been written: a memory only it superseded is current again (`reinstated`); relations ' +
        'of later events that superseded it stay, unresolved. A tombstone without text stays for the idempotency ' +
        'retention: the same DELETE again answers this receipt (`idempotency_outcome: Replayed`), and the write ' +
        'that created it replays with `state: not_retained` and `forgotten_at`, never writing it again. Another ' +
        'tenant’s id, an unknown one or one whose namespace is being deleted is 404. Not billed.',
      requestParams: { path: z.object({ memory_id: z.string() }), header: requestIdHeaders },
      responses: { '200': { description: 'Forget receipt', ...json(ForgetReceipt) }, ...oneErrors },
    }),
  },
};
