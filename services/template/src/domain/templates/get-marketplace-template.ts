import {
  AppError,
  ErrorCode,
  type GetMarketplaceTemplateMessage,
  type MarketplaceTemplate,
} from '@tm/contracts';
import { findMarketplaceTemplate } from '../../data-access/marketplace-repository.js';
import { getPrisma } from '../../data-access/prisma-client.js';
import { marketplaceView } from './template-views.js';

export const marketplaceTemplateNotFound = () =>
  new AppError(ErrorCode.NotFound, 'No such marketplace template');

export async function getMarketplaceTemplate(
  msg: GetMarketplaceTemplateMessage,
  db = getPrisma(),
): Promise<MarketplaceTemplate> {
  const row = await findMarketplaceTemplate(db, msg.id);
  if (!row) throw marketplaceTemplateNotFound();
  return marketplaceView(row);
}
