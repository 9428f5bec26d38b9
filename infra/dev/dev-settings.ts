import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface PgSettings {
  host: string;
  port: number;
  user: string;
  password: string;
}

export interface ServiceSpec {
  name: string;
  dir: string;
  /** The variable the service (and its prisma.config.ts) reads its database from. */
  databaseVar: string;
  databaseUrl: string;
}

export interface DevSettings {
  root: string;
  dataDir: string;
  pg: PgSettings;
  nats: { url: string; host: string; port: number };
  gatewayPort: number;
  /** In start order: the gateway last, since it calls the others. */
  services: ServiceSpec[];
}

const SERVICES = [
  { name: 'memory', databaseVar: 'MEMORY_DATABASE_URL', database: 'tm_memory' },
  { name: 'billing', databaseVar: 'BILLING_DATABASE_URL', database: 'tm_billing' },
  { name: 'telemetry', databaseVar: 'TELEMETRY_DATABASE_URL', database: 'tm_telemetry' },
  { name: 'template', databaseVar: 'TEMPLATE_DATABASE_URL', database: 'tm_template' },
  { name: 'webhooks', databaseVar: 'WEBHOOKS_DATABASE_URL', database: 'tm_webhooks' },
  { name: 'gateway', databaseVar: 'GATEWAY_DATABASE_URL', database: 'tm_gateway' },
];

/**
 * Everything the launcher needs, from the same variables the services read. PG* describe the server
 * the launcher checks (and may start); a service's *_DATABASE_URL, when set, wins as a whole.
 */
export function readDevSettings(env: NodeJS.ProcessEnv = process.env): DevSettings {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
  const pg: PgSettings = {
    host: env.PGHOST || '127.0.0.1',
    port: Number(env.PGPORT || 5432),
    user: env.PGUSER || 'postgres',
    password: env.PGPASSWORD ?? '',
  };
  const natsUrl = env.NATS_URL || 'nats://127.0.0.1:4222';
  // The first server of a comma-separated list is the one a local nats-server would stand in for.
  const first = new URL(natsUrl.split(',')[0]?.trim() ?? natsUrl);
  return {
    root,
    // Elsewhere for a launcher that must not meet the developer's own state (the supervision e2e test).
    dataDir: env.DEV_DATA_DIR ? resolve(env.DEV_DATA_DIR) : join(root, '.data'),
    pg,
    nats: { url: natsUrl, host: first.hostname.replace(/^\[|\]$/g, ''), port: Number(first.port || 4222) },
    gatewayPort: Number(env.GATEWAY_PORT || 8080),
    services: SERVICES.map(({ name, databaseVar, database }) => ({
      name,
      dir: join(root, 'services', name),
      databaseVar,
      databaseUrl: env[databaseVar] || databaseUrlFor(pg, database),
    })),
  };
}

function databaseUrlFor({ host, port, user, password }: PgSettings, database: string): string {
  const credentials = encodeURIComponent(user) + (password ? `:${encodeURIComponent(password)}` : '');
  const hostPart = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  return `postgresql://${credentials}@${hostPart}:${port}/${database}`;
}
