// Request and response types, derived from the generated document types (src/generated/openapi.ts),
// never written by hand: a schema change in the service shows up here through `pnpm generate`.
import type { components, operations } from './generated/openapi.js';

export type { components, operations, paths } from './generated/openapi.js';

export type Schemas = components['schemas'];
export type OperationId = keyof operations;

type Responses<K extends OperationId> = operations[K]['responses'];

/** The JSON body of operation K's answer with status S (its success status by default). */
export type ResponseOf<
  K extends OperationId,
  S extends keyof Responses<K> = SuccessStatus<K>,
> = Responses<K>[S] extends { content: { 'application/json': infer T } } ? T : undefined;

type SuccessStatus<K extends OperationId> = Extract<keyof Responses<K>, 200 | 201 | 202 | 204>;

/** The JSON request body of operation K. */
export type BodyOf<K extends OperationId> = operations[K] extends {
  requestBody?: { content: { 'application/json': infer T } };
}
  ? T
  : never;

/** The query parameters of operation K. */
export type QueryOf<K extends OperationId> = operations[K]['parameters'] extends { query?: infer Q }
  ? NonNullable<Q>
  : never;

// Names for the types users meet most.
export type WriteRequest = Schemas['WriteRequest'];
export type WriteResponse = ResponseOf<'memoryWrite'>;
export type WriteBatchRequest = Schemas['WriteBatchRequest'];
/** One item of a batch: its own idempotency key and its own event (a single write's). */
export type WriteBatchItem = Schemas['WriteBatchItem'];
export type WriteBatchResponse = ResponseOf<'memoryWriteBatch'>;
/** One item's answer: the status and body a single write of it would have been answered with. */
export type WriteBatchItemResult = Schemas['WriteBatchItemResult'];
export type WriteBatchItemCounts = Schemas['WriteBatchItemCounts'];
export type RecallRequest = Schemas['RecallRequest'];
export type RecallResponse = ResponseOf<'memoryRecall'>;
/** One recalled record; `explanation` only when the recall asked for `explain: true`. */
export type RelatedResult = Schemas['RelatedResult'];
/** Why a record scored what it did: the cue's terms (weights summing to ~1) and its tie-break words. */
export type RecallExplanation = Schemas['RecallExplanation'];
/** One cue word: its index term, its weight (0..1) and whether the record holds it. */
export type ExplainedTerm = Schemas['ExplainedTerm'];
export type DeleteReceipt = ResponseOf<'memoryDelete'>;
/** The answer of `memories.forget`. */
export type ForgetReceipt = ResponseOf<'forgetMemory'>;
/** An export file as `GET /api/v1/infrastructure/export` wrote it, and a restore job of one. */
export type ExportFile = Schemas['RestoreDocument'];
export type RestoreJob = ResponseOf<'memoryRestore'>;
export type RestoreFailurePage = ResponseOf<'memoryRestoreFailures'>;
export type HealthResponse = ResponseOf<'health'>;
/** What `health()` returns: the 200 report, or the 503 one (status `unavailable`, with the error fields). */
export type HealthReport = HealthResponse | ResponseOf<'health', 503>;
export type SmokeTestResponse = ResponseOf<'smokeTest'>;
/**
 * What `smokeTest()` returns: the 200 report (`outcome: 'passed'`), or the 503 one (`outcome: 'failed'`,
 * with the error fields).
 */
export type SmokeTestReport = SmokeTestResponse | ResponseOf<'smokeTest', 503>;
export type CapabilitiesResponse = ResponseOf<'capabilities'>;
export type ReleaseRecord = ResponseOf<'release'>;
export type StatusResponse = ResponseOf<'status'>;
export type EventsPage = ResponseOf<'events'>;
export type RequestEvent = EventsPage['data'][number];
export type NamespacesPage = ResponseOf<'namespaces'>;
export type NamespaceSummary = Schemas['NamespaceSummary'];
export type ErrorEnvelope = Schemas['ErrorEnvelope'];
export type ImportJob = ResponseOf<'getImport'>;
export type Template = ResponseOf<'getTemplate'>;
