/**
 * The pure half of the dependency audit (dependency-audit.ts does the I/O): which packages the
 * lockfile installs, which advisories the registry's answer holds, and which of them fail the build.
 */

export const SEVERITIES = ['low', 'moderate', 'high', 'critical'] as const;
export type Severity = (typeof SEVERITIES)[number];

/** One advisory as the registry's bulk endpoint (`/-/npm/v1/security/advisories/bulk`) answers it. */
export interface Advisory {
  id: number;
  url: string;
  title: string;
  severity: string;
  vulnerable_versions: string;
}
export interface Finding extends Advisory {
  package: string;
  ghsa: string;
}

/**
 * Every `name@version` the lockfile installs (lockfile v9 `packages:` keys), as the bulk endpoint
 * takes them: name → versions. Workspace packages are importers, not keys, so they are not sent.
 */
export function lockfilePackages(lockfile: { packages?: Record<string, unknown> }): Record<string, string[]> {
  const byName: Record<string, string[]> = {};
  for (const key of Object.keys(lockfile.packages ?? {})) {
    const at = key.lastIndexOf('@');
    if (at <= 0) continue;
    const [name, version] = [key.slice(0, at), key.slice(at + 1)];
    // Tarball, git and file dependencies have no registry version to ask about.
    if (!/^\d+\.\d+\.\d+/.test(version)) continue;
    byName[name] = [...(byName[name] ?? []), version];
  }
  return byName;
}

/** The GitHub advisory id in an advisory's url (`https://github.com/advisories/GHSA-…`), or its number. */
export const ghsaOf = (advisory: Advisory) =>
  advisory.url.match(/GHSA(-[23456789cfghjmpqrvwx]{4}){3}/)?.[0] ?? `npm-${advisory.id}`;

/** Findings at or above `level` split into those that fail the build and those the allowlist accepts. */
export function judge(
  report: Record<string, Advisory[]>,
  options: { level: Severity; ignore: readonly string[] },
) {
  const threshold = SEVERITIES.indexOf(options.level);
  const findings: Finding[] = Object.entries(report).flatMap(([name, advisories]) =>
    advisories.map((advisory) => ({ ...advisory, package: name, ghsa: ghsaOf(advisory) })),
  );
  const serious = findings.filter((f) => SEVERITIES.indexOf(f.severity as Severity) >= threshold);
  return {
    blocking: serious.filter((f) => !options.ignore.includes(f.ghsa)),
    accepted: serious.filter((f) => options.ignore.includes(f.ghsa)),
    belowLevel: findings.length - serious.length,
  };
}

/**
 * Allowlist entries that docs/security.md does not justify: each ignored GHSA needs a row in its
 * allowlist table, `| GHSA-… | package | reason | review by YYYY-MM-DD |`, whose date has not passed.
 */
export function unjustifiedIgnores(ignore: readonly string[], securityDoc: string, today: Date): string[] {
  return ignore.flatMap((ghsa) => {
    const row = securityDoc.split('\n').find((line) => line.startsWith(`| ${ghsa} |`));
    const reviewBy = row?.match(/\|\s*(\d{4}-\d\d-\d\d)\s*\|\s*$/)?.[1];
    if (!row || !reviewBy) return [`${ghsa}: no row with a review date in docs/security.md's allowlist`];
    if (new Date(`${reviewBy}T23:59:59Z`) < today) return [`${ghsa}: its review date ${reviewBy} has passed`];
    return [];
  });
}
