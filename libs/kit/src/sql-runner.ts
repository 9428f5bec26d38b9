import type pg from 'pg';

/**
 * Run one parameterized statement ($1, $2, …) and get its rows. The hot paths (a write, a recall,
 * authentication) use it on the pool directly: Prisma's runtime costs several times the statement.
 */
export type SqlRunner = <T>(sql: string, params: unknown[]) => Promise<T[]>;

export function poolRunner(pool: pg.Pool): SqlRunner {
  return async <T>(sql: string, params: unknown[]) => (await pool.query(sql, params)).rows as T[];
}

/** The same statement inside a Prisma interactive transaction. */
export function prismaRunner(tx: {
  $queryRawUnsafe<T>(sql: string, ...params: unknown[]): Promise<T>;
}): SqlRunner {
  return <T>(sql: string, params: unknown[]) => tx.$queryRawUnsafe<T[]>(sql, ...params);
}
