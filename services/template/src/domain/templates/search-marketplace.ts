import type { MarketplacePage, SearchMarketplaceMessage } from '@tm/contracts';
import { searchMarketplace as searchCatalogue } from '../../data-access/marketplace-repository.js';
import { getPrisma } from '../../data-access/prisma-client.js';
import { marketplaceView, pagingOf } from './template-views.js';

/** Marketplace entries in a category and/or holding every word of `q`, by category then name. */
export async function searchMarketplace(
  msg: SearchMarketplaceMessage,
  db = getPrisma(),
): Promise<MarketplacePage> {
  const words = (msg.q ?? '').split(/\s+/).filter(Boolean);
  const { rows, total } = await searchCatalogue(db, { ...msg, words });
  return { data: rows.map(marketplaceView), paging: pagingOf(msg, rows.length, total) };
}
