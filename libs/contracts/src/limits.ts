/** Service limits the spec leaves open; decided in docs/decisions.md and reported by capabilities. */
export const LIMITS = {
  namespaceMaxLength: 128,
  textMaxChars: 32_768,
  cueMaxChars: 4_096,
  eventIdMaxLength: 256,
  idempotencyKeyMaxLength: 255,
  supersedesMax: 100,
  topK: { min: 1, max: 100, default: 10 },
  bodyMaxBytes: 256 * 1024,
  /**
   * Levels of objects and lists in one JSON body, checked on the raw bytes before parsing ([P14]). The
   * deepest body a route takes is template data (JSON_BOUNDS.maxDepth, 32) inside its request: twice
   * that leaves room, and no legitimate body comes near it; 256 KiB of brackets could nest 131,072.
   */
  bodyMaxDepth: 64,
  /** Characters of context rendered from the selected records. */
  contextMaxChars: 16_384,
} as const;
