import { z } from 'zod';
import type { ZodOpenApiOperationObject, ZodOpenApiPathsObject } from 'zod-openapi';
import {
  CreateDatasetImportRequest,
  DEFAULT_IMPORT_NAMESPACE,
  ImportFailurePage,
  ImportJob,
  ImportListQuery,
} from '../imports/imports.js';
import { errors, json, requestIdHeaders } from './openapi-shared.js';

const apiKey: Array<Record<string, string[]>> = [{ bearerAuth: [] }, { apiKeyHeader: [] }];
const oneErrors = errors(400, 401, 403, 404, 429, 500, 503, 504);
const importRef = z.object({ import_id: z.string().meta({ description: 'The import job’s id (a UUID)' }) });

const op = (operation: ZodOpenApiOperationObject): ZodOpenApiOperationObject => ({
  security: apiKey,
  ...operation,
});

/** Multipart form of an upload: every part is a string; `file` must be the last part. */
const UploadForm = z
  .object({
    format: z.string().optional().meta({ example: 'Call with {name} about {topic|no topic}' }),
    template_name: z.string().optional(),
    marketplace_template_id: z.string().optional(),
    namespace: z
      .string()
      .optional()
      .meta({ description: `Default \`${DEFAULT_IMPORT_NAMESPACE}\`` }),
    file: z
      .string()
      .meta({ format: 'binary', description: 'CSV, XLSX, XLS or JSON (array or NDJSON); last part' }),
  })
  .meta({ id: 'ImportUploadForm' });

/** Document import: upload and estimate, start, progress, row-level failures. */
export const importPaths: ZodOpenApiPathsObject = {
  '/v1/imports': {
    post: op({
      operationId: 'createImport',
      summary:
        'Upload a CSV, XLSX, XLS or JSON file, or name a model-hub dataset split, and get the import’s estimate (memory:write)',
      description:
        'The rows are read and stored, nothing is written yet: the answer is the job in state `estimated` ' +
        'with rows, rows that would render empty or too long, placeholders that match no column, and the ' +
        'estimated cost at the pricing version in force. `POST /v1/imports/{import_id}/start` writes the rows. ' +
        'Refused: an unsupported file type (415 `unsupported_file_type`), a file whose content is unreadable ' +
        'or contradicts its extension (400 `malformed_file`), a file over the size limit (413 ' +
        '`payload_too_large`), a file that holds more once read than an import takes: an XLSX expanding past ' +
        'the unzipped limit, a cell or row count over its limit (413 `payload_too_large`), an upload whose ' +
        'client sends nothing for the stall timeout (408 `upload_timeout`), a form field holding NUL (400 ' +
        '`validation_failed` at the field), a format placeholder without a default (`{name}`, not `{name|…}`) ' +
        'that matches no column of the file or of the dataset split (400 `validation_failed` at `format`, ' +
        'naming the placeholder and the columns), a tenant with its maximum of uploads in flight, or of ' +
        'dataset imports being resolved at or read from the hub (counted apart), or an instance reading its ' +
        'maximum (429 `too_many_imports`, retryable, Retry-After). A row value holding ' +
        'NUL, or nesting objects and lists deeper than 32 levels, is not a refusal: that row fails as ' +
        '`malformed_row`, and the other rows go on.\n\n' +
        'A JSON body names a public model-hub dataset (Hugging Face Hub style) instead: `dataset` ' +
        '(`owner/name`), optional `config`, `split`, optional `revision` and `hub_token`, with the same ' +
        '`format` / template and `namespace`. Its estimate comes from the hub’s metadata (the split’s row ' +
        'count and columns) before any row is read; the rows are read a page at a time once the job is ' +
        'started, and each memory’s source is `{type: "hub_dataset", id: "hub:<dataset>@<sha>:<config>/<split>#<row>"}`. ' +
        'The token is used for this import only: sealed at rest while the job runs, never returned or logged. ' +
        'Refused before any row is written: a dataset read by a loading script of its own (422 ' +
        '`remote_code_required`: no dataset code is ever run), an unknown or unservable config, split or ' +
        'revision, or a dataset with only a preview (422 `dataset_split_unavailable`, listing the splits), a ' +
        'gated or private dataset without a token that has access (403 `dataset_gated`), an unknown dataset ' +
        '(404 `not_found`), a split over the row limit (413 `payload_too_large`), the hub unreachable (503 ' +
        '`hub_unavailable`) or not answering in time (504 `hub_timeout`), both retryable with Retry-After.',
      requestParams: { header: requestIdHeaders },
      requestBody: {
        required: true,
        content: {
          'multipart/form-data': { schema: UploadForm },
          'application/json': { schema: CreateDatasetImportRequest },
        },
      },
      responses: {
        '201': { description: 'The job with its estimate', ...json(ImportJob) },
        ...errors(400, 401, 403, 404, 408, 413, 415, 422, 429, 500, 503, 504),
      },
    }),
  },
  '/v1/imports/{import_id}': {
    get: op({
      operationId: 'getImport',
      summary: 'An import’s state and progress: total, processed = retained + failed (memory:write)',
      requestParams: { path: importRef, header: requestIdHeaders },
      responses: { '200': { description: 'The job', ...json(ImportJob) }, ...oneErrors },
    }),
  },
  '/v1/imports/{import_id}/start': {
    post: op({
      operationId: 'startImport',
      summary: 'Write the rows in the background, one memory each (memory:write)',
      description:
        'Each row is retained with the idempotency key `import:<import_id>:<row>`, so work resumed after a ' +
        'restart never writes a row twice. Starting a job that is already started answers it as it is. ' +
        'A job not started within the service’s time for it (a day by default) has expired: 409 ' +
        '`version_conflict`; create the import again. A dataset import reads the hub while it runs: a tenant ' +
        'with its maximum of dataset imports in flight gets 429 `too_many_imports` (retryable, Retry-After).',
      requestParams: { path: importRef, header: requestIdHeaders },
      responses: {
        '202': { description: 'The job, processing', ...json(ImportJob) },
        ...errors(400, 401, 403, 404, 409, 429, 500, 503, 504),
      },
    }),
  },
  '/v1/imports/{import_id}/failures': {
    get: op({
      operationId: 'listImportFailures',
      summary: 'Rows that were not retained, by row number, with a reason code (never the row’s text)',
      requestParams: { path: importRef, query: ImportListQuery, header: requestIdHeaders },
      responses: { '200': { description: 'A page of failures', ...json(ImportFailurePage) }, ...oneErrors },
    }),
  },
};
