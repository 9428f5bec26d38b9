import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SQL_DIR, toMigration } from '../sql/to-migration.js';

const MIGRATIONS = join(import.meta.dirname, '..', 'prisma', 'migrations');

/** Each migration's text, newest first. */
const migrations = readdirSync(MIGRATIONS, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name)
  .sort()
  .reverse()
  .map((name) => ({ name, text: readFileSync(join(MIGRATIONS, name, 'migration.sql'), 'utf8') }));

const sources = readdirSync(SQL_DIR)
  .filter((f) => f.endsWith('.sql'))
  .map((file) => ({ file, text: readFileSync(join(SQL_DIR, file), 'utf8') }));

describe('the ranking SQL, written once in services/memory/sql', () => {
  it.each(sources)(
    'when $file is the source, then the newest migration creating its function holds it exactly',
    ({ text }) => {
      const name = /FUNCTION\s+(\w+)\s*\(/.exec(text)?.[1];
      expect(name).toBeDefined();
      const newest = migrations.find((m) => new RegExp(`FUNCTION\\s+${name}\\s*\\(`).test(m.text));
      expect(newest?.text, `no migration creates ${name}: run sql/to-migration.ts into a new one`).toContain(
        toMigration(text),
      );
    },
  );

  it('when a body holds semicolons and quotes, then the migration text holds none that would split it', () => {
    const built = toMigration(
      "CREATE FUNCTION f() RETURNS int LANGUAGE plpgsql AS $$\nBEGIN\n  RETURN 'a;b'::text;\nEND\n$$;",
    );
    expect(built).toBe(
      "CREATE FUNCTION f() RETURNS int LANGUAGE plpgsql AS E'\nBEGIN\n  RETURN ''a\\073b''::text\\073\nEND\n';",
    );
    expect(() =>
      toMigration('-- a comment; with a semicolon\nCREATE FUNCTION g() RETURNS int RETURN 1;'),
    ).toThrow(/semicolon/);
  });
});
