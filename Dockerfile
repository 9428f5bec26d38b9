# syntax=docker/dockerfile:1
# One image recipe for every deployable: SERVICE names a folder of services/ (memory, billing,
# telemetry, template, gateway), or `migrate` for the one-shot image that applies every service's
# migrations. Build context: the repository root (docker compose does this; by hand:
#   docker build --build-arg SERVICE=memory -t tm-memory .)
# The base is an argument too, so moving Node versions is one line here or one flag on the build.
ARG NODE_IMAGE=node:24-slim
FROM ${NODE_IMAGE}
RUN npm install --global pnpm@10.34.9
WORKDIR /app

# Packages come from the lockfile alone, so this layer is reused until pnpm-lock.yaml changes (and
# it is the same layer for every SERVICE).
COPY pnpm-lock.yaml pnpm-workspace.yaml ./
RUN pnpm fetch

COPY . .
ARG SERVICE
RUN sh infra/docker/install.sh "$SERVICE"

# Read by infra/docker/start.sh when the container starts.
ENV SERVICE=${SERVICE}
USER node
# start.sh ends in `exec node … dist/start.js`: the service as install.sh compiled it, no tsx, and node
# itself as the container's main process rather than pnpm, since pnpm exits on SIGTERM without waiting
# for its child, which would cut the service's graceful shutdown short. The gateway listens on 8080
# (GATEWAY_PORT; docker-compose.yml publishes it).
CMD ["sh", "infra/docker/start.sh"]
