import { Transform, type TransformCallback } from 'node:stream';
import { ImportError } from './import-errors.js';

/**
 * A pass-through stream that fails with `size_exceeded` as soon as more than `maxBytes` have gone
 * through it, so an oversized upload is refused while it streams in rather than after it was buffered
 * or written somewhere. Put it first in the pipeline, right after the request body.
 */
export class SizeLimit extends Transform {
  readonly maxBytes: number;
  private seen = 0;

  constructor(maxBytes: number) {
    super();
    if (!Number.isSafeInteger(maxBytes) || maxBytes < 0) {
      throw new RangeError(`maxBytes must be a non-negative integer, got ${maxBytes}`);
    }
    this.maxBytes = maxBytes;
  }

  /** Bytes accepted so far. */
  get bytesSeen(): number {
    return this.seen;
  }

  override _transform(chunk: Buffer | string, encoding: BufferEncoding, callback: TransformCallback): void {
    const size = typeof chunk === 'string' ? Buffer.byteLength(chunk, encoding) : chunk.length;
    if (this.seen + size > this.maxBytes) {
      callback(
        new ImportError(
          'size_exceeded',
          `The file is larger than the limit of ${describeBytes(this.maxBytes)}`,
        ),
      );
      return;
    }
    this.seen += size;
    callback(null, chunk);
  }
}

export function createSizeLimit(maxBytes: number): SizeLimit {
  return new SizeLimit(maxBytes);
}

function describeBytes(bytes: number): string {
  const units = ['bytes', 'KiB', 'MiB', 'GiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1 && value % 1024 === 0) {
    value /= 1024;
    unit += 1;
  }
  return `${value} ${units[unit]}`;
}
