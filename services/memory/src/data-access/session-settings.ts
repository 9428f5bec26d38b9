/**
 * Settings every connection of the memory service starts with (the same-work baseline's too).
 *
 * None for now. `plan_cache_mode = force_generic_plan` halved the ranking's planning cost at 10k, but
 * it applies to every statement on the pool: the deletion worker's "anything left?" check then took a
 * generic plan that scanned all postings of a 1M-record database (10 s statement timeout, seen on a
 * fresh clone after the bench). Kept per statement is the way back (docs/benchmarks.md).
 */
export const MEMORY_SESSION_SETTINGS: Record<string, string> = {};
