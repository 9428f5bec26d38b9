import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { writeReleaseRecord } from '../release-record.js';

/** A stand-in gateway whose release route answers `answers` in turn (the last one from then on). */
async function gatewayAnswering(answers: Array<{ status: number; body: object }>) {
  let asked = 0;
  const server = createServer((_req, res) => {
    const answer = answers[Math.min(asked++, answers.length - 1)] as { status: number; body: object };
    res.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, asked: () => asked };
}

const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'tm-release-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
};

const partial = {
  health: { status: 'degraded' },
  schema_versions: { memory: '20261123200000_init', billing: null },
};
const whole = {
  health: { status: 'ok' },
  schema_versions: { memory: '20261123200000_init', billing: '20261123210000_invoices' },
};

describe('writeReleaseRecord', () => {
  it('when a service has not answered yet, then it asks again and writes the whole record under the start time', async () => {
    const gateway = await gatewayAnswering([
      { status: 200, body: partial },
      { status: 200, body: whole },
    ]);
    const dataDir = tempDir();

    const file = await writeReleaseRecord(gateway.url, dataDir, {
      now: new Date('2026-11-26T07:00:00.123Z'),
    });

    expect(file).toBe(join(dataDir, 'releases', '2026-11-26T07-00-00.123Z.json'));
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(whole);
    expect(gateway.asked()).toBe(2);
  });

  it('when a service never answers, then the record is written as it is once the wait is over', async () => {
    const gateway = await gatewayAnswering([{ status: 200, body: partial }]);
    const dataDir = tempDir();

    const file = await writeReleaseRecord(gateway.url, dataDir, { settleMs: 0 });

    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(partial);
  });

  it('when the route fails, then nothing is written and the caller is told', async () => {
    const gateway = await gatewayAnswering([{ status: 404, body: { error: 'No route' } }]);
    const dataDir = tempDir();

    await expect(writeReleaseRecord(gateway.url, dataDir)).rejects.toThrow('the release route answered 404');
    expect(readdirSync(dataDir)).toEqual([]);
  });
});
