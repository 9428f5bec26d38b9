import type { CallOptions, Transport } from '../http.js';
import type { QueryOf, ResponseOf } from '../types.js';

/** Ready-made templates (`/v1/marketplace/templates`, API key). */
export class MarketplaceFamily {
  constructor(private readonly http: Transport) {}

  /** Search by `category` and `keyword`. */
  async search(
    query?: QueryOf<'searchMarketplace'>,
    options?: CallOptions,
  ): Promise<ResponseOf<'searchMarketplace'>> {
    const { data } = await this.http.request<ResponseOf<'searchMarketplace'>>(
      { method: 'GET', path: '/v1/marketplace/templates', credential: 'apiKey', safe: true, query },
      options,
    );
    return data;
  }

  async get(
    marketplaceTemplateId: string,
    options?: CallOptions,
  ): Promise<ResponseOf<'getMarketplaceTemplate'>> {
    const { data } = await this.http.request<ResponseOf<'getMarketplaceTemplate'>>(
      {
        method: 'GET',
        path: `/v1/marketplace/templates/${encodeURIComponent(marketplaceTemplateId)}`,
        credential: 'apiKey',
        safe: true,
      },
      options,
    );
    return data;
  }
}
