import type pg from 'pg';

/**
 * A statement PostgreSQL parses and plans once per pooled connection, then only binds and runs: for a
 * short hot-path statement, parsing and planning cost more than executing (the key lookup ran about
 * four times as fast prepared; recall's ranking, whose plan is pinned by its shape, twice). For a
 * statement whose best plan depends on the values, pass plain text instead: it is planned per call.
 */
export interface PreparedSql {
  name: string;
  text: string;
}

export const prepared = (name: string, text: string): PreparedSql => ({ name, text });

/**
 * Run one parameterized statement ($1, $2, …) and get its rows. The hot paths (a write, a recall,
 * authentication) use it on the pool directly: Prisma's runtime costs several times the statement.
 */
export type SqlRunner = <T>(sql: string | PreparedSql, params: unknown[]) => Promise<T[]>;

export function poolRunner(pool: pg.Pool): SqlRunner {
  return async <T>(sql: string | PreparedSql, params: unknown[]) =>
    (typeof sql === 'string' ? await pool.query(sql, params) : await pool.query({ ...sql, values: params }))
      .rows as T[];
}

/** The same statement inside a Prisma interactive transaction (unprepared: Prisma owns that connection). */
export function prismaRunner(tx: {
  $queryRawUnsafe<T>(sql: string, ...params: unknown[]): Promise<T>;
}): SqlRunner {
  return <T>(sql: string | PreparedSql, params: unknown[]) =>
    tx.$queryRawUnsafe<T[]>(typeof sql === 'string' ? sql : sql.text, ...params);
}
