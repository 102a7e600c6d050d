#!/bin/sh
# The first start makes the cluster with POSTGRES_USER (password POSTGRES_PASSWORD) and the database
# POSTGRES_DB, reached from other containers by password, and runs /docker-entrypoint-initdb.d/*.sh
# (sourced, or run when executable) against it; later starts only run the server. As in the official
# image, the command is `postgres` with its options (compose's `command:`), and any other command
# (`pg_isready`, a shell) runs as it is.
set -eu
case "${1:-postgres}" in -*) set -- postgres "$@" ;; esac
[ $# -gt 0 ] || set -- postgres
if [ "$1" != postgres ]; then exec "$@"; fi
: "${POSTGRES_USER:=postgres}" "${POSTGRES_DB:=$POSTGRES_USER}"
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  pwfile=$(mktemp)
  printf '%s' "${POSTGRES_PASSWORD:?set POSTGRES_PASSWORD}" > "$pwfile"
  initdb --username="$POSTGRES_USER" --pwfile="$pwfile" --auth-local=trust --auth-host=scram-sha-256 >/dev/null
  rm -f "$pwfile"
  echo "host all all all scram-sha-256" >> "$PGDATA/pg_hba.conf"
  pg_ctl -D "$PGDATA" -o "-c listen_addresses=''" -w start >/dev/null
  [ "$POSTGRES_DB" = postgres ] || createdb --username="$POSTGRES_USER" "$POSTGRES_DB"
  for script in /docker-entrypoint-initdb.d/*.sh; do
    [ -f "$script" ] || continue
    echo "postgres-entrypoint: running $script"
    if [ -x "$script" ]; then "$script"; else . "$script"; fi
  done
  pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
fi
exec "$@"
