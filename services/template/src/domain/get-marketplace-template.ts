import {
  AppError,
  ErrorCode,
  type GetMarketplaceTemplateMessage,
  type MarketplaceTemplate,
} from '@tm/contracts';
import { findMarketplaceTemplate } from '../data-access/marketplace-repository.js';
import { marketplaceView } from './template-views.js';

export const marketplaceTemplateNotFound = () =>
  new AppError(ErrorCode.NotFound, 'No such marketplace template');

export async function getMarketplaceTemplate(
  msg: GetMarketplaceTemplateMessage,
): Promise<MarketplaceTemplate> {
  const row = await findMarketplaceTemplate(msg.id);
  if (!row) throw marketplaceTemplateNotFound();
  return marketplaceView(row);
}
