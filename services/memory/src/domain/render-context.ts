import { LIMITS } from '@tm/contracts';

/**
 * Render selected retained text as context for the caller's own model: one numbered line per
 * result, in rank order, cut at a whole line once the budget is spent.
 */
export function renderContext(
  items: Array<{ occurred_at: string; text: string }>,
  maxChars: number = LIMITS.contextMaxChars,
) {
  const lines: string[] = [];
  let used = 0;
  for (const [i, item] of items.entries()) {
    const line = `[${i + 1}] (${item.occurred_at}) ${item.text}`;
    if (used + line.length > maxChars && lines.length > 0) break;
    lines.push(line.length > maxChars ? line.slice(0, maxChars) : line);
    used += line.length + 1;
  }
  return lines.length ? lines.join('\n') : undefined;
}
