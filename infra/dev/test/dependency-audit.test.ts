import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { lockfilePackages } from '../audit-findings.js';

const SCRIPT = join(import.meta.dirname, '..', 'dependency-audit.ts');
const LOCKFILE = `lockfileVersion: '9.0'
packages:
  '@scope/tool@1.2.3':
    resolution: {integrity: sha512-x}
  left-pad@1.3.0:
    resolution: {integrity: sha512-y}
  left-pad@2.0.1:
    resolution: {integrity: sha512-z}
`;
const HIGH = {
  id: 1001,
  url: 'https://github.com/advisories/GHSA-xxxx-xxxx-xxxx',
  title: 'Prototype pollution',
  severity: 'high',
  vulnerable_versions: '<1.4.0',
};
const MODERATE = {
  ...HIGH,
  id: 1002,
  severity: 'moderate',
  url: 'https://github.com/advisories/GHSA-mmmm-mmmm-mmmm',
};

/**
 * The registry's bulk advisory endpoint, played by a local server that answers each request with the
 * next of `answers` (status and body) and keeps what it was sent: the audit's own HTTP, no mocked code.
 */
let server: Server;
let answers: Array<{ status: number; body?: unknown }> = [];
const received: unknown[] = [];
beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      received.push({ method: req.method, url: req.url, body: JSON.parse(body || 'null') });
      const answer = answers.shift() ?? { status: 500 };
      res
        .writeHead(answer.status, { 'content-type': 'application/json' })
        .end(JSON.stringify(answer.body ?? {}));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

/** A project folder with this lockfile, allowlist and security doc; the audit run on it. */
function audit(options: { ignore?: string[]; doc?: string; env?: Record<string, string> } = {}) {
  const root = mkdtempSync(join(tmpdir(), 'tm-audit-'));
  mkdirSync(join(root, 'docs'));
  writeFileSync(join(root, 'pnpm-lock.yaml'), LOCKFILE);
  const ignore = options.ignore
    ? `auditConfig:\n  ignoreGhsas:\n${options.ignore.map((g) => `    - ${g}\n`).join('')}`
    : '';
  writeFileSync(join(root, 'pnpm-workspace.yaml'), `packages:\n  - libs/*\n${ignore}`);
  writeFileSync(join(root, 'docs', 'security.md'), options.doc ?? '# Security\n');
  const { port } = server.address() as AddressInfo;
  return new Promise<{ code: number; output: string }>((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', SCRIPT],
      {
        env: {
          ...process.env,
          TM_AUDIT_ROOT: root,
          npm_config_registry: `http://127.0.0.1:${port}/`,
          TM_AUDIT_RETRY_MS: '10',
          TM_AUDIT: 'if-reachable',
          ...options.env,
        },
      },
      (err, stdout, stderr) => resolve({ code: err ? Number(err.code) : 0, output: `${stdout}${stderr}` }),
    );
  });
}

describe('lockfilePackages', () => {
  it("when given this repository's lockfile, then every registry package comes out by name with its versions", () => {
    const packages = lockfilePackages(
      parse(readFileSync(join(import.meta.dirname, '..', '..', '..', 'pnpm-lock.yaml'), 'utf8')),
    );

    expect(packages.express).toEqual([expect.stringMatching(/^5\./)]);
    expect(packages['@nats-io/transport-node']?.length).toBeGreaterThan(0);
    expect(Object.keys(packages).some((name) => name.startsWith('@tm/'))).toBe(false);
  });
});

describe('infra/dev/dependency-audit.ts against an advisory endpoint', () => {
  it('when an advisory at high is reported, then the run fails naming the package, advisory and the way out', async () => {
    answers = [{ status: 200, body: { 'left-pad': [HIGH] } }];
    received.length = 0;

    const { code, output } = await audit();

    expect(code).toBe(1);
    expect(output).toContain('1 advisory at or above high in 3 packages');
    expect(output).toContain(
      'high left-pad <1.4.0: Prototype pollution (https://github.com/advisories/GHSA-xxxx-xxxx-xxxx)',
    );
    expect(received).toEqual([
      {
        method: 'POST',
        url: '/-/npm/v1/security/advisories/bulk',
        body: { '@scope/tool': ['1.2.3'], 'left-pad': ['1.3.0', '2.0.1'] },
      },
    ]);
  });

  it('when only moderate advisories are reported, then the run passes and counts them', async () => {
    answers = [{ status: 200, body: { 'left-pad': [MODERATE] } }];

    const { code, output } = await audit();

    expect(code).toBe(0);
    expect(output).toContain(
      '3 packages, none with an advisory at or above high (1 below it, 0 allowlisted)',
    );
  });

  it('when the high advisory is allowlisted with a reason and a future review date, then the run passes and says so', async () => {
    answers = [{ status: 200, body: { 'left-pad': [HIGH] } }];
    const doc = '| GHSA-xxxx-xxxx-xxxx | left-pad | only in a dev tool, never given input | 2999-01-01 |\n';

    const { code, output } = await audit({ ignore: ['GHSA-xxxx-xxxx-xxxx'], doc });

    expect(code).toBe(0);
    expect(output).toContain('allowed by the allowlist: GHSA-xxxx-xxxx-xxxx left-pad (high)');
  });

  it('when an allowlist entry is past its review date or not in docs/security.md, then the run fails before asking', async () => {
    answers = [{ status: 200, body: {} }];
    received.length = 0;
    const doc = '| GHSA-xxxx-xxxx-xxxx | left-pad | reason | 2001-01-01 |\n';

    const { code, output } = await audit({ ignore: ['GHSA-xxxx-xxxx-xxxx', 'GHSA-yyyy-yyyy-yyyy'], doc });

    expect(code).toBe(1);
    expect(output).toContain('GHSA-xxxx-xxxx-xxxx: its review date 2001-01-01 has passed');
    expect(output).toContain(
      "GHSA-yyyy-yyyy-yyyy: no row with a review date in docs/security.md's allowlist",
    );
    expect(received).toEqual([]);
  });

  it('when the endpoint fails once (503), then the audit asks again and passes on the second answer', async () => {
    answers = [{ status: 503 }, { status: 200, body: {} }];

    const { code, output } = await audit();

    expect(code).toBe(0);
    expect(output).toContain('answered 503');
    expect(output).toContain('asking again');
  });

  it('when the endpoint fails twice, then the run passes saying NOT audited, or fails with TM_AUDIT=required', async () => {
    answers = [{ status: 502 }, { status: 503 }, { status: 502 }, { status: 503 }];

    const lenient = await audit();
    const required = await audit({ env: { TM_AUDIT: 'required' } });

    expect(lenient.code).toBe(0);
    expect(lenient.output).toContain('the advisory endpoint failed twice');
    expect(lenient.output).toContain('! audit: The dependencies were NOT audited');
    expect(required.code).toBe(1);
    expect(required.output).toContain('TM_AUDIT=required, so this fails the run');
  });

  it('when the registry refuses the request (405), then the run passes saying NOT audited, or fails with TM_AUDIT=required', async () => {
    answers = [{ status: 405 }, { status: 405 }];

    const lenient = await audit();
    const required = await audit({ env: { TM_AUDIT: 'required' } });

    expect(lenient.code).toBe(0);
    expect(lenient.output).toContain('! audit: The dependencies were NOT audited');
    expect(required.code).toBe(1);
    expect(required.output).toContain('TM_AUDIT=required, so this fails the run');
  });
});
