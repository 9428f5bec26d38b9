// Node-only helpers (`@text-memory/sdk/node`): file paths in, file paths out. The core stays free of
// Node imports so it runs in browsers, Bun and Deno.
import { createWriteStream, openAsBlob } from 'node:fs';
import { basename } from 'node:path';
import { Writable } from 'node:stream';
import type { TextMemory } from './client.js';
import type { ImportJob, UploadInput, UploadOptions } from './families/imports.js';
import type { ExportQuery } from './families/infrastructure.js';
import type { CallOptions } from './http.js';

/** Stream the export into a file at `path` (created or truncated). */
export async function exportToFile(
  tm: TextMemory,
  path: string,
  query: ExportQuery = {},
  options?: CallOptions,
): Promise<{ bytes: number; request_id: string | undefined }> {
  const file = Writable.toWeb(createWriteStream(path)) as WritableStream<Uint8Array>;
  return tm.infrastructure.exportTo(file, query, options);
}

/** Upload the file at `path` (read as it is sent, never whole into memory) and get the job's estimate. */
export async function uploadFile(
  tm: TextMemory,
  path: string,
  input: Omit<UploadInput, 'file'> = {},
  options?: UploadOptions,
): Promise<ImportJob> {
  const file = await openAsBlob(path);
  return tm.imports.upload({ filename: basename(path), ...input, file }, options);
}
