import type { Readable } from 'node:stream';
import { ImportError } from './import-errors.js';

/**
 * The whole upload in one buffer, for the readers that need random access (an .xls is an OLE2 file
 * system, an .xlsx a zip whose directory sits at its end). Refused as `size_exceeded` past `maxBytes`.
 */
export async function readBounded(input: Readable, maxBytes: number, what: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of input as AsyncIterable<Buffer | string>) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    size += bytes.length;
    if (size > maxBytes) {
      input.destroy();
      throw new ImportError('size_exceeded', `${what} is larger than the limit of ${maxBytes} bytes`);
    }
    chunks.push(bytes);
  }
  return Buffer.concat(chunks);
}
