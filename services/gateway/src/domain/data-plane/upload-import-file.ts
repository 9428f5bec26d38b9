import {
  AppError,
  type CreateImportFields,
  ErrorCode,
  IMPORT_LIMITS,
  type ImportJob,
  type Scope,
} from '@tm/contracts';
import type { TemplateClient } from '../../clients/template-client.js';

/** A file upload as it arrives, its form already validated. */
export interface ImportFileUpload {
  scope: Scope;
  requestId: string;
  fileName: string;
  fields: CreateImportFields;
  /** The file's bytes as they arrive. */
  content: AsyncIterable<Buffer>;
  /** Whether the size limit cut the content short; known once it has been read to its end. */
  truncated: () => boolean;
  /** That limit in bytes, for the refusal's message. */
  maxBytes: number;
}

/**
 * A file import, streamed through to the template service, which reads, estimates and later writes
 * its rows: the import is created, the file sent on in chunks, then sealed, which answers the
 * estimated job. A file the size limit cut is refused (413). On any failure (a refused chunk, the
 * seal's refusal, the client gone) the import is discarded: nothing of a refused upload is kept.
 */
export async function uploadImportFile(
  upload: ImportFileUpload,
  templates: TemplateClient,
): Promise<ImportJob> {
  const { import_id } = await templates.createImport({
    scope: upload.scope,
    request_id: upload.requestId,
    file_name: upload.fileName,
    fields: upload.fields,
  });
  const ref = { tenant_id: upload.scope.tenant_id, import_id };
  try {
    await forwardChunks(upload.content, (seq, data) =>
      templates.appendImportChunk({ ...ref, seq, data: data.toString('base64') }),
    );
    if (upload.truncated()) {
      throw new AppError(
        ErrorCode.PayloadTooLarge,
        `The file is larger than the import limit of ${upload.maxBytes} bytes`,
      );
    }
    return await templates.sealImport(ref);
  } catch (err) {
    // nothing of a refused upload is kept; a failed discard leaves an `uploading` job nobody sees
    await templates.discardImport(ref).catch(() => undefined);
    throw err;
  }
}

/** Sends the file on in chunks of IMPORT_LIMITS.chunkBytes, one at a time (the upload waits meanwhile). */
async function forwardChunks(
  content: AsyncIterable<Buffer>,
  send: (seq: number, data: Buffer) => Promise<unknown>,
) {
  let seq = 0;
  let pending: Buffer[] = [];
  let size = 0;
  const flush = async () => {
    const data = Buffer.concat(pending);
    pending = [];
    size = 0;
    await send(seq++, data);
  };
  for await (const chunk of content) {
    pending.push(chunk);
    size += chunk.length;
    while (size >= IMPORT_LIMITS.chunkBytes) {
      const all = Buffer.concat(pending);
      pending = [all.subarray(IMPORT_LIMITS.chunkBytes)];
      size = all.length - IMPORT_LIMITS.chunkBytes;
      await send(seq++, all.subarray(0, IMPORT_LIMITS.chunkBytes));
    }
  }
  if (size > 0) await flush();
}
