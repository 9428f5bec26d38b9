#!/bin/sh
# Container command of the one Dockerfile: run SERVICE, or apply every service's migrations.
# sh builtins and node only: the slim runtime base (RUNTIME_IMAGE) has no coreutils, sed or pnpm.
set -eu
if [ "$SERVICE" = migrate ]; then
  # Applies pending migrations only; safe to run on every `docker compose up`. The services' databases
  # are independent, so all at once: the Prisma CLI's JS engine keeps its process alive for 10 s after
  # the work is done (a timer of its schema engine), which one after the other cost 50 s of every start.
  # No checkpoint: the CLI would otherwise ask Prisma's server for updates.
  export CHECKPOINT_DISABLE=1
  pids=""
  for schema in services/*/prisma/schema.prisma; do
    dir="${schema%/prisma/schema.prisma}"
    echo "migrating ${dir#services/}"
    # The CLI from the service's own node_modules, by its entry file: the runtime image has no pnpm,
    # and pnpm's .bin shim needs sed, dirname and uname, which the slim runtime base leaves out.
    (cd "$dir" && node node_modules/prisma/build/index.js migrate deploy) &
    pids="$pids $!"
  done
  failed=0
  for pid in $pids; do wait "$pid" || failed=1; done
  exit "$failed"
fi
cd "services/$SERVICE"
# dist/ as install.sh built it; the condition resolves the @tm/* packages to their dist/ too
# (infra/dev/service-command.ts, the same as `npm run start:prod`). No tsx in the container's process.
exec node --conditions=@tm/compiled dist/start.js
