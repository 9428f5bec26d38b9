import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The README is the first thing a newcomer reads: what it promises must hold in a fresh clone.
const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const readme = readFileSync(join(repo, 'README.md'), 'utf8');
const docs = readdirSync(join(repo, 'docs'), { recursive: true, encoding: 'utf8' })
  .filter((name) => name.endsWith('.md'))
  .map((name) => join('docs', name));

/** The text of one `## ` section of the README, heading excluded. */
function section(heading: string): string {
  const start = readme.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`README.md has no "## ${heading}" section`);
  const next = readme.indexOf('\n## ', start + 1);
  return readme.slice(start, next < 0 ? undefined : next);
}

/** Relative link targets in a Markdown file (no scheme), with their anchors if any. */
function relativeLinks(markdown: string): Array<{ path: string; anchor?: string }> {
  return [...markdown.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((m) => m[1] ?? '')
    .filter((target) => !/^[a-z]+:/i.test(target))
    .map((target) => {
      const [path = '', anchor] = target.split('#');
      return { path, anchor };
    });
}

/** The anchors GitHub gives a Markdown file's headings: lower case, punctuation dropped, spaces as hyphens. */
function headingAnchors(markdown: string): Set<string> {
  const anchors = [...markdown.matchAll(/^#{1,6} (.+)$/gm)].map((m) =>
    (m[1] ?? '')
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/ /g, '-'),
  );
  return new Set(anchors);
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
      const missing = relativeLinks(markdown)
        .filter((link) => link.path !== '')
        .map((link) => link.path)
        .filter((path) => !existsSync(resolve(repo, dirname(file), path)));

      expect(missing).toEqual([]);
    },
  );

  it.each(['README.md', ...docs])(
    'when %s links to a heading of a Markdown file, then that heading is there',
    (file) => {
      const markdown = readFileSync(join(repo, file), 'utf8');
      const broken = relativeLinks(markdown)
        .filter((link) => link.anchor !== undefined && (link.path === '' || link.path.endsWith('.md')))
        .filter((link) => {
          const target = link.path === '' ? join(repo, file) : resolve(repo, dirname(file), link.path);
          return !existsSync(target) || !headingAnchors(readFileSync(target, 'utf8')).has(link.anchor ?? '');
        })
        .map((link) => `${link.path}#${link.anchor}`);

      expect(broken).toEqual([]);
    },
  );
});

describe('the decisions, found by topic', () => {
  const index = readFileSync(join(repo, 'docs', 'decisions', 'README.md'), 'utf8');
  const topics = docs.filter(
    (file) => file.includes(join('docs', 'decisions', '')) && !file.endsWith('README.md'),
  );

  it.each(topics)('when %s has a section, then the index links to it', (file) => {
    const page = file.split('/').at(-1) ?? '';
    const sections = (readFileSync(join(repo, file), 'utf8').match(/^## .+$/gm) ?? []).join('\n');
    const linked = relativeLinks(index)
      .filter((link) => link.path === page)
      .map((link) => link.anchor);

    expect(sections).not.toBe('');
    expect(linked).toEqual(expect.arrayContaining([...headingAnchors(sections)]));
  });
});

/** Lines of tracked text files matching a pattern (git grep: node_modules and build output stay out). */
function trackedLinesMatching(pattern: string): string {
  try {
    return execFileSync('git', ['grep', '-n', '-I', '-E', pattern, '--', '.', ':!*.svg'], {
      cwd: repo,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } catch (error) {
    // git grep exits 1 when nothing matches.
    if ((error as { status?: number }).status === 1) return '';
    throw error;
  }
}

describe('the code and its documents, read without the issue tracker', () => {
  it('when any tracked text file is read, then no ticket tag (a P and an issue number, bracketed) is in it', () => {
    expect(trackedLinesMatching(String.raw`\[P[0-9]+\]|\(P[0-9]{1,2}\)`)).toBe('');
  });
});
