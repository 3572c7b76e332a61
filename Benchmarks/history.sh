#!/usr/bin/env bash
# Ingest on a database that already holds a long history, against an empty one, on both engines:
# the cost of a notification must not grow with what is stored. BENCH_HISTORY notifications
# (default 1,000,000) are stored in-process through the store's write path (`revenuedot-bench
# history`: unverified, the bench's real payload bytes) into SQLite, and copied into PostgreSQL
# by `revenuedot migrate-db` (then vacuumed and checkpointed). Then, per engine, four HTTP ingest
# rounds of 16 connections, each into one node with the minimal configuration: set A into an
# empty database, A into the history, set B (other purchases) into another empty database, B
# into the history. Prints one JSON object.
#
# Usage: Benchmarks/history.sh INGEST_DIR WORK_DIR BENCH_BINARY
set -euo pipefail
source Benchmarks/serve.sh
ingest=$1
work=$2
bench=$3
history="${BENCH_HISTORY:-1000000}"
count=$(wc -l < "$ingest/payloads.txt")
rm -rf "$work"
mkdir -p "$work/a" "$work/b"
# Absolute: the configurations below name files in it, and serve resolves them from their own directory.
work=$(cd "$work" && pwd)
cluster="$work/cluster"
# Shared buffers as a production server gets them (PostgreSQL's default, 128 MB, is for a laptop):
# the history's indexes, not its tables, are what every notification reads.
url=$(POSTGRES_CLUSTER_OPTIONS="-c shared_buffers=${BENCH_POSTGRES_SHARED_BUFFERS:-2GB}" \
    scripts/postgres-cluster.sh start "$cluster")
trap 'scripts/postgres-cluster.sh destroy "$cluster"; rm -rf "$work/sqlite"' EXIT

# Set A is the ingest benchmark's payloads; set B the same number about other purchases, over a
# chain of its own. Every node trusts both roots.
cp "$ingest/payloads.txt" "$work/a/payloads.txt"
cp "$ingest/root.pem" "$work/root-a.pem"
"$bench" generate --out "$work/b" --count "$count" --offset 50000000
cp "$work/b/root.pem" "$work/root-b.pem"

# Writes DIR/revenuedot.json for DATABASE (the minimal configuration of the ingest benchmark).
configure() {
    mkdir -p "$1"
    cat > "$1/revenuedot.json" <<JSON
{
  "listen": "127.0.0.1:0",
  "database": "$2",
  "apps": [{"id": "bench", "bundleId": "com.example.app", "appAppleId": 1234, "environments": ["Sandbox"],
            "rootCertificates": ["$work/root-a.pem", "$work/root-b.pem"]}]
}
JSON
    chmod 600 "$1/revenuedot.json"
}

# Ingests set $2 into the node configured in DIR $1; prints notifications per second.
round() {
    start_server "$1"
    local result
    result=$("$bench" ingest --port "$port" --app bench --payloads "$work/$2/payloads.txt" --connections 16)
    kill -TERM "$server"
    wait "$server" || true
    echo "$1 set $2: $result" >&2
    python3 -c 'import json, sys; r = json.loads(sys.argv[1]); assert r["failures"] == 0, r; print(r["requests_per_second"])' "$result"
}

echo "history: $history notifications into SQLite" >&2
configure "$work/sqlite" "sqlite:$work/sqlite/history.sqlite"
fill=$("$bench" history --config "$work/sqlite/revenuedot.json" --payloads "$ingest/payloads.txt" --count "$history")
echo "$fill" >&2
sqlite_bytes=$(stat -c %s "$work/sqlite/history.sqlite")

echo "history: copied into PostgreSQL by migrate-db" >&2
createdb --maintenance-db="$url" history
copy_start=$(date +%s.%N)
.build/release/revenuedot migrate-db --from "sqlite:$work/sqlite/history.sqlite" --to "${url%/postgres}/history" >&2
copy_seconds=$(echo "$copy_start $(date +%s.%N)" | awk '{printf "%.1f", $2 - $1}')
# A history that has been there a while: vacuumed and checkpointed, so that the rounds do not
# share the cores with autovacuum's first pass over a million fresh rows, or with the
# checkpoint that writes them out.
psql "${url%/postgres}/history" -qc "VACUUM ANALYZE" -c "CHECKPOINT" >/dev/null
postgres_bytes=$(psql "$url" -Atc "SELECT pg_database_size('history')")

rates=""
for set in a b; do
    configure "$work/sqlite-empty-$set" "sqlite:$work/sqlite-empty-$set/revenuedot.sqlite"
    rates="$rates sqlite_empty_$set=$(round "$work/sqlite-empty-$set" "$set")"
    rates="$rates sqlite_history_$set=$(round "$work/sqlite" "$set")"
done
for set in a b; do
    createdb --maintenance-db="$url" "empty_$set"
    configure "$work/postgres-empty-$set" "${url%/postgres}/empty_$set"
    rates="$rates postgres_empty_$set=$(round "$work/postgres-empty-$set" "$set")"
    configure "$work/postgres-history" "${url%/postgres}/history"
    rates="$rates postgres_history_$set=$(round "$work/postgres-history" "$set")"
done

python3 - "$history" "$fill" "$copy_seconds" "$sqlite_bytes" "$postgres_bytes" $rates <<'PY'
import json, sys
history, fill, copy_seconds, sqlite_bytes, postgres_bytes = sys.argv[1:6]
rates = dict(pair.split("=") for pair in sys.argv[6:])
def engine(name):
    empty = [int(rates[f"{name}_empty_{s}"]) for s in "ab"]
    full = [int(rates[f"{name}_history_{s}"]) for s in "ab"]
    return {"empty": empty, "history": full, "ratio": round(sum(full) / sum(empty), 2)}
print(json.dumps({"history": int(history), "fill": json.loads(fill), "copy_seconds": float(copy_seconds),
                  "sqlite_bytes": int(sqlite_bytes), "postgres_bytes": int(postgres_bytes),
                  "sqlite": engine("sqlite"), "postgres": engine("postgres")}))
PY
