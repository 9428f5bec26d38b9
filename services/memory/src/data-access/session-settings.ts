/**
 * Settings every connection of the memory service starts with (the same-work baseline's too).
 *
 * Generic plans: PostgreSQL kept custom-planning the hot path's prepared statements on every call,
 * since their generic plans looked dearer to it, and planning cost as much as running: the ranking's
 * first statement took 0.95-1.27 ms a call custom-planned and 0.45-0.60 ms generic (374 short cues at
 * 10k records). Their plans are pinned by structure (index descents in LATERAL … OFFSET 0), not by
 * the values, so the generic plan is the plan they would get anyway. The Prisma queries on this pool
 * are key lookups, where a generic plan is the same plan.
 */
export const MEMORY_SESSION_SETTINGS: Record<string, string> = { plan_cache_mode: 'force_generic_plan' };
