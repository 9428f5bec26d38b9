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
  /** Characters of context rendered from the selected records. */
  contextMaxChars: 16_384,
} as const;
