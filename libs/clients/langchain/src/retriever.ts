import type { CallbackManagerForRetrieverRun } from '@langchain/core/callbacks/manager';
import type { Document } from '@langchain/core/documents';
import { BaseRetriever, type BaseRetrieverInput } from '@langchain/core/retrievers';
import type { TextMemory } from '@text-memory/sdk';
import { type MemoryDocumentMetadata, toDocuments } from './memory-documents.js';

export interface TextMemoryRetrieverInput extends BaseRetrieverInput {
  /** An SDK client with an API key that may recall in `namespace`. */
  client: TextMemory;
  /** The namespace to search, e.g. a user or project id. */
  namespace: string;
  /** How many memories at most, 1–100 (the service's default, 10, when not given). */
  topK?: number;
  /** Recall the namespace as it was at this time: later writes and deletions are not seen. */
  asOf?: string | Date;
}

/**
 * Recalls memories of one namespace as LangChain Documents: the memory's text as `pageContent`, its ids,
 * score, time and source as `metadata`. Ranking is the service's lexical overlap, not meaning.
 */
export class TextMemoryRetriever extends BaseRetriever<MemoryDocumentMetadata> {
  static override lc_name() {
    return 'TextMemoryRetriever';
  }

  override lc_namespace = ['text_memory', 'retrievers'];

  client: TextMemory;
  namespace: string;
  topK: number | undefined;
  asOf: string | Date | undefined;

  constructor(fields: TextMemoryRetrieverInput) {
    super(fields);
    this.client = fields.client;
    this.namespace = fields.namespace;
    this.topK = fields.topK;
    this.asOf = fields.asOf;
  }

  override async _getRelevantDocuments(
    query: string,
    _runManager?: CallbackManagerForRetrieverRun,
  ): Promise<Document<MemoryDocumentMetadata>[]> {
    const recalled = await this.client.memory.recall({
      namespace: this.namespace,
      query,
      ...(this.topK !== undefined ? { top_k: this.topK } : {}),
      ...(this.asOf !== undefined ? { as_of: this.asOf } : {}),
    });
    return toDocuments(recalled);
  }
}
