import { isIP } from 'node:net';
import { LIMITS } from '@tm/contracts';
import { env, jetstreamEnv, loadConfig } from '@tm/kit';
import { z } from 'zod';
import { LARGEST_BATCH_TEXT_COST } from './domain/data-plane/write-cost.js';
import { DEFAULT_HASHING_SLOTS } from './domain/identity/hashing-slots.js';
import {
  DEFAULT_ALLOWED_ORIGINS,
  type OriginPattern,
  parseOriginPattern,
} from './domain/mcp/allowed-origins.js';

/** proxy-addr's names for address ranges, as Express's `trust proxy` takes them. */
const PROXY_RANGES = ['loopback', 'linklocal', 'uniquelocal'];

/** An address, a CIDR subnet (10.0.0.0/8, fd00::/8) or one of the named ranges. */
function isProxyEntry(entry: string): boolean {
  if (PROXY_RANGES.includes(entry)) return true;
  const [address = '', prefix, ...rest] = entry.split('/');
  const version = isIP(address);
  if (version === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (version === 4 ? 32 : 128);
}

/**
 * GATEWAY_TRUST_PROXY: the proxies in front of the gateway whose X-Forwarded-For names the client.
 * A list only, never `true` or a hop count: those would believe a header any client can send.
 */
const trustedProxies = z
  .string()
  .default('')
  .transform((value) =>
    value
      .split(',')
      .map((entry) => entry.trim())
      .filter((entry) => entry !== ''),
  )
  .refine(
    (entries) => entries.every(isProxyEntry),
    'must be a comma-separated list of proxy addresses, CIDR subnets (e.g. 10.0.0.0/8) or loopback, linklocal, uniquelocal',
  );

/**
 * MCP_ALLOWED_ORIGINS: the browser origins whose pages may call /mcp, as the MCP transport asks servers
 * to check `Origin` (DNS rebinding). The gateway's own origin is always allowed; a request without
 * `Origin` (not a browser: desktop and agent clients) is not refused. Set, it replaces the default.
 */
const allowedOrigins = z
  .string()
  .default(DEFAULT_ALLOWED_ORIGINS)
  .transform((value, ctx) => {
    const patterns: OriginPattern[] = [];
    for (const entry of value.split(',').map((e) => e.trim())) {
      if (entry === '') continue;
      const pattern = parseOriginPattern(entry);
      if (pattern) patterns.push(pattern);
      else
        ctx.addIssue({
          code: 'custom',
          message: `"${entry}" is not an origin: give scheme://host[:port] or scheme://host:* (any port), no path or trailing slash`,
        });
    }
    return patterns;
  });

/**
 * GATEWAY_PUBLIC_URL: the origin clients reach the gateway at (`https://memory.example.com`). /mcp
 * takes requests for this host or a loopback name only (DNS rebinding), and names it in its 401
 * challenge, its metadata and the `status` tool. A trailing slash is dropped; a path is refused.
 */
const publicUrl = z
  .string()
  .transform((value) => value.trim().replace(/\/$/, ''))
  .refine(
    (value) =>
      URL.canParse(value) && /^https?:$/.test(new URL(value).protocol) && new URL(value).origin === value,
    'GATEWAY_PUBLIC_URL must be an origin: http(s)://host[:port], no path, query or credentials',
  )
  .optional();

export const GatewayConfigSchema = z
  .object({
    GATEWAY_PORT: env.port(8080),
    GATEWAY_HOST: env.text('0.0.0.0'),
    GATEWAY_DATABASE_URL: env.databaseUrl('tm_gateway'),
    GATEWAY_DB_POOL_SIZE: env.positiveInt(10),
    NATS_URL: env.natsUrl(),
    /** This service's NATS password (user `gateway`) where the server gives each service its own subjects. */
    GATEWAY_NATS_PASSWORD: env.natsPassword(),
    LOG_LEVEL: env.logLevel(),
    /** Prometheus metrics (GET /metrics) on their own listener; docs/operations.md. */
    GATEWAY_METRICS_PORT: env.metricsPort(9464),
    METRICS_HOST: env.metricsHost(),
    /** Copies, age and size limits of the JetStream streams this service creates (docs/operations.md). */
    ...jetstreamEnv,
    /** Deadline for one call to a downstream service; past it the caller gets a retryable 504. */
    GATEWAY_REQUEST_TIMEOUT_MS: env.positiveInt(5_000),
    /**
     * On SIGTERM, how long requests already taken may take to finish; those still held then (a
     * downstream that never answers) get a retryable 503 and the process exits.
     */
    DRAIN_TIMEOUT_MS: env.drainTimeoutMs(),
    /** How long an open breaker refuses calls before trying the service again. */
    BREAKER_RESET_MS: env.positiveInt(5_000),
    /** Verified API keys kept per instance; changes reach every instance by broadcast, not by expiry. */
    KEY_CACHE_SIZE: env.positiveInt(10_000),
    /** Upper bound on how long a change made straight in the database (not broadcast) goes unseen. */
    KEY_CACHE_TTL_MS: env.positiveInt(60_000),
    DEPLOYMENT_VERSION: env.text('dev'),
    DEPLOYMENT_ENVIRONMENT: env.text('development'),
    /**
     * Signs session tokens and encrypts storage-connection secrets (sub-keys derived with HKDF). Every
     * instance of a deployment needs the same value. Required in production; elsewhere a missing one
     * is replaced by a random key per process (sessions then end with the process).
     */
    GATEWAY_SECRET_KEY: z
      .string()
      .min(32, 'GATEWAY_SECRET_KEY must be at least 32 characters (e.g. openssl rand -base64 48)')
      .optional(),
    /** How long a session token stays valid after login. */
    SESSION_TTL_MINUTES: env.positiveInt(720),
    /** Shared rate limits (every instance counts in PostgreSQL): requests per window, per key and per tenant. */
    RATE_LIMIT_WINDOW_SECONDS: env.positiveInt(1),
    RATE_LIMIT_PER_KEY: env.positiveInt(2_000),
    RATE_LIMIT_PER_TENANT: env.positiveInt(5_000),
    /**
     * A tenant's text budget: characters of long text (past each item's first 1,024) its writes may
     * carry per window, shared by every instance. Default one largest batch (100 items of 32,768
     * characters) per 10 s; the numbers and why: docs/decisions/fairness.md, "Admission by cost".
     */
    RATE_LIMIT_TEXT_CHARS_PER_TENANT: env.positiveInt(LIMITS.writeBatchMaxItems * LIMITS.textMaxChars),
    RATE_LIMIT_TEXT_WINDOW_SECONDS: env.positiveInt(10),
    /** Request records held in memory while NATS is unreachable; beyond it the oldest are dropped (counted). */
    REQUEST_RECORD_BUFFER: env.positiveInt(10_000),
    /**
     * Whether operators may run the smoke test (POST /api/v1/infrastructure/smoke-test). Unset: enabled
     * outside production, disabled in it.
     */
    SMOKE_TEST_POLICY: z.enum(['enabled', 'disabled']).optional(),
    /**
     * Failed password checks allowed per account in 15 minutes (logins per email, current-password
     * checks per user) before its next ones are refused (429).
     */
    LOGIN_ATTEMPTS_PER_15_MINUTES: env.positiveInt(10),
    /** The same per client address, logins and password changes together (docs/security.md). */
    LOGIN_ATTEMPTS_PER_ADDRESS_PER_15_MINUTES: env.positiveInt(100),
    /**
     * How long an instance repeats a refusal of a failed-login limit (an account's, an address's) or of
     * a tenant's text budget without asking the shared counter again; 0: it always asks. It bounds how
     * long an instance may refuse after a success on another instance cleared an account
     * (docs/decisions/fairness.md).
     */
    RATE_LIMIT_REFUSAL_MEMORY_MS: z.coerce.number().int().min(0).default(1_000),
    /**
     * How long a refusal repeated from that memory waits before it is answered (never past its
     * Retry-After); 0: at once. Only a caller that came back before its Retry-After meets it, and a
     * closed loop of refused requests then sends one per connection per pause (docs/decisions/fairness.md).
     */
    RATE_LIMIT_REFUSAL_PAUSE_MS: z.coerce.number().int().min(0).max(5_000).default(500),
    /**
     * Proxies whose X-Forwarded-For gives the client's address (comma-separated addresses, CIDR
     * subnets, or loopback/linklocal/uniquelocal). Unset: none, the connection's peer is the client.
     */
    GATEWAY_TRUST_PROXY: trustedProxies,
    /**
     * Password hashes (scrypt, on libuv's thread pool of UV_THREADPOOL_SIZE) run at once, and how many
     * may wait, all client addresses together; fewer at once than the pool has threads (checked below).
     */
    PASSWORD_HASH_CONCURRENCY: env.positiveInt(DEFAULT_HASHING_SLOTS.concurrency),
    PASSWORD_HASH_QUEUE: z.coerce.number().int().min(0).default(DEFAULT_HASHING_SLOTS.maxWaiting),
    /** The longest a hash waits for a slot before its login is refused with a retryable 503. */
    PASSWORD_HASH_MAX_WAIT_MS: env.positiveInt(DEFAULT_HASHING_SLOTS.maxWaitMs),
    /** Hashes one client address may have running or waiting at once; one more is a 429. */
    PASSWORD_HASH_PER_ADDRESS: env.positiveInt(DEFAULT_HASHING_SLOTS.perSource),
    /** libuv's thread pool (Node's own variable, read here only to check the hashing bound against it). */
    UV_THREADPOOL_SIZE: z.coerce.number().int().min(1).max(1024).default(4),
    /** Largest document import upload (the file part), refused with 413 as it streams past it. */
    IMPORT_MAX_BYTES: env.positiveInt(20 * 1024 * 1024),
    /** An upload that sends nothing for this long is refused with 408 upload_timeout. */
    IMPORT_UPLOAD_TIMEOUT_MS: env.positiveInt(30_000),
    /** Deadline for the template service to read an uploaded file and answer its estimate. */
    IMPORT_PARSE_TIMEOUT_MS: env.positiveInt(60_000),
    /** The web console's build, served at /console; unset, the @text-memory/console package's dist/. */
    CONSOLE_DIR: z.string().min(1).optional(),
    /**
     * Slow and idle clients (docs/operations.md): the time a client has to send a request's
     * headers, and the whole request (an import upload of IMPORT_MAX_BYTES included); past either it
     * gets 408 and the connection is closed.
     */
    GATEWAY_HTTP_HEADERS_TIMEOUT_MS: env.positiveInt(10_000),
    GATEWAY_HTTP_REQUEST_TIMEOUT_MS: env.positiveInt(300_000),
    /** How long an idle kept-alive connection stays open: above a load balancer's usual 60 s idle timeout. */
    GATEWAY_HTTP_KEEP_ALIVE_TIMEOUT_MS: env.positiveInt(65_000),
    /** Connections held at once; one more is closed as it is accepted. Keep it under the open-file limit. */
    GATEWAY_MAX_CONNECTIONS: env.positiveInt(1_000),
    /**
     * Connections one peer address may hold at once; one more is closed as it is accepted. Counted on
     * the socket's peer: trusted proxies (GATEWAY_TRUST_PROXY) are not capped, they cap their clients.
     * Not refused above GATEWAY_MAX_CONNECTIONS (a deployment that lowered that one would fail to
     * start on upgrade): there it simply never binds.
     */
    GATEWAY_MAX_CONNECTIONS_PER_ADDRESS: env.positiveInt(64),
    /**
     * A request body that sends nothing for this long is 408 request_timeout, its connection closed.
     * Above GATEWAY_HTTP_REQUEST_TIMEOUT_MS it never binds (not refused, for the reason above).
     */
    GATEWAY_BODY_IDLE_TIMEOUT_MS: env.positiveInt(10_000),
    /**
     * The slowest a body may arrive on average: it has one idle period plus its size at this rate
     * (16 KiB/s: a 256 KiB body in 26 s), within GATEWAY_HTTP_REQUEST_TIMEOUT_MS.
     */
    GATEWAY_BODY_MIN_BYTES_PER_SECOND: env.positiveInt(16 * 1024),
    /**
     * Browser origins allowed to call the remote MCP endpoint (/mcp), besides the gateway's own
     * (comma-separated; `http://localhost:*` allows any port). Default: the loopback names, any port.
     */
    MCP_ALLOWED_ORIGINS: allowedOrigins,
    /**
     * The address clients use (an origin). Unset: /mcp answers requests for localhost, 127.0.0.1 and
     * [::1] only, and names the address the request came to.
     */
    GATEWAY_PUBLIC_URL: publicUrl,
  })
  .refine((c) => c.GATEWAY_HTTP_HEADERS_TIMEOUT_MS <= c.GATEWAY_HTTP_REQUEST_TIMEOUT_MS, {
    path: ['GATEWAY_HTTP_HEADERS_TIMEOUT_MS'],
    message: 'GATEWAY_HTTP_HEADERS_TIMEOUT_MS must not exceed GATEWAY_HTTP_REQUEST_TIMEOUT_MS',
  })
  .refine((c) => c.RATE_LIMIT_TEXT_CHARS_PER_TENANT >= LARGEST_BATCH_TEXT_COST, {
    path: ['RATE_LIMIT_TEXT_CHARS_PER_TENANT'],
    message: `RATE_LIMIT_TEXT_CHARS_PER_TENANT must be at least ${LARGEST_BATCH_TEXT_COST}, what the largest allowed batch costs; below it that batch could never be written`,
  })
  // Hashes on every thread of the pool would stall file reads and DNS behind them (hashing-slots.ts).
  .refine((c) => c.PASSWORD_HASH_CONCURRENCY < c.UV_THREADPOOL_SIZE, {
    path: ['PASSWORD_HASH_CONCURRENCY'],
    message:
      'PASSWORD_HASH_CONCURRENCY must be below UV_THREADPOOL_SIZE (default 4), to leave the pool a free thread',
  })
  .refine((c) => c.DEPLOYMENT_ENVIRONMENT !== 'production' || c.GATEWAY_SECRET_KEY !== undefined, {
    path: ['GATEWAY_SECRET_KEY'],
    message: 'GATEWAY_SECRET_KEY is required when DEPLOYMENT_ENVIRONMENT is production',
  });
export type GatewayConfig = z.output<typeof GatewayConfigSchema>;

export const loadGatewayConfig = (source: NodeJS.ProcessEnv = process.env) =>
  loadConfig(GatewayConfigSchema, source);
