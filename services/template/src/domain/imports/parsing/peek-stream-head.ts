import { Readable } from 'node:stream';

/**
 * Reads the first `bytes` bytes of a stream (fewer if it ends sooner) for detect-format, and gives
 * back a stream that replays them followed by the rest, so sniffing never costs buffering the file.
 * Errors of the input come out of the returned stream; destroying it stops the input.
 */
export async function peekStreamHead(
  input: Readable,
  bytes: number,
): Promise<{ head: Buffer; stream: Readable }> {
  const iterator = input[Symbol.asyncIterator]() as AsyncIterator<Buffer | string>;
  const chunks: Buffer[] = [];
  let size = 0;
  let ended = false;
  while (size < bytes) {
    const next = await iterator.next();
    if (next.done) {
      ended = true;
      break;
    }
    const chunk = typeof next.value === 'string' ? Buffer.from(next.value) : next.value;
    chunks.push(chunk);
    size += chunk.length;
  }
  const buffered = Buffer.concat(chunks);

  async function* replay(): AsyncGenerator<Buffer> {
    try {
      if (buffered.length > 0) yield buffered;
      if (ended) return;
      for (;;) {
        const next = await iterator.next();
        if (next.done) return;
        yield typeof next.value === 'string' ? Buffer.from(next.value) : next.value;
      }
    } finally {
      // the consumer stopped early (or the input failed): release the input too
      await iterator.return?.();
    }
  }

  return { head: buffered.subarray(0, bytes), stream: Readable.from(replay(), { objectMode: false }) };
}
