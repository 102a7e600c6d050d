#!/bin/sh
# The read replica of compose.scaled.yaml: on its first start, a copy of the primary taken with
# pg_basebackup (-R: it then follows the primary by streaming replication); afterwards it resumes.
set -e
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  until pg_basebackup -h db -U license_manager -D "$PGDATA" -R -X stream -c fast; do
    echo "replica: waiting for the primary"
    rm -rf "${PGDATA:?}"/*
    sleep 2
  done
  chmod 700 "$PGDATA"
fi
exec postgres -c hot_standby=on
