import { Prisma } from './generated/client.js';
import type { Db } from './prisma-client.js';

export interface MarketplaceFilter {
  category: string | null;
  /** Each word must appear (case-insensitively) in the name, description or a keyword. */
  words: string[];
  limit: number;
  offset: number;
}

const likePattern = (word: string) => `%${word.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

function whereOf(filter: MarketplaceFilter): Prisma.Sql {
  const conditions: Prisma.Sql[] = [Prisma.sql`TRUE`];
  if (filter.category) conditions.push(Prisma.sql`category = ${filter.category}`);
  for (const word of filter.words) {
    const pattern = likePattern(word);
    conditions.push(
      Prisma.sql`(name ILIKE ${pattern} OR description ILIKE ${pattern}
                  OR EXISTS (SELECT 1 FROM unnest(keywords) AS k WHERE k ILIKE ${pattern}))`,
    );
  }
  return Prisma.join(conditions, ' AND ');
}

type Row = {
  id: string;
  name: string;
  description: string;
  category: string;
  keywords: string[];
  version: string;
  fields: unknown;
  format: string;
  created_at: Date;
  updated_at: Date;
};
export type MarketplaceRow = Row;

/** The catalogue is small (tens of entries): a filtered scan is all a search needs. */
export async function searchMarketplace(db: Db, filter: MarketplaceFilter) {
  const where = whereOf(filter);
  const [rows, counted] = await Promise.all([
    db.$queryRaw<
      Row[]
    >`SELECT id, name, description, category, keywords, version, fields, format, created_at, updated_at
                          FROM marketplace_template WHERE ${where}
                         ORDER BY category, name, id LIMIT ${filter.limit} OFFSET ${filter.offset}`,
    db.$queryRaw<
      Array<{ total: number }>
    >`SELECT count(*)::int AS total FROM marketplace_template WHERE ${where}`,
  ]);
  return { rows, total: counted[0]?.total ?? 0 };
}

export async function findMarketplaceTemplate(db: Db, id: string): Promise<Row | null> {
  const row = await db.marketplaceTemplate.findUnique({ where: { id } });
  return row
    ? {
        id: row.id,
        name: row.name,
        description: row.description,
        category: row.category,
        keywords: row.keywords,
        version: row.version,
        fields: row.fields,
        format: row.format,
        created_at: row.createdAt,
        updated_at: row.updatedAt,
      }
    : null;
}
