# syntax=docker/dockerfile:1
# One image recipe for every deployable: SERVICE names a folder of services/ (memory, billing,
# telemetry, template, gateway), or `migrate` for the one-shot image that applies every service's
# migrations. Build context: the repository root (docker compose does this; by hand:
#   docker build --build-arg SERVICE=memory -t tm-memory .)
# The bases are arguments too, so moving Node versions is one line here or one flag on the build.
# NODE_IMAGE builds (it needs npm and a shell); RUNTIME_IMAGE is what ships, and needs node and /bin/sh
# only. Where images are pulled both are node:24-slim; `npm run compose` passes a slimmer local one for
# RUNTIME_IMAGE (infra/dev/compose/base-images.ts), which is how the images stay under 250 MB there.
ARG NODE_IMAGE=node:24-slim
ARG RUNTIME_IMAGE=node:24-slim

# Build stage: the whole toolchain (pnpm, every dependency, TypeScript); none of it is shipped.
FROM ${NODE_IMAGE} AS build
RUN npm install --global pnpm@10.34.9
WORKDIR /app

# Packages come from the lockfile alone, so this layer is reused until pnpm-lock.yaml changes (and
# it is the same layer for every SERVICE).
COPY pnpm-lock.yaml pnpm-workspace.yaml ./
RUN pnpm fetch
# For `npm run compose`, which removes the build stages (1.3 GB each) once the images are built: the
# layer labelled `dependencies` is the last one every build shares, kept under a tag for the next build;
# from the second label on, everything is this build's own (infra/dev/compose/build-leftovers.ts).
LABEL io.text-memory.stage=dependencies
LABEL io.text-memory.stage=build

COPY . .
ARG SERVICE
RUN sh infra/docker/install.sh "$SERVICE"
# What the runtime stage copies: the compiled service and its production dependencies, nothing else.
RUN sh infra/docker/runtime.sh "$SERVICE" /runtime

# Runtime stage: the runtime base plus /runtime (docs/decisions/deployment.md, "Runtime images" and
# "Smaller runtime images"). Nothing here may need more than node and sh's builtins.
FROM ${RUNTIME_IMAGE}
LABEL io.text-memory.stage=runtime
ARG SERVICE
WORKDIR /app
# Owned by root: the service's user reads its code and cannot change it.
COPY --from=build /runtime /app
# Read by infra/docker/start.sh when the container starts. No secret is baked in: the compose file
# (or the orchestrator) passes GATEWAY_SECRET_KEY, IMPORT_SECRET_KEY and the database URLs at run time.
ENV SERVICE=${SERVICE} NODE_ENV=production
USER node
# start.sh ends in `exec node … dist/start.js`: the service as install.sh compiled it, no tsx, and node
# itself as the container's main process rather than pnpm, since pnpm exits on SIGTERM without waiting
# for its child, which would cut the service's graceful shutdown short. SIGTERM starts the drain
# (DRAIN_TIMEOUT_MS); compose's stop_grace_period gives it the time. The gateway listens on 8080
# (GATEWAY_PORT; docker-compose.yml publishes it).
STOPSIGNAL SIGTERM
# The gateway's readiness route, a bus service's metrics listener (infra/docker/healthcheck.mjs); the
# gateway's matches docker-compose.yml's. The migrate job exits when done, so a check never fails it.
HEALTHCHECK --interval=5s --timeout=3s --start-period=10s --retries=12 \
  CMD ["node", "infra/docker/healthcheck.mjs"]
CMD ["sh", "infra/docker/start.sh"]
