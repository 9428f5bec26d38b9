import { PrismaPg } from '@prisma/adapter-pg';
import { pgFieldsFromUrl } from './database.js';

/**
 * What every service's prisma.config.ts says: the Prisma CLI runs on the JS engine through the pg
 * adapter, against the database named by `variable` (defaulted, because Prisma 6 needs the datasource
 * url variable to exist; without it the CLI falls back to downloading an engine, which fails offline).
 * The adapter gets fields, not a connection string: the shadow database is built by overriding `database`.
 */
export function prismaCliConfig(variable: string, database: string) {
  process.env[variable] ??= `postgresql://postgres@127.0.0.1:5432/${database}`;
  return {
    experimental: { adapter: true },
    engine: 'js',
    schema: 'prisma/schema.prisma',
    adapter: async () => new PrismaPg(pgFieldsFromUrl(process.env[variable] as string)),
  } as const;
}
