import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../src/logger.js';

function capture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { lines, logger: createLogger({ name: 'test', level: 'info', destination: stream }) };
}

describe('createLogger', () => {
  it('when a log line carries credentials or memory text, then they are redacted', () => {
    const { lines, logger } = capture();
    logger.info(
      {
        req: { headers: { authorization: 'Bearer tmk_secret', 'x-api-key': 'tmk_other', cookie: 'sid=1' } },
        text: 'my diary entry',
        payload: { text: 'nested diary', cue: 'nested cue', api_key: 'tmk_nested', password: 'hunter2' },
        body: { anything: 'at all' },
      },
      'request',
    );
    const out = lines.join('');
    for (const leaked of [
      'tmk_secret',
      'tmk_other',
      'sid=1',
      'my diary entry',
      'nested diary',
      'nested cue',
      'tmk_nested',
      'hunter2',
      'at all',
    ]) {
      expect(out).not.toContain(leaked);
    }
    expect(out).toContain('[redacted]');
  });
});
