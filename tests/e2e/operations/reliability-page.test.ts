import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { writeReliabilityPage } from '../faults/report.js';
import { FULL } from '../faults/suite-settings.js';
import { BAD_INPUT, FAIRNESS, writeSection } from '../support/reliability-sections.js';

/** docs/reliability.md has three writers; each must leave the others' sections as they are. */
const dirs: string[] = [];
const pageFile = (text?: string) => {
  const dir = mkdtempSync(join(tmpdir(), 'tm-reliability-'));
  dirs.push(dir);
  const file = join(dir, 'reliability.md');
  if (text !== undefined) writeFileSync(file, text);
  return file;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const runInfo = {
  startedAt: new Date('2026-11-29T12:00:00.000Z'),
  durationMs: 1_000,
  requestTimeoutMs: 2_000,
  settings: FULL,
  node: '24.0.0',
  cpus: 2,
  loadAverage: [1, 1, 1],
};

describe('docs/reliability.md', () => {
  it('when `npm run faults` writes a new page, then it holds both sections’ placeholders between their markers', () => {
    const file = pageFile();

    writeReliabilityPage(file, [], runInfo);

    const page = readFileSync(file, 'utf8');
    expect(page).toContain(`## Per bad-input class\n\n${BAD_INPUT.placeholder}\n`);
    expect(page).toContain(`## Per tenant under pressure (fairness)\n\n${FAIRNESS.placeholder}\n`);
  });

  it('when `npm run faults` rewrites the page, then what the fuzz test and `npm run fairness` wrote stays as it was', () => {
    const file = pageFile();
    writeReliabilityPage(file, [], runInfo);
    writeSection(file, BAD_INPUT, 'the fuzz table');
    writeSection(file, FAIRNESS, 'the fairness table');

    writeReliabilityPage(file, [], { ...runInfo, startedAt: new Date('2026-11-30T12:00:00.000Z') });

    const page = readFileSync(file, 'utf8');
    expect(page).toContain('Run of 2026-11-30T12:00:00.000Z');
    expect(page).toContain(`${BAD_INPUT.start}\nthe fuzz table\n${BAD_INPUT.end}`);
    expect(page).toContain(`${FAIRNESS.start}\nthe fairness table\n${FAIRNESS.end}`);
  });

  it('when `npm run fairness` writes its section, then only what stands between its markers changes', () => {
    const before = `# Reliability\n\nfault table\n\n${BAD_INPUT.placeholder}\n\n${FAIRNESS.placeholder}\n\nafter\n`;
    const file = pageFile(before);

    writeSection(file, FAIRNESS, 'the fairness table\n');

    expect(readFileSync(file, 'utf8')).toBe(
      before.replace(FAIRNESS.placeholder, `${FAIRNESS.start}\nthe fairness table\n${FAIRNESS.end}`),
    );
  });

  it('when the page has no fairness markers, then writing the section is refused and the page left alone', () => {
    const file = pageFile('# Reliability\n');

    expect(() => writeSection(file, FAIRNESS, 'table')).toThrow(`has no ${FAIRNESS.start}`);
    expect(readFileSync(file, 'utf8')).toBe('# Reliability\n');
  });
});
