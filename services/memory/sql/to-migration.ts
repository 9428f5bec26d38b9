import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The SQL sources the memory database's functions are built from: one function a file, readable. */
export const SQL_DIR = import.meta.dirname;

/**
 * One source file as a migration takes it. Prisma's pg adapter splits a migration on every semicolon,
 * so a dollar-quoted body becomes an E'' string with its semicolons as \073 (and its quotes doubled);
 * outside a body, only the statement's final semicolon may appear.
 */
export function toMigration(source: string): string {
  const parts = source.split('$$');
  if (parts.length !== 1 && parts.length !== 3) throw new Error('A source holds one $$-quoted body at most');
  const [head = '', body, tail = ''] = parts;
  const outside = body === undefined ? head : head + tail;
  if (outside.replace(/;\s*$/, '').includes(';'))
    throw new Error('A semicolon outside the body would split it');
  if (body === undefined) return source.trimEnd();
  const quoted = body.replaceAll('\\', '\\\\').replaceAll("'", "''").replaceAll(';', '\\073');
  return `${head}E'${quoted}'${tail}`.trimEnd();
}

/** Every source, in name order, as one migration's text. */
export function functionsMigration(): string {
  const files = readdirSync(SQL_DIR)
    .filter((f) => f.endsWith('.sql'))
    .sort();
  return files.map((f) => toMigration(readFileSync(join(SQL_DIR, f), 'utf8'))).join('\n\n');
}

// `node --import tsx services/memory/sql/to-migration.ts` prints the functions' migration text, to be put
// in a new migration whenever a source changes (the migrations test holds the newest to the sources).
if (process.argv[1] === import.meta.filename) process.stdout.write(`${functionsMigration()}\n`);
