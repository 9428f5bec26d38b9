import { beforeAll, describe, expect, it } from 'vitest';
import { cliUsers, requireBuiltCli } from '../support/cli.js';

// The built `tm` with a key it cannot send. The SDK refuses such a key when the client is made, so no
// request goes out and nothing listens on the address below: the error is all there is to check, on
// stderr, as a person reads it and as `--json` prints it (JSON escapes a line break, so a mask looking
// for the raw key missed it there: the key came out whole).

beforeAll(requireBuiltCli);

// Port 9 (discard): nothing answers there; no request is made anyway.
const users = cliUsers(() => 'http://127.0.0.1:9');
const SECRET = 'Zq7PwX2mKd9sLr4TnV8bYc3HfJ6gAe1Ru5Wo0Ni';

describe('tm with an API key it cannot send', () => {
  it.each([
    ['a line break', '\n', 'a line break'],
    ['a carriage return', '\r', 'a line break'],
    ['a non-ASCII character', '€', 'a character outside ASCII'],
  ])(
    'when TM_API_KEY holds %s, then status exits 2 saying where, in both outputs, never with the key',
    async (_, breaking, said) => {
      const { tm } = users();
      const key = `tmk_Ab3dE6gH_${SECRET.slice(0, 12)}${breaking}${SECRET.slice(12)}`;
      const message = `apiKey holds ${said} at character 26 of ${key.length}: give it exactly as issued (the value is not shown)`;

      const human = await tm(['status'], { env: { TM_API_KEY: key } });
      const json = await tm(['--json', 'status'], { env: { TM_API_KEY: key } });

      expect(human).toMatchObject({
        code: 2,
        stdout: '',
        stderr: `tm: ${message}\n  code: validation_failed\n  apiKey: ${message}\n`,
      });
      expect(json).toMatchObject({ code: 2, stdout: '' });
      expect(JSON.parse(json.stderr)).toEqual({
        error: message,
        code: 'validation_failed',
        fields: [{ path: 'apiKey', message }],
      });
      for (const part of [key, JSON.stringify(key).slice(1, -1), SECRET.slice(0, 12), SECRET.slice(12)]) {
        expect(human.stderr).not.toContain(part);
        expect(json.stderr).not.toContain(part);
      }
    },
  );
});
