/** Service limits the spec leaves open; decided in docs/decisions/README.md and reported by capabilities. */
export const LIMITS = {
  namespaceMaxLength: 128,
  textMaxChars: 32_768,
  cueMaxChars: 4_096,
  eventIdMaxLength: 256,
  idempotencyKeyMaxLength: 255,
  supersedesMax: 100,
  topK: { min: 1, max: 100, default: 10 },
  bodyMaxBytes: 256 * 1024,
  /** Events in one `POST /api/v1/memory/write/batch`. */
  writeBatchMaxItems: 100,
  /**
   * The batch route's body bound, its own: 100 events of the longest text (32,768 characters,
   * 3.3 MB as ASCII) fit with room for their envelopes; a body of longer bytes (multi-byte or escaped
   * text) sends fewer events per batch. Parsing 4 MiB holds the event loop about as long as sixteen
   * 256 KiB writes would, and it is bounded like them.
   */
  writeBatchBodyMaxBytes: 4 * 1024 * 1024,
  /**
   * Levels of objects and lists in one JSON body, checked on the raw bytes before parsing. The
   * deepest body a route takes is template data (JSON_BOUNDS.maxDepth, 32) inside its request: twice
   * that leaves room, and no legitimate body comes near it; 256 KiB of brackets could nest 131,072.
   */
  bodyMaxDepth: 64,
  /** Characters of context rendered from the selected records. */
  contextMaxChars: 16_384,
} as const;
