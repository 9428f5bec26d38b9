#!/bin/sh
# Second step of the one Dockerfile's build stage, after install.sh: lay out in $2 only what SERVICE ($1)
# runs, for the runtime stage to copy. Production dependencies (from the lockfile, offline, out of `pnpm
# fetch`'s store; copied, so no store comes along), each workspace package's package.json and dist/
# (the generated Prisma client is compiled into the service's dist/). No sources, TypeScript, dev
# dependencies or pnpm.
set -eu
service="$1"
out="$2"
mkdir -p "$out"
# Every workspace manifest, so the lockfile matches the workspace; only the filtered projects get installed.
cp package.json pnpm-lock.yaml pnpm-workspace.yaml "$out/"
for manifest in */package.json */*/package.json */*/*/package.json; do
  case "$manifest" in *node_modules*) continue ;; esac
  [ -f "$manifest" ] || continue
  mkdir -p "$out/${manifest%/package.json}"
  cp "$manifest" "$out/$manifest"
done

if [ "$service" = migrate ]; then
  # `prisma migrate deploy` per service: the prisma CLI is a dev dependency of each service, and its
  # prisma.config.ts loads @tm/kit from source (the CLI compiles the config itself; no TypeScript needed).
  # Each service alone (not its workspace dependencies' trees: the gateway's would bring the console's
  # Vite toolchain), and @tm/kit with what it needs.
  filters="--filter @tm/kit..."
  for schema in services/*/prisma/schema.prisma; do
    dir="${schema%/prisma/schema.prisma}"
    filters="$filters --filter @tm/${dir#services/}"
    cp -R "$dir/prisma" "$dir/prisma.config.ts" "$out/$dir/"
  done
  # shellcheck disable=SC2086 # one word per filter
  (cd "$out" && pnpm install --offline --frozen-lockfile --config.package-import-method=copy $filters)
  for lib in libs/*/src; do cp -R "$lib" "$out/$lib"; done
  # Of that install, only the prisma CLI and what @tm/kit's prismaCliConfig loads (the pg adapter) stay:
  # the services' own dependencies and the rest of their dev dependencies are not for migrating.
  (cd "$out" && node "$OLDPWD/infra/docker/prune.mjs" libs/kit services/*/node_modules/prisma)
else
  # --filter-prod: the workspace packages the service depends on in production, not its test-only ones
  # (the template service's tests use @tm/memory).
  filter="@tm/$service..."
  (cd "$out" && pnpm install --offline --frozen-lockfile --prod --config.package-import-method=copy --filter-prod "$filter")
  # The service and every workspace package it uses (the console, sdk and mcp for the gateway): their dist/.
  projects=""
  for project in $(pnpm ls -r --filter-prod "$filter" --depth -1 --parseable); do
    dir="${project#"$PWD"/}"
    cp -R "$dir/dist" "$out/$dir/dist"
    projects="$projects $dir"
  done
  # shellcheck disable=SC2086 # one word per project
  (cd "$out" && node "$OLDPWD/infra/docker/prune.mjs" $projects)
  rm -f "$out"/services/*/dist/.tsbuildinfo "$out"/libs/*/dist/.tsbuildinfo
fi
# The installer's bookkeeping, not needed to run.
rm -rf "$out/node_modules/.pnpm/lock.yaml" "$out/node_modules/.modules.yaml"
mkdir -p "$out/infra/docker"
cp infra/docker/start.sh infra/docker/healthcheck.mjs "$out/infra/docker/"
