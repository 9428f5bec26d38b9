/**
 * Routes fuzzed against one tenant, so a destructive route (revoke a key, disable a user, revoke
 * consent, delete a namespace) only ever spoils its own family's tenant. The smoke test is fuzzed with
 * the infrastructure routes, where the operator token it needs is never revoked. Order matters: the first
 * family whose pattern matches a path takes it.
 */
export const FAMILIES: ReadonlyArray<{ name: string; pattern: RegExp; needsCharge?: boolean }> = [
  { name: 'sessions and account', pattern: /^\/api\/v1\/control\/(sessions|account)/ },
  { name: 'users', pattern: /^\/api\/v1\/control\/users/ },
  { name: 'api keys', pattern: /^\/api\/v1\/control\/api-keys/ },
  { name: 'storage connections', pattern: /^\/api\/v1\/control\/storage-connections/ },
  { name: 'consent', pattern: /^\/api\/v1\/control\/consent/ },
  { name: 'operator tokens', pattern: /^\/api\/v1\/control\/operator-tokens/ },
  { name: 'webhook endpoints', pattern: /^\/api\/v1\/control\/webhook-endpoints/ },
  {
    name: 'billing',
    pattern: /^\/api\/v1\/(control\/(usage|billing)|infrastructure\/usage)/,
    needsCharge: true,
  },
  { name: 'infrastructure', pattern: /^\/api\/v1\/(infrastructure|openapi\.json)/ },
  { name: 'memory', pattern: /^\/api\/v1\/memory/ },
  { name: 'templates and template memories', pattern: /^\/v1\/(templates|marketplace|memories)/ },
  { name: 'imports', pattern: /^\/v1\/imports/ },
  { name: 'chat', pattern: /^\/v1\/(chat|models)/ },
];

export const familyOf = (path: string): string | undefined =>
  FAMILIES.find((family) => family.pattern.test(path))?.name;
