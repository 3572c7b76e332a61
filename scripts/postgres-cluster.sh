#!/usr/bin/env bash
# A throwaway PostgreSQL 15 cluster (Debian's postgresql-15) in a directory of its own, run as a
# non-root user (a system user of its own when called as root, as CI is), on a loopback port,
# with password authentication.
#
# Usage: scripts/postgres-cluster.sh start DIR    creates the cluster on first use, starts it
#                                                  unless it runs, prints its URL (the same
#                                                  port every start)
#        scripts/postgres-cluster.sh stop DIR     stops it (fast shutdown), keeping its data
#        scripts/postgres-cluster.sh destroy DIR  stops it and removes DIR
# POSTGRES_CLUSTER_OPTIONS adds server settings to a start ("-c shared_buffers=2GB").
# POSTGRES_CLUSTER_SSL=1 at creation makes a test CA (DIR/ca.crt) and a server certificate for
# 127.0.0.1 and localhost signed by it, and every start serves TLS with them.
set -euo pipefail

bin=/usr/lib/postgresql/15/bin
[ -x "$bin/initdb" ] || { echo "postgres-cluster: $bin/initdb is missing (apt-get install postgresql-15)" >&2; exit 1; }
[ $# -eq 2 ] || { echo "usage: $0 start|stop|destroy DIR" >&2; exit 2; }
command=$1
# Absolute: the server runs in its data directory, and its socket goes in this one.
work=$(realpath -m "$2")
# The server must not keep a descriptor its caller waits on (a pipe, or the caller's way of
# learning that this script exited): only standard input, output and error go on.
for fd in /proc/$$/fd/*; do
    fd=${fd##*/}
    if [ "$fd" -gt 2 ] 2>/dev/null; then eval "exec $fd>&-" 2>/dev/null || true; fi
done

as_owner=()
owner=
if [ "$(id -u)" -eq 0 ]; then
    owner=revenuedot-pg
    id -u "$owner" >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin "$owner" 2>/dev/null \
        || id -u "$owner" >/dev/null 2>&1
    as_owner=(runuser -u "$owner" --)
fi
run() { if [ ${#as_owner[@]} -eq 0 ]; then "$@"; else "${as_owner[@]}" "$@"; fi; }

case "$command" in
start)
    if [ ! -d "$work/data" ]; then
        mkdir -p "$work"
        chmod 755 "$work"
        [ -z "$owner" ] || chown "$owner" "$work"
        od -An -N16 -tx1 /dev/urandom | tr -d ' \n' > "$work/password"
        python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' > "$work/port"
        [ -z "$owner" ] || chown "$owner" "$work/password" "$work/port"
        run "$bin/initdb" -D "$work/data" -U revenuedot --pwfile="$work/password" \
            --auth-local=scram-sha-256 --auth-host=scram-sha-256 -E UTF8 --locale=C.UTF-8 >"$work/initdb.log" 2>&1 \
            || { cat "$work/initdb.log" >&2; exit 1; }
        if [ "${POSTGRES_CLUSTER_SSL:-}" = 1 ]; then
            openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj /CN=revenuedot-test-ca \
                -keyout "$work/ca.key" -out "$work/ca.crt" 2>/dev/null
            openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj /CN=localhost \
                -keyout "$work/server.key" -out "$work/server.csr" 2>/dev/null
            printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\n' > "$work/san.ext"
            openssl x509 -req -in "$work/server.csr" -CA "$work/ca.crt" -CAkey "$work/ca.key" -CAcreateserial -days 2 \
                -extfile "$work/san.ext" -out "$work/server.crt" 2>/dev/null
            chmod 600 "$work/server.key"
            chmod 644 "$work/ca.crt"
            [ -z "$owner" ] || chown "$owner" "$work/server.key" "$work/server.crt"
            touch "$work/ssl"
        fi
    fi
    port=$(cat "$work/port")
    ssl=
    [ ! -e "$work/ssl" ] || ssl="-c ssl=on -c ssl_cert_file=$work/server.crt -c ssl_key_file=$work/server.key"
    # Already running (a second start): its URL, as a start gives it.
    if run "$bin/pg_ctl" -D "$work/data" status >/dev/null 2>&1; then
        echo "postgres://revenuedot:$(cat "$work/password")@127.0.0.1:$port/postgres"
        exit 0
    fi
    run "$bin/pg_ctl" -D "$work/data" -l "$work/postgres.log" -w -t 60 \
        -o "-p $port -k $work -c listen_addresses=127.0.0.1 -c max_connections=200 $ssl ${POSTGRES_CLUSTER_OPTIONS:-}" start >/dev/null \
        || { cat "$work/postgres.log" >&2; exit 1; }
    echo "postgres://revenuedot:$(cat "$work/password")@127.0.0.1:$port/postgres"
    ;;
stop)
    run "$bin/pg_ctl" -D "$work/data" -m fast -w stop >/dev/null
    ;;
destroy)
    run "$bin/pg_ctl" -D "$work/data" -m immediate stop >/dev/null 2>&1 || true
    rm -rf "$work"
    ;;
*)
    echo "usage: $0 start|stop|destroy DIR" >&2
    exit 2
    ;;
esac
