#!/bin/sh
# The locally built postgres:15 base image's entry point (infra/dev/compose/base-images.ts): the part of the
# official image's docker-entrypoint.sh that docker-compose.yml relies on. An empty data directory is
# initialised with POSTGRES_HOST_AUTH_METHOD (trust in our compose file), every *.sql in
# /docker-entrypoint-initdb.d runs once against a socket-only server, then PostgreSQL listens on all
# interfaces of the container.
set -eu
PGDATA="${PGDATA:-/var/lib/postgresql/data}"
bin=/usr/lib/postgresql/15/bin
if [ "$(id -u)" = 0 ]; then
  # A fresh named volume belongs to root.
  mkdir -p "$PGDATA" /var/run/postgresql
  chown -R postgres:postgres "$PGDATA" /var/run/postgresql
  chmod 700 "$PGDATA"
  exec setpriv --reuid=postgres --regid=postgres --init-groups "$0" "$@"
fi
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  method="${POSTGRES_HOST_AUTH_METHOD:?this image supports POSTGRES_HOST_AUTH_METHOD (e.g. trust) only}"
  "$bin/initdb" -D "$PGDATA" -U postgres --auth="$method" --encoding=UTF8 >/dev/null
  echo "host all all all $method" >>"$PGDATA/pg_hba.conf"
  "$bin/pg_ctl" -D "$PGDATA" -o "-c listen_addresses=''" -w start >/dev/null
  for script in /docker-entrypoint-initdb.d/*.sql; do
    [ -f "$script" ] || continue
    echo "running $script"
    psql -v ON_ERROR_STOP=1 -U postgres -d postgres -q -f "$script"
  done
  "$bin/pg_ctl" -D "$PGDATA" -m fast -w stop >/dev/null
fi
exec "$bin/postgres" -D "$PGDATA" -c listen_addresses='*' "$@"
