#!/bin/sh
# Build step of the one Dockerfile: install what SERVICE ($1) needs, offline from `pnpm fetch`'s store.
set -eu
service="${1:-}"
if [ "$service" = migrate ]; then
  # Each service's prisma.config.ts needs that service's own dependencies (prisma, the pg adapter).
  filters=""
  for schema in services/*/prisma/schema.prisma; do
    name="${schema#services/}"
    filters="$filters --filter @tm/${name%%/*}..."
  done
  # shellcheck disable=SC2086 # one word per filter
  pnpm install --offline --frozen-lockfile $filters
elif [ -n "$service" ] && [ -f "services/$service/package.json" ]; then
  # The service, the workspace libraries it uses, and the root (TypeScript, to compile them).
  pnpm install --offline --frozen-lockfile --filter "@tm/$service..." --filter .
  (cd "services/$service" && pnpm exec prisma generate)
  if [ "$service" = gateway ]; then
    # The remote MCP endpoint (/mcp) serves @text-memory/mcp's tools over @text-memory/sdk: their dist/.
    pnpm --filter @text-memory/sdk build
    pnpm --filter @text-memory/mcp build
  fi
  # The compiled runtime: the service and the @tm/* libraries it references into their dist/,
  # the generated Prisma client included; start.sh runs that with plain node.
  pnpm exec tsc -b "services/$service/tsconfig.build.json"
  if [ "$service" = gateway ]; then
    # The web console the gateway serves at /console: static files (libs/clients/console, Vite).
    pnpm --filter @text-memory/console build
  fi
else
  echo "SERVICE must name a folder of services/ or be 'migrate'; got '$service'" >&2
  exit 1
fi
