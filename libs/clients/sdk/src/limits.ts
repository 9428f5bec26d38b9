/**
 * The service's input limits, as GET /api/v1/infrastructure/capabilities publishes them (`limits`).
 * Checked before sending so a bad call fails at once; tests/e2e/clients/sdk.test.ts keeps them equal to the
 * published numbers. The server checks again: these only save a round trip.
 */
export const LIMITS = {
  namespaceMaxLength: 128,
  /** The server's namespace rule: a letter or digit, then letters, digits and `. _ : / -`. */
  namespacePattern: /^[A-Za-z0-9][A-Za-z0-9._:/-]*$/,
  /** What a name outside that rule is told, word for word the server's. */
  namespacePatternMessage:
    'namespace must start with a letter or digit and use only letters, digits and . _ : / -',
  textMaxChars: 32_768,
  cueMaxChars: 4_096,
  topK: { min: 1, max: 100, default: 10 },
  idempotencyKeyMaxLength: 255,
  /** Items in one `memory.writeBatch` (`write_batch_max_items`). */
  writeBatchMaxItems: 100,
} as const;
