/**
 * Bounds on caller-supplied free-form JSON (template data) before it reaches a database. Prisma's
 * query layer refuses JSON nested deeper than about 128 levels ("recursion limit exceeded"); a value
 * that gets that far fails after earlier steps have run, so it is refused up front with a 400.
 */
export const JSON_BOUNDS = {
  /** Levels of objects/lists inside one value: `{"a":[1]}` is 2. Far below the driver's ~128. */
  maxDepth: 32,
  /** UTF-8 bytes of the whole value as JSON; twice the memory text limit, well under the body limit. */
  maxBytes: 64 * 1024,
} as const;

/**
 * How deeply `value` nests objects and lists, counted without recursion (a 256 KiB body can nest
 * some 100,000 levels) and no further than `limit + 1`: enough to know it is too deep.
 */
export function jsonDepth(value: unknown, limit: number = JSON_BOUNDS.maxDepth): number {
  let deepest = 0;
  const stack: Array<{ value: unknown; depth: number }> = [{ value, depth: 0 }];
  while (stack.length > 0) {
    const { value: v, depth } = stack.pop() as { value: unknown; depth: number };
    if (v === null || typeof v !== 'object') continue;
    const level = depth + 1;
    if (level > deepest) deepest = level;
    if (deepest > limit) return deepest;
    for (const child of Object.values(v as Record<string, unknown>))
      stack.push({ value: child, depth: level });
  }
  return deepest;
}

/** UTF-8 size of `value` as JSON; call only once its depth is known to be bounded. */
export const jsonBytes = (value: unknown) => new TextEncoder().encode(JSON.stringify(value) ?? '').length;
