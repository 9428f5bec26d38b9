import { LIMITS } from '../http/limits.js';
import { RESTORE_LIMITS } from '../imports/restore.js';
import { RANKING_ORDER, RESERVED_NAMESPACE_PREFIX } from '../memory/memory.js';
import { NAMESPACES_PAGE } from '../memory/namespaces.js';
import { CONTRACT_VERSION, RUNTIME, SCHEMA_VERSION } from '../runtime.js';
import { EVENTS_PAGE, EXPORT_NAMESPACES_MAX } from '../telemetry/telemetry.js';
import type { CapabilitiesResponse } from './infrastructure.js';

/** The capability manifest: the spec's table, the routes that are live, and what we promise. */
export const CAPABILITIES: CapabilitiesResponse = {
  contract_version: CONTRACT_VERSION,
  schema_version: SCHEMA_VERSION,
  production_ready: false,
  runtime: {
    execution_mode: RUNTIME.execution_mode,
    provider: RUNTIME.provider,
    model_version: RUNTIME.model_version,
    model_execution: RUNTIME.model_execution,
  },
  operations: [
    { operation: 'memory.write', method: 'POST', path: '/api/v1/memory/write', status: 'available_mock' },
    {
      operation: 'memory.write_batch',
      method: 'POST',
      path: '/api/v1/memory/write/batch',
      status: 'available_mock',
    },
    { operation: 'memory.recall', method: 'POST', path: '/api/v1/memory/recall', status: 'available_mock' },
    { operation: 'memory.delete', method: 'DELETE', path: '/api/v1/memory', status: 'available_mock' },
    { operation: 'memory.restore', method: 'POST', path: '/api/v1/memory/restore', status: 'available_mock' },
  ],
  capabilities: [
    {
      name: 'text_persistence',
      title: 'Text persistence',
      status: 'available_mock',
      meaning: 'Text retained after storage, consent and policy checks',
    },
    {
      name: 'lexical_retrieval',
      title: 'Lexical retrieval',
      status: 'available_mock',
      meaning:
        'Deterministic tenant-scoped ranking over retained text: cue and text stemmed (Snowball English), ' +
        'each cue term weighted by its inverse document frequency in the namespace',
    },
    {
      name: 'stored_text_rendering',
      title: 'Stored-text rendering',
      status: 'available_mock',
      meaning: 'Selected retained text returned as context',
    },
    {
      name: 'embeddings_vector_search',
      title: 'Embeddings and vector search',
      status: 'not_deployed',
      meaning: 'No vector index attached',
    },
    {
      name: 'traversal_mapping',
      title: 'Traversal and mapping',
      status: 'contract_stage',
      meaning: 'Response/attribution shapes exist; no learned behavior',
    },
    {
      name: 'customer_storage_execution',
      title: 'Customer-owned storage execution',
      status: 'control_plane_only',
      meaning: 'Configurable only',
    },
    {
      name: 'managed_external_language_model',
      title: 'Managed external language model',
      status: 'not_available',
      meaning: 'Route disabled',
    },
    {
      name: 'physical_inputs',
      title: 'Physical inputs',
      status: 'research',
      meaning: 'No public contract; the v1 memory schema is text-only',
    },
    {
      name: 'learned_memory_model_execution',
      title: 'Learned memory model execution',
      status: 'not_deployed',
      meaning: 'Not used by the hosted path',
    },
  ],
  guarantees: [
    'read_after_write: a recall issued after a write has returned 200 sees that write',
    'idempotent_writes: the same idempotency key and body return the original result (Replayed) and are billed once; another body with the same key is 409',
    'tenant_isolation: tenant and user scope come only from the verified credential',
    `deterministic_ranking: the same retained text and cue always rank in the same order (${RANKING_ORDER.join(', ')})`,
    'namespace_scoped_delete: a delete removes exactly one namespace, with its supersession relations and idempotency state',
    'usage_recorded_atomically: a usage record is committed in the same transaction as the memory change it measures',
    'request_history: every answered request is recorded once, redacted (no text, cue, namespace name or credential); a namespace delete keeps its redacted history',
  ],
  limitations: [
    'Ranking is weighted lexical overlap, not semantic; scores carry no model confidence',
    'Ranking is English-stemmed: other languages match on exact word forms only',
    'Term weights follow the namespace’s own statistics: a record’s score for the same cue changes as the namespace grows',
    'A namespace written before a ranking upgrade ranks by its old index until it is re-indexed (ranking.model_version says which; progress in health and the release record)',
    'No learned memory model executes; model_variant Unspecified means nothing is billed as model usage',
    'No embeddings or vector search',
    'Billing is sandbox only; no live charge is implied',
    'Customer-owned storage connections are configurable only; memory requests are not dispatched to them',
    'Managed external language-model connections are disabled',
  ],
  limits: {
    namespace_max_length: LIMITS.namespaceMaxLength,
    text_max_chars: LIMITS.textMaxChars,
    cue_max_chars: LIMITS.cueMaxChars,
    top_k: LIMITS.topK,
    idempotency_key_max_length: LIMITS.idempotencyKeyMaxLength,
    supersedes_max: LIMITS.supersedesMax,
    body_max_bytes: LIMITS.bodyMaxBytes,
    write_batch_max_items: LIMITS.writeBatchMaxItems,
    write_batch_body_max_bytes: LIMITS.writeBatchBodyMaxBytes,
    restore_body_max_bytes: RESTORE_LIMITS.bodyMaxBytes,
    restore_max_records: RESTORE_LIMITS.maxRecords,
    body_max_depth: LIMITS.bodyMaxDepth,
    events_page: EVENTS_PAGE,
    namespaces_page: NAMESPACES_PAGE,
    export_namespaces_max: EXPORT_NAMESPACES_MAX,
    reserved_namespace_prefix: RESERVED_NAMESPACE_PREFIX,
  },
};
