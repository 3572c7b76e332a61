# Sourced by the bench scripts (run from the package root, with release builds).

# Serves DIR/revenuedot.json in the background; sets $server (its pid) and $port. The last run's
# log goes first: the shell may truncate it only after the first look below, which then read the
# port of the server before (every request of one run failed, refused).
start_server() {
    rm -f "$1/serve.log"
    # serve refuses a configuration others can read (it may hold keys and secrets).
    chmod 600 "$1/revenuedot.json"
    .build/release/revenuedot serve --config "$1/revenuedot.json" > "$1/serve.log" 2>&1 &
    server=$!
    port=""
    for _ in $(seq 1 100); do
        port=$(grep -o 'listening on http://127.0.0.1:[0-9]*' "$1/serve.log" 2>/dev/null | grep -o '[0-9]*$' || true)
        [ -n "$port" ] && break
        sleep 0.1
    done
    [ -n "$port" ] || { cat "$1/serve.log" >&2; kill "$server"; exit 1; }
}
