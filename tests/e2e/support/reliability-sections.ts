import { readFileSync, writeFileSync } from 'node:fs';

/**
 * docs/reliability.md has three writers: `npm run faults` writes the page, and keeps two sections others
 * write between their markers: the fuzz test's per bad-input class (support/fuzz/fuzz-tally.ts) and
 * `npm run fairness`'s per tenant under pressure (fairness/fairness-report.ts).
 */
export interface MarkedSection {
  start: string;
  end: string;
  /** What stands between the markers until its writer has run. */
  placeholder: string;
}

const section = (name: string, placeholder: string): MarkedSection => {
  const start = `<!-- ${name}:start -->`;
  const end = `<!-- ${name}:end -->`;
  return { start, end, placeholder: [start, placeholder, end].join('\n') };
};

export const BAD_INPUT = section(
  'bad-input-classes',
  [
    '_To be filled by the fuzzing effort (one row per bad-input class). `npm run faults` keeps whatever',
    'stands between these markers when it rewrites this page._',
  ].join('\n'),
);

export const FAIRNESS = section(
  'fairness',
  [
    '_No run recorded yet: `npm run fairness` writes its table here ([operations](operations.md#fairness-suite)).',
    '`npm run faults` keeps whatever stands between these markers when it rewrites this page._',
  ].join('\n'),
);

/** The section as it stands in `page`, markers included, or its placeholder when it is not there. */
export function keptSection(page: string, s: MarkedSection): string {
  const start = page.indexOf(s.start);
  const end = page.indexOf(s.end);
  return start >= 0 && end > start ? page.slice(start, end + s.end.length) : s.placeholder;
}

/**
 * Replace what stands between the section's markers in `file` with `body` (markers added); the rest of
 * the page stays. A page without the markers is refused: `npm run faults` writes them.
 */
export function writeSection(file: string, s: MarkedSection, body: string): void {
  const page = readFileSync(file, 'utf8');
  const start = page.indexOf(s.start);
  const end = page.indexOf(s.end);
  if (start < 0 || end < start) throw new Error(`${file} has no ${s.start} … ${s.end} section`);
  writeFileSync(file, `${page.slice(0, start)}${s.start}\n${body.trimEnd()}\n${page.slice(end)}`);
}
