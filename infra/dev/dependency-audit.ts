/**
 * `pnpm audit --audit-level high` as pnpm 11 runs it, for the pnpm 10 this project pins: pnpm 10 asks
 * the registry's retired audit endpoints (`/-/npm/v1/security/audits[/quick]`, answered 410 since
 * April 2026), and pnpm 11 needs Node 22.13 while the project supports Node 20. So: every
 * `name@version` of pnpm-lock.yaml to the bulk advisory endpoint, and the same allowlist pnpm reads
 * (`auditConfig.ignoreGhsas` in pnpm-workspace.yaml), each entry justified in docs/security.md.
 *
 * Exit 0: no advisory at or above `high` outside the allowlist, or no answer to be had (a refusal,
 * 4xx: this network cannot audit; or an outage, network, timeout, 5xx, 429, twice), said loudly
 * (docs/security.md), unless TM_AUDIT=required.
 * Exit 1: a blocking advisory, an allowlist entry not justified or past its review date, or no
 * answer under TM_AUDIT=required. A red build means nothing lands, and the advisory endpoint's
 * weather is not the change's fault: where an audit must run, set TM_AUDIT=required.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import {
  type Advisory,
  judge,
  lockfilePackages,
  type Severity,
  unjustifiedIgnores,
} from './audit-findings.js';

const root = process.env.TM_AUDIT_ROOT ?? join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const registry = (process.env.npm_config_registry ?? 'https://registry.npmjs.org/').replace(/\/?$/, '/');
const endpoint = `${registry}-/npm/v1/security/advisories/bulk`;
const mode = process.env.TM_AUDIT ?? 'if-reachable';
const retryMs = Number(process.env.TM_AUDIT_RETRY_MS ?? 10_000);
const LEVEL: Severity = 'high';

const say = (line: string) => console.error(`› audit: ${line}`);
/** Exit 0, loudly: the audit could not run here and that must be seen in the run's output. */
function passNotAudited(lines: string[]): never {
  for (const line of lines) console.error(`! audit: ${line}`);
  process.exit(0);
}
function fail(lines: string[]): never {
  for (const line of lines) console.error(`✗ audit: ${line}`);
  process.exit(1);
}

type Answer =
  | { kind: 'report'; report: Record<string, Advisory[]> }
  | { kind: 'refused' | 'outage'; reason: string };

async function ask(body: string): Promise<Answer> {
  try {
    const res = await fetch(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body,
      signal: AbortSignal.timeout(30_000),
    });
    if (res.ok) return { kind: 'report', report: (await res.json()) as Record<string, Advisory[]> };
    const reason = `${endpoint} answered ${res.status} ${res.statusText}`.trim();
    // A refusal will be the same on a retry (method not allowed here, endpoint gone); a 5xx or 429 may not.
    return { kind: res.status >= 500 || res.status === 429 ? 'outage' : 'refused', reason };
  } catch (err) {
    return { kind: 'outage', reason: `${endpoint}: ${err instanceof Error ? err.message : String(err)}` };
  }
}

/** The registry's advisories for these packages; asked again once after an outage, else the run ends here. */
async function advisories(body: string): Promise<Record<string, Advisory[]>> {
  let answer = await ask(body);
  if (answer.kind === 'outage') {
    say(`${answer.reason}; asking again in ${retryMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, retryMs));
    answer = await ask(body);
  }
  if (answer.kind === 'report') return answer.report;
  const lines =
    answer.kind === 'outage'
      ? [`the advisory endpoint failed twice (${answer.reason}).`, 'The dependencies were NOT audited.']
      : [
          `the registry refused the audit (${answer.reason}).`,
          'The dependencies were NOT audited: this network does not allow the advisory endpoint (docs/security.md, "Dependency audit").',
        ];
  if (mode === 'required') fail([...lines, 'TM_AUDIT=required, so this fails the run.']);
  return passNotAudited(lines);
}

if (mode === 'off') {
  say('skipped (TM_AUDIT=off)');
  process.exit(0);
}
const workspace = parse(readFileSync(join(root, 'pnpm-workspace.yaml'), 'utf8')) as {
  auditConfig?: { ignoreGhsas?: string[] };
};
const ignore = workspace.auditConfig?.ignoreGhsas ?? [];
const unjustified =
  ignore.length === 0
    ? []
    : unjustifiedIgnores(ignore, readFileSync(join(root, 'docs', 'security.md'), 'utf8'), new Date());
if (unjustified.length > 0)
  fail(['allowlist entries need attention (pnpm-workspace.yaml auditConfig.ignoreGhsas):', ...unjustified]);

const packages = lockfilePackages(parse(readFileSync(join(root, 'pnpm-lock.yaml'), 'utf8')));
const body = JSON.stringify(packages);
const { blocking, accepted, belowLevel } = judge(await advisories(body), { level: LEVEL, ignore });
const count = Object.values(packages).reduce((n, versions) => n + versions.length, 0);
for (const f of accepted) say(`allowed by the allowlist: ${f.ghsa} ${f.package} (${f.severity}) ${f.title}`);
if (blocking.length > 0) {
  fail([
    `${blocking.length} advisor${blocking.length === 1 ? 'y' : 'ies'} at or above ${LEVEL} in ${count} packages:`,
    ...blocking.map((f) => `${f.severity} ${f.package} ${f.vulnerable_versions}: ${f.title} (${f.url})`),
    'Upgrade within semver (pnpm update <name>), or allowlist the GHSA with a reason and review date (docs/security.md).',
  ]);
}
say(
  `${count} packages, none with an advisory at or above ${LEVEL} (${belowLevel} below it, ${accepted.length} allowlisted)`,
);
