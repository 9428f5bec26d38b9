import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The README is the first thing a newcomer reads: what it promises must hold in a fresh clone.
const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const readme = readFileSync(join(repo, 'README.md'), 'utf8');
const docs = readdirSync(join(repo, 'docs'))
  .filter((name) => name.endsWith('.md'))
  .map((name) => join('docs', name));

/** The text of one `## ` section of the README, heading excluded. */
function section(heading: string): string {
  const start = readme.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`README.md has no "## ${heading}" section`);
  const next = readme.indexOf('\n## ', start + 1);
  return readme.slice(start, next < 0 ? undefined : next);
}

/** Relative link targets in a Markdown file (no scheme, no bare anchors), without their anchors. */
function relativeLinks(markdown: string): string[] {
  return [...markdown.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((m) => m[1] ?? '')
    .filter((target) => !/^[a-z]+:/i.test(target) && !target.startsWith('#'))
    .map((target) => target.split('#')[0] ?? '');
}

describe('the README, read by someone who has never seen the project', () => {
  it('when it opens, then it says what the service is not before any request shape', () => {
    const notes = readme.indexOf('## What it is, and what it is not');
    expect(notes).toBeGreaterThan(0);
    expect(readme.indexOf('contract_version')).toBeGreaterThan(notes);
    expect(section('What it is, and what it is not')).toMatch(/Mem0/);
  });

  it('when the quick start is followed, then it is exactly two commands: one starts the stack, one runs the tests', () => {
    const block = /```sh\n([\s\S]*?)```/.exec(section('Quick start'))?.[1] ?? '';
    const commands = block
      .split('\n')
      .map((line) => line.replace(/#.*$/, '').trim())
      .filter(Boolean);

    expect(commands).toEqual(['npm start', 'npm test']);
  });

  it('when its text is read, then no internal ticket tag appears in it', () => {
    expect(readme).not.toMatch(/\[P\d+\]/);
  });

  it.each(['README.md', ...docs])(
    'when %s links to a file of the repository, then the file is in a clone',
    (file) => {
      const markdown = readFileSync(join(repo, file), 'utf8');
      const missing = relativeLinks(markdown).filter(
        (target) => !existsSync(resolve(repo, dirname(file), target)),
      );

      expect(missing).toEqual([]);
    },
  );
});
