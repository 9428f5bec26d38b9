import { once } from 'node:events';
import { PassThrough, pipeline, Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { peekStreamHead } from '../src/domain/imports/parsing/peek-stream-head.js';
import { SizeLimit } from '../src/domain/imports/parsing/size-limit.js';

async function drain(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

const chunksOf = (total: number, size: number) =>
  Array.from({ length: Math.ceil(total / size) }, (_, i) =>
    Buffer.alloc(Math.min(size, total - i * size), i % 256),
  );

describe('SizeLimit', () => {
  it('when the input is within the limit, then every byte passes through unchanged', async () => {
    const limit = new SizeLimit(1000);
    const input = Buffer.concat(chunksOf(1000, 64));

    pipeline(Readable.from(chunksOf(1000, 64)), limit, () => {});

    expect((await drain(limit)).equals(input)).toBe(true);
    expect(limit.bytesSeen).toBe(1000);
  });

  it('when the input passes the limit, then the stream fails with size_exceeded before reading the rest', async () => {
    let produced = 0;
    const source = Readable.from(
      (function* () {
        for (const chunk of chunksOf(1_000_000, 1000)) {
          produced += chunk.length;
          yield chunk;
        }
      })(),
    );
    const limit = new SizeLimit(10 * 1024);
    pipeline(source, limit, () => {});

    await expect(drain(limit)).rejects.toMatchObject({
      kind: 'size_exceeded',
      message: 'The file is larger than the limit of 10 KiB',
    });
    expect(limit.bytesSeen).toBeLessThanOrEqual(10 * 1024);
    expect(produced).toBeLessThan(1_000_000);
  });

  it('when string chunks arrive, then they are counted in bytes, not characters', async () => {
    const limit = new SizeLimit(5);
    limit.write('ééé'); // 6 bytes
    const [error] = await once(limit, 'error');

    expect(error).toMatchObject({ kind: 'size_exceeded' });
  });

  it('when the limit is not a non-negative integer, then it is refused', () => {
    expect(() => new SizeLimit(-1)).toThrow(RangeError);
    expect(() => new SizeLimit(1.5)).toThrow(RangeError);
  });
});

describe('peekStreamHead', () => {
  it('when the input is longer than the head, then the head is returned and the stream replays everything', async () => {
    const input = Buffer.concat(chunksOf(10_000, 700));

    const { head, stream } = await peekStreamHead(Readable.from(chunksOf(10_000, 700)), 1000);

    expect(head.equals(input.subarray(0, 1000))).toBe(true);
    expect((await drain(stream)).equals(input)).toBe(true);
  });

  it('when the input is shorter than the head, then the head is all of it', async () => {
    const { head, stream } = await peekStreamHead(Readable.from([Buffer.from('abc')]), 4096);

    expect(head.toString()).toBe('abc');
    expect((await drain(stream)).toString()).toBe('abc');
  });

  it('when the input fails after the head, then the replayed stream fails with its error', async () => {
    const input = new PassThrough();
    input.write(Buffer.alloc(100));
    const peeked = peekStreamHead(input, 50);
    const { stream } = await peeked;
    setImmediate(() => input.destroy(new Error('connection reset')));

    await expect(drain(stream)).rejects.toThrow('connection reset');
  });
});
