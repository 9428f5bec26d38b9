import { PrismaPg } from '@prisma/adapter-pg';
import { AppError, ErrorCode } from '@tm/contracts';
import pg from 'pg';

/** Connection fields from a postgresql:// URL (fields, because the adapter overrides `database` for shadows). */
export function pgFieldsFromUrl(url: string) {
  const u = new URL(url);
  return {
    host: u.hostname,
    port: Number(u.port || 5432),
    user: decodeURIComponent(u.username || 'postgres'),
    password: decodeURIComponent(u.password),
    database: decodeURIComponent(u.pathname.slice(1)),
  };
}

/**
 * The one connection pool of a service. Prisma runs on it through the driver adapter (JS engine, no
 * native download); the few hot-path statements run on it directly (see sql-runner.ts).
 */
export interface PgPoolOptions {
  poolSize?: number;
  statementTimeoutMs?: number;
  /** Session settings every connection starts with, e.g. { work_mem: '32MB' }. */
  settings?: Record<string, string>;
}

export function createPgPool(url: string, options: PgPoolOptions = {}) {
  const settings = Object.entries(options.settings ?? {});
  return new pg.Pool({
    ...pgFieldsFromUrl(url),
    ...(settings.length ? { options: settings.map(([k, v]) => `-c ${k}=${v}`).join(' ') } : {}),
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: 3_000,
    statement_timeout: options.statementTimeoutMs ?? 10_000,
    // Bounded wait on a row another transaction holds (e.g. a concurrent write with the same
    // idempotency key); past it the caller gets a retryable answer instead of a stuck request.
    lock_timeout: 3_000,
  });
}

export function createPgAdapter(pool: pg.Pool) {
  return new PrismaPg(pool);
}

const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  '57P01',
  '57P03',
  '53300',
  // A write on a node that is not primary (yet, or any more): during a failover, a connection can reach
  // the standby being promoted, or stay on a primary being demoted. Asking again reaches the new primary.
  '25006',
]);

const PRISMA_UNAVAILABLE_CODES = new Set(['P1001', 'P1017', 'P2024', 'P2037']);

/** True when an error means "the database is not reachable right now" rather than "this query is wrong". */
export function isStorageUnavailable(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 6; depth++) {
    const candidate = e as { code?: unknown; message?: unknown; cause?: unknown; kind?: unknown };
    if (typeof candidate.code === 'string' && UNAVAILABLE_CODES.has(candidate.code)) return true;
    // P2037: the driver adapter's TooManyConnections (SQLSTATE 53300 under Prisma's own code), which a
    // loaded shared server answers; it was a 500 from the usage route once.
    if (typeof candidate.code === 'string' && PRISMA_UNAVAILABLE_CODES.has(candidate.code)) return true;
    // 55000 is a broad code; only its message says "this database takes no connections now"
    // (ALLOW_CONNECTIONS false, as an operator or a failover sets it; a write once answered 500).
    // Prisma's raw queries carry a 25006 only in their message (P2010, "Code: `25006`").
    if (
      typeof candidate.message === 'string' &&
      /connect(ion)? (refused|terminated|timeout)|Connection terminated|timeout exceeded when trying to connect|Can't reach database server|is not currently accepting connections|in a read-only transaction/i.test(
        candidate.message,
      )
    ) {
      return true;
    }
    e = candidate.cause;
  }
  return false;
}

/** SQLSTATEs of a transaction PostgreSQL rolled back to let another go on: deadlock, serialization failure. */
const CONFLICT_CODES = new Set(['40P01', '40001', 'P2034']);

/**
 * True when PostgreSQL aborted the transaction to break a deadlock or a serialization conflict with a
 * concurrent one (Prisma reports it as P2034, or carries the SQLSTATE in a cause or `meta.code`):
 * nothing of it was committed, and running it again is safe.
 */
export function isTransactionConflict(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 6; depth++) {
    const candidate = e as { code?: unknown; message?: unknown; cause?: unknown; meta?: { code?: unknown } };
    if (typeof candidate.code === 'string' && CONFLICT_CODES.has(candidate.code)) return true;
    if (typeof candidate.meta?.code === 'string' && CONFLICT_CODES.has(candidate.meta.code)) return true;
    if (
      typeof candidate.message === 'string' &&
      /deadlock detected|could not serialize access/i.test(candidate.message)
    )
      return true;
    e = candidate.cause;
  }
  return false;
}

/**
 * Run a transaction again when PostgreSQL rolled it back for a concurrent one, at most `attempts`
 * times in all; the last conflict is thrown (and answered as a retryable 503 by storageOutage).
 */
export async function retryOnConflict<T>(run: () => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (err) {
      if (attempt >= attempts || !isTransactionConflict(err)) throw err;
    }
  }
}

/**
 * A service endpoint's error mapper: its database being unreachable is the caller's cue to retry (503),
 * not an internal error; so is a transaction PostgreSQL rolled back for a concurrent one (the request
 * changed nothing, and its retry will not meet the same conflict). `what` names the storage in the
 * message, e.g. "Memory storage".
 */
export const storageOutage =
  (what: string) =>
  (err: unknown): AppError | undefined => {
    if (isStorageUnavailable(err))
      return new AppError(ErrorCode.StorageUnavailable, `${what} is unavailable; retry shortly`, {
        retryAfter: 2,
        cause: err,
      });
    if (isTransactionConflict(err))
      return new AppError(
        ErrorCode.ServiceUnavailable,
        'A concurrent request changed the same records; retry shortly',
        { retryAfter: 1, cause: err },
      );
    return undefined;
  };
