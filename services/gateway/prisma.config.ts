import { PrismaPg } from '@prisma/adapter-pg';
import { defineConfig } from 'prisma/config';

// Prisma 6 needs the datasource url variable to exist even though the adapter below connects;
// without it the CLI falls back to downloading an engine, which fails offline.
process.env.GATEWAY_DATABASE_URL ??= 'postgresql://postgres@127.0.0.1:5432/tm_gateway';

export default defineConfig({
  experimental: { adapter: true },
  engine: 'js',
  schema: 'prisma/schema.prisma',
  // Fields, not a connection string: the shadow database is built by overriding `database`.
  adapter: async () => {
    const url = new URL(process.env.GATEWAY_DATABASE_URL as string);
    return new PrismaPg({
      host: url.hostname,
      port: Number(url.port || 5432),
      user: decodeURIComponent(url.username),
      password: decodeURIComponent(url.password),
      database: url.pathname.slice(1),
    });
  },
});
