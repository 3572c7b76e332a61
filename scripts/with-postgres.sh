#!/usr/bin/env bash
# Runs a command beside a throwaway PostgreSQL 15 cluster (Debian's postgresql-15): initdb into a
# temporary directory as a non-root user, a free loopback port, password authentication, torn
# down when the command ends. The command sees the cluster as REVENUEDOT_TEST_POSTGRES_URL
# (postgres://revenuedot:PASSWORD@127.0.0.1:PORT/postgres), a superuser tests create their
# databases with.
#
# Usage: scripts/with-postgres.sh COMMAND [ARGUMENTS...]
set -euo pipefail

bin=/usr/lib/postgresql/15/bin
[ -x "$bin/initdb" ] || { echo "with-postgres: $bin/initdb is missing (apt-get install postgresql-15)" >&2; exit 1; }

work=$(mktemp -d /tmp/revenuedot-postgres.XXXXXX)
chmod 755 "$work"
# initdb and postgres refuse to run as root: a system user of our own runs them then.
as_owner=()
if [ "$(id -u)" -eq 0 ]; then
    owner=revenuedot-pg
    id -u "$owner" >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin "$owner"
    chown "$owner" "$work"
    as_owner=(runuser -u "$owner" --)
fi

password=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
printf '%s\n' "$password" > "$work/password"
[ ${#as_owner[@]} -eq 0 ] || chown "$owner" "$work/password"

stop() {
    "${as_owner[@]}" "$bin/pg_ctl" -D "$work/data" -m immediate stop >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap stop EXIT

"${as_owner[@]}" "$bin/initdb" -D "$work/data" -U revenuedot --pwfile="$work/password" \
    --auth-local=scram-sha-256 --auth-host=scram-sha-256 -E UTF8 --locale=C.UTF-8 >"$work/initdb.log" 2>&1 \
    || { cat "$work/initdb.log" >&2; exit 1; }
"${as_owner[@]}" "$bin/pg_ctl" -D "$work/data" -l "$work/postgres.log" -w -t 60 \
    -o "-p $port -k $work -c listen_addresses=127.0.0.1 -c max_connections=200" start >/dev/null \
    || { cat "$work/postgres.log" >&2; exit 1; }

export REVENUEDOT_TEST_POSTGRES_URL="postgres://revenuedot:$password@127.0.0.1:$port/postgres"
status=0
"$@" || status=$?
exit $status
