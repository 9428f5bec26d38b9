import type { CallOptions, Transport } from '../http.js';
import { sleep } from '../retry.js';
import type { BodyOf, QueryOf, ResponseOf } from '../types.js';

export type ImportJob = ResponseOf<'getImport'>;

/**
 * A public model-hub dataset split to import: `dataset` (`owner/name`), `split`, optional
 * `config`, `revision` and `hub_token` (used for this import only, never returned), with a `format`
 * or template and a `namespace`, as an upload takes.
 */
export type DatasetImportInput = BodyOf<'createImport'>;

export interface UploadInput {
  /** The file: a Blob or File (in Node, `fs.openAsBlob`; see `@text-memory/sdk/node`), or bytes. */
  file: Blob | Uint8Array | ArrayBuffer;
  /** Its name; the extension decides the reader (csv, json, ndjson, jsonl, xlsx, xls). Defaults to a File's name. */
  filename?: string;
  /** A format string (`{name} lives in {city|somewhere}`), or a template to take it from. */
  format?: string;
  template_name?: string;
  marketplace_template_id?: string;
  /** Default `imports`. */
  namespace?: string;
}

export interface UploadProgress {
  /** File bytes handed to the connection so far. */
  sentBytes: number;
  totalBytes: number;
}

export interface UploadOptions extends CallOptions {
  onProgress?: (progress: UploadProgress) => void;
  /**
   * Stream the body, counting bytes as the connection takes them. Default: where the runtime can,
   * except in a browser page, which gets a FormData body: Chromium streams a request body only over
   * HTTP/2 and refuses the upload outright over HTTP/1.1 (a console served on plain http), and others
   * do not stream at all. Pass `true` in a page served over HTTP/2 for byte progress.
   */
  stream?: boolean;
}

export interface WaitOptions extends CallOptions {
  /** Between polls. Default 1,000 ms. */
  intervalMs?: number;
  /** Called with the job after each poll. */
  onProgress?: (job: ImportJob) => void;
}

const CHUNK_BYTES = 64 * 1024;

/** Document import (`/v1/imports`, API key with memory:write): upload → estimate → start → progress. */
export class ImportsFamily {
  constructor(private readonly http: Transport) {}

  /**
   * Upload a file as multipart/form-data and get the job in state `estimated` with its estimate.
   * Progress counts file bytes as the connection takes them (the body is streamed where the runtime
   * can stream a request body; elsewhere it reports only 0 and the total).
   */
  async upload(input: UploadInput, options?: UploadOptions): Promise<ImportJob> {
    const { onProgress, stream, ...callOptions } = options ?? {};
    const streamed = stream ?? (!inBrowserPage() && supportsStreamedRequests());
    const blob = input.file instanceof Blob ? input.file : new Blob([input.file as Uint8Array<ArrayBuffer>]);
    const filename = input.filename ?? (hasName(input.file) ? input.file.name : 'upload');
    const fields: Array<[string, string]> = [];
    for (const name of ['format', 'template_name', 'marketplace_template_id', 'namespace'] as const) {
      const value = input[name];
      if (value !== undefined) fields.push([name, value]);
    }
    const totalBytes = blob.size;
    const { data } = await this.http.request<ImportJob>(
      {
        method: 'POST',
        path: '/v1/imports',
        credential: 'apiKey',
        // Each upload makes a new job: a lost answer is not repeated (a 429 still is: nothing was made).
        safe: false,
        body: () =>
          streamed
            ? streamedMultipart(fields, blob, filename, (sentBytes) =>
                onProgress?.({ sentBytes, totalBytes }),
              )
            : formDataBody(fields, blob, filename, () => onProgress?.({ sentBytes: 0, totalBytes })),
      },
      callOptions,
    );
    onProgress?.({ sentBytes: totalBytes, totalBytes });
    return data;
  }

  /**
   * Name a model-hub dataset split instead of uploading a file: the job in state `estimated`, its
   * estimate from the hub's metadata (no row is read until `start`). Refusals have their own codes:
   * `remote_code_required`, `dataset_split_unavailable` (listing the splits), `dataset_gated`, and the
   * retryable `hub_unavailable` / `hub_timeout`.
   */
  async fromDataset(input: DatasetImportInput, options?: CallOptions): Promise<ImportJob> {
    const { data } = await this.http.request<ImportJob>(
      // Each call makes a new job: a lost answer is not repeated (a 429 or hub outage still is).
      { method: 'POST', path: '/v1/imports', credential: 'apiKey', safe: false, json: input },
      options,
    );
    return data;
  }

  /** Write the rows in the background (202, `processing`); starting again answers the job as it is. */
  async start(importId: string, options?: CallOptions): Promise<ImportJob> {
    const { data } = await this.http.request<ImportJob>(
      {
        method: 'POST',
        path: `/v1/imports/${encodeURIComponent(importId)}/start`,
        credential: 'apiKey',
        safe: true,
      },
      options,
    );
    return data;
  }

  /** State and progress: total, processed = retained + failed. */
  async get(importId: string, options?: CallOptions): Promise<ImportJob> {
    const { data } = await this.http.request<ImportJob>(
      {
        method: 'GET',
        path: `/v1/imports/${encodeURIComponent(importId)}`,
        credential: 'apiKey',
        safe: true,
      },
      options,
    );
    return data;
  }

  /**
   * Poll until the job is `completed`, `failed`, `expired` or `cancelled` (its namespace deleted while it
   * ran; cancel the wait with `signal`); resolves with the
   * last job.
   */
  async wait(importId: string, options?: WaitOptions): Promise<ImportJob> {
    const { intervalMs = 1_000, onProgress, ...callOptions } = options ?? {};
    for (;;) {
      const job = await this.get(importId, callOptions);
      onProgress?.(job);
      if (job.state !== 'estimated' && job.state !== 'processing') return job;
      await sleep(intervalMs, callOptions.signal);
    }
  }

  /** Rows not retained, by row number, with a reason code (never the row's text). */
  async failures(
    importId: string,
    query?: QueryOf<'listImportFailures'>,
    options?: CallOptions,
  ): Promise<ResponseOf<'listImportFailures'>> {
    const { data } = await this.http.request<ResponseOf<'listImportFailures'>>(
      {
        method: 'GET',
        path: `/v1/imports/${encodeURIComponent(importId)}/failures`,
        credential: 'apiKey',
        safe: true,
        query,
      },
      options,
    );
    return data;
  }
}

const hasName = (file: unknown): file is { name: string } =>
  typeof (file as { name?: unknown }).name === 'string' && (file as { name: string }).name !== '';

/** Quotes and line breaks cannot appear in a Content-Disposition value; percent-encode them as browsers do. */
const quoted = (value: string) => value.replace(/"/g, '%22').replace(/\r/g, '%0D').replace(/\n/g, '%0A');

/** The multipart body written by hand, as a stream, so the bytes the connection pulls can be counted. */
function streamedMultipart(
  fields: Array<[string, string]>,
  blob: Blob,
  filename: string,
  onSent: (sentBytes: number) => void,
) {
  const boundary = `----tm-sdk-${globalThis.crypto.randomUUID()}`;
  const encoder = new TextEncoder();
  let head = '';
  for (const [name, value] of fields) {
    head += `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
  }
  // The file part comes last: the server does not read fields after it.
  head +=
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${quoted(filename)}"\r\n` +
    `Content-Type: ${blob.type || 'application/octet-stream'}\r\n\r\n`;
  const tail = encoder.encode(`\r\n--${boundary}--\r\n`);
  let offset = 0;
  let headSent = false;
  // Every pull enqueues or closes: a pull that does neither is not called again, and the upload stalls.
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!headSent) {
        headSent = true;
        controller.enqueue(encoder.encode(head));
        onSent(0);
      } else if (offset < blob.size) {
        const chunk = new Uint8Array(await blob.slice(offset, offset + CHUNK_BYTES).arrayBuffer());
        offset += chunk.byteLength;
        controller.enqueue(chunk);
        onSent(offset);
      } else {
        controller.enqueue(tail);
        controller.close();
      }
    },
  });
  return { body, contentType: `multipart/form-data; boundary=${boundary}`, streamed: true };
}

function formDataBody(fields: Array<[string, string]>, blob: Blob, filename: string, onStart: () => void) {
  const form = new FormData();
  for (const [name, value] of fields) form.append(name, value);
  form.append('file', blob, filename);
  onStart();
  return { body: form };
}

/** A window's document (not a worker, Node, Deno or Bun), where the page's protocol is unknown to us. */
const inBrowserPage = () => 'document' in globalThis && 'window' in globalThis;

let streamedRequests: boolean | undefined;

/** The standard feature test: Node, Deno and Chromium (HTTP/2) stream request bodies; others do not. */
function supportsStreamedRequests(): boolean {
  if (streamedRequests !== undefined) return streamedRequests;
  try {
    let duplexAccessed = false;
    const hasContentType = new Request('http://localhost/', {
      body: new ReadableStream(),
      method: 'POST',
      get duplex() {
        duplexAccessed = true;
        return 'half';
      },
    } as RequestInit).headers.has('Content-Type');
    streamedRequests = duplexAccessed && !hasContentType;
  } catch {
    streamedRequests = false;
  }
  return streamedRequests;
}
