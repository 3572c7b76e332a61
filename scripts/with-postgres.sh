#!/usr/bin/env bash
# Runs a command beside a throwaway PostgreSQL 15 cluster (scripts/postgres-cluster.sh), torn
# down when the command ends. The command sees the cluster as REVENUEDOT_TEST_POSTGRES_URL
# (postgres://revenuedot:PASSWORD@127.0.0.1:PORT/postgres), a superuser tests create their
# databases with.
#
# Usage: scripts/with-postgres.sh COMMAND [ARGUMENTS...]
set -euo pipefail

cluster="$(dirname "$0")/postgres-cluster.sh"
work=$(mktemp -d /tmp/revenuedot-postgres.XXXXXX)
rmdir "$work"
trap '"$cluster" destroy "$work"' EXIT
REVENUEDOT_TEST_POSTGRES_URL=$("$cluster" start "$work")
export REVENUEDOT_TEST_POSTGRES_URL
status=0
"$@" || status=$?
exit $status
