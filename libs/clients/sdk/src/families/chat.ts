import type { CallOptions, Transport } from '../http.js';
import type { BodyOf, ResponseOf } from '../types.js';

/**
 * Chat completions (`/v1/chat/completions`, OpenAI-compatible): a typed thin call. For streaming
 * and everything else, the official `openai` client works against `${baseUrl}/v1` (see README).
 */
export class ChatFamily {
  constructor(private readonly http: Transport) {}

  /** A `chat.completion`; the reply is `choices[0].message.content`. Not streamed (`stream` must be false). */
  async createCompletion(
    body: BodyOf<'createChatCompletion'> & { stream?: false },
    options?: CallOptions,
  ): Promise<ResponseOf<'createChatCompletion'>> {
    const { data } = await this.http.request<ResponseOf<'createChatCompletion'>>(
      // It retains the latest user message: not repeated after a lost answer.
      { method: 'POST', path: '/v1/chat/completions', credential: 'apiKey', safe: false, json: body },
      options,
    );
    return data;
  }

  async listModels(options?: CallOptions): Promise<ResponseOf<'listModels'>> {
    const { data } = await this.http.request<ResponseOf<'listModels'>>(
      { method: 'GET', path: '/v1/models', credential: 'apiKey', safe: true },
      options,
    );
    return data;
  }

  async getModel(model: string, options?: CallOptions): Promise<ResponseOf<'retrieveModel'>> {
    const { data } = await this.http.request<ResponseOf<'retrieveModel'>>(
      { method: 'GET', path: `/v1/models/${encodeURIComponent(model)}`, credential: 'apiKey', safe: true },
      options,
    );
    return data;
  }
}
