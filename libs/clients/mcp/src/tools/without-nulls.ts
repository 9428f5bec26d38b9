/**
 * A value with every null property left out, at any depth: the shape of a tool's structuredContent.
 * Output schemas declare such a property optional (absent when there is none) instead of nullable,
 * which zod writes as `type: ["string", "null"]`: several MCP clients read `type` as one string and
 * reject the tool or drop the constraint, and the MCP Inspector warns of each. What the SDK hands to
 * code (RememberReceipt, RecallReport) keeps its nulls; only what the tools declare to MCP clients
 * loses them.
 */
export type WithoutNulls<T> = T extends readonly (infer Item)[]
  ? WithoutNulls<Item>[]
  : T extends object
    ? { [K in keyof T as null extends T[K] ? never : K]: WithoutNulls<T[K]> } & {
        [K in keyof T as null extends T[K] ? K : never]?: WithoutNulls<Exclude<T[K], null>>;
      }
    : T;

export function withoutNulls<T>(value: T): WithoutNulls<T> {
  if (Array.isArray(value)) return value.map(withoutNulls) as WithoutNulls<T>;
  if (typeof value !== 'object' || value === null) return value as WithoutNulls<T>;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, field]) => field !== null)
      .map(([key, field]) => [key, withoutNulls(field)]),
  ) as WithoutNulls<T>;
}
