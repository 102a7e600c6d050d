#!/bin/sh
# Run by the postgres image when it first makes the database: the replica (compose.scaled.yaml)
# connects for streaming replication with the same user and password as the app.
set -e
echo "host replication license_manager all scram-sha-256" >> "$PGDATA/pg_hba.conf"
