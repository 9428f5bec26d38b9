import type { CallOptions, Transport } from '../http.js';
import type { BodyOf, QueryOf, ResponseOf } from '../types.js';

export interface UpdateTemplateOptions extends CallOptions {
  /**
   * The revision the update is based on (a template's `revision`, or the ETag `"2"`): sent as
   * If-Match, so the update applies only if nobody changed the template since (else 412).
   */
  ifMatch?: number | string;
}

/** Private templates (`/v1/templates`, API key). */
export class TemplatesFamily {
  constructor(private readonly http: Transport) {}

  async list(query?: QueryOf<'listTemplates'>, options?: CallOptions): Promise<ResponseOf<'listTemplates'>> {
    const { data } = await this.http.request<ResponseOf<'listTemplates'>>(
      { method: 'GET', path: '/v1/templates', credential: 'apiKey', safe: true, query },
      options,
    );
    return data;
  }

  /** By name or id; `revision` is what `update`'s `ifMatch` takes. */
  async get(nameOrId: string, options?: CallOptions): Promise<ResponseOf<'getTemplate'>> {
    const { data } = await this.http.request<ResponseOf<'getTemplate'>>(
      {
        method: 'GET',
        path: `/v1/templates/${encodeURIComponent(nameOrId)}`,
        credential: 'apiKey',
        safe: true,
      },
      options,
    );
    return data;
  }

  async create(body: BodyOf<'createTemplate'>, options?: CallOptions): Promise<ResponseOf<'createTemplate'>> {
    const { data } = await this.http.request<ResponseOf<'createTemplate'>>(
      // A repeat would be 409 already_exists, so a lost answer is not retried blindly.
      { method: 'POST', path: '/v1/templates', credential: 'apiKey', safe: false, json: body },
      options,
    );
    return data;
  }

  /** Replace the definition as the next revision; pass `ifMatch` to guard against a concurrent change. */
  async update(
    nameOrId: string,
    body: BodyOf<'updateTemplate'>,
    options?: UpdateTemplateOptions,
  ): Promise<ResponseOf<'updateTemplate'>> {
    const { ifMatch, ...callOptions } = options ?? {};
    const etag =
      ifMatch === undefined ? undefined : /^".*"$/.test(String(ifMatch)) ? String(ifMatch) : `"${ifMatch}"`;
    const { data } = await this.http.request<ResponseOf<'updateTemplate'>>(
      {
        method: 'PUT',
        path: `/v1/templates/${encodeURIComponent(nameOrId)}`,
        credential: 'apiKey',
        // With If-Match a repeat cannot apply twice (it gets 412); without it, it would add a revision.
        safe: etag !== undefined,
        json: body,
        headers: { 'if-match': etag },
      },
      callOptions,
    );
    return data;
  }
}
