#!/bin/sh
# A PostgreSQL node under Patroni (docker-compose.ha.yml): PostgreSQL refuses to run as root and wants
# its data directory 0700, and a fresh named volume belongs to root; so that is fixed as root, then
# Patroni runs as postgres.
set -eu
mkdir -p /var/lib/postgresql/patroni /var/run/postgresql
chown postgres:postgres /var/lib/postgresql/patroni /var/run/postgresql
chmod 700 /var/lib/postgresql/patroni
exec setpriv --reuid=postgres --regid=postgres --init-groups env HOME=/var/lib/postgresql \
  patroni /etc/patroni/patroni.yml
