import { Document } from '@langchain/core/documents';
import type { RecallResponse, Schemas } from '@text-memory/sdk';

/** What each recalled memory's Document carries beside its text. */
export interface MemoryDocumentMetadata {
  memory_id: string;
  event_id: string;
  /** The service's lexical-overlap score, 0–1: the share of the query's distinct words in the text. */
  score: number;
  /** When the fact happened, as the write said (ISO 8601). */
  occurred_at: string;
  /** The write's caller-attested `source` (`{ type, id? }`), or null when the write gave none. */
  source: Schemas['EventSource'] | null;
  namespace: string;
  /** The recall's request id, to quote when asking about this answer. */
  request_id: string;
}

/** One Document per recalled memory, in the service's ranking order; the text is the memory as written. */
export function toDocuments(recalled: RecallResponse): Document<MemoryDocumentMetadata>[] {
  return recalled.related.map(
    (item) =>
      new Document<MemoryDocumentMetadata>({
        id: item.memory_id,
        pageContent: item.text,
        metadata: {
          memory_id: item.memory_id,
          event_id: item.event_id,
          score: item.score,
          occurred_at: item.occurred_at,
          source: item.source ?? null,
          namespace: recalled.namespace,
          request_id: recalled.request_id,
        },
      }),
  );
}
