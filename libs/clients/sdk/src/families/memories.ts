import type { CallOptions, Transport } from '../http.js';
import type { BodyOf, ForgetReceipt, ResponseOf } from '../types.js';
import { newEventId } from './memory.js';

export interface CreateMemoryOptions extends CallOptions {
  /** Reused on every retry; `evt_<uuid>` when not given. */
  idempotencyKey?: string;
}

/**
 * Memories made from templates (`POST /v1/memories`), and any memory by id: read (`GET
 * /v1/memories/{id}`) or forget (`DELETE /v1/memories/{id}`).
 */
export class MemoriesFamily {
  constructor(private readonly http: Transport) {}

  /** Validate `data` against the template, render it and retain it (201; 200 on a replay or not_retained). */
  async create(
    body: BodyOf<'createTemplateMemory'>,
    options?: CreateMemoryOptions,
  ): Promise<ResponseOf<'createTemplateMemory', 201>> {
    const { idempotencyKey = newEventId(), ...callOptions } = options ?? {};
    const { data } = await this.http.request<ResponseOf<'createTemplateMemory', 201>>(
      {
        method: 'POST',
        path: '/v1/memories',
        credential: 'apiKey',
        safe: true,
        json: body,
        headers: { 'idempotency-key': idempotencyKey },
      },
      callOptions,
    );
    return data;
  }

  /** Any memory of the tenant by its `memory_id`, with template data when made from one. */
  async get(memoryId: string, options?: CallOptions): Promise<ResponseOf<'getMemory'>> {
    const { data } = await this.http.request<ResponseOf<'getMemory'>>(
      {
        method: 'GET',
        path: `/v1/memories/${encodeURIComponent(memoryId)}`,
        credential: 'apiKey',
        safe: true,
      },
      options,
    );
    return data;
  }

  /**
   * Forget one memory (`DELETE /v1/memories/{id}`, key with `memory:delete`): its record,
   * postings and the relations its event recorded go; a memory only it superseded is current again
   * (`reinstated`). Safe to retry: asking again answers the first receipt (`idempotency_outcome:
   * 'Replayed'`). The write that created it then replays as `not_retained` with `forgotten_at`.
   * Another tenant's id or an unknown one is a 404 `not_found`.
   */
  async forget(memoryId: string, options?: CallOptions): Promise<ForgetReceipt> {
    const { data } = await this.http.request<ForgetReceipt>(
      {
        method: 'DELETE',
        path: `/v1/memories/${encodeURIComponent(memoryId)}`,
        credential: 'apiKey',
        safe: true,
      },
      options,
    );
    return data;
  }
}
