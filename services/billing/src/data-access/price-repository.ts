import type { Db } from './prisma-client.js';

/** Every published unit price (a few rows per version). */
export const loadPriceItems = (db: Db) => db.priceItem.findMany();

/** One version's unit prices, by operation (its primary key's prefix). */
export const findPriceItems = (db: Db, version: string) =>
  db.priceItem.findMany({ where: { version }, orderBy: { operation: 'asc' } });
