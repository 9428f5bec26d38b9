/**
 * A UUID as PostgreSQL's uuid column takes it (any version, either case). Ids a route looks up by are
 * checked with it first: anything else names nothing, and must not reach a query that would refuse it.
 */
export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
