#!/usr/bin/env bash
# HTTP ingest on PostgreSQL: the payloads of INGEST_DIR (payloads.txt, root.pem) POSTed over 16
# connections to one `revenuedot serve` node, and to two nodes (connections round-robin), each
# run on a fresh database of a throwaway cluster (scripts/postgres-cluster.sh). Per run,
# notifications/s and CPU microseconds per notification of the nodes and of PostgreSQL (its
# server processes), so that where the time goes on this 2-core box shows.
#
# Rounds (BENCH_POSTGRES_ROUNDS, 5) of one run each, the order alternating (1 then 2 nodes, then
# 2 then 1), since this host's speed drifts by more than the difference measured. Prints one JSON
# object: every run, the median run of each node count, each round's ratio of two nodes to one
# and their median (the goal's figure), and the noise: how far apart the one-node runs, alike in
# everything, came out ((max - min) / median).
#
# Usage: Benchmarks/postgres.sh INGEST_DIR WORK_DIR BENCH_BINARY
set -euo pipefail
source Benchmarks/serve.sh
ingest=$1
work=$2
bench=$3
count=$(wc -l < "$ingest/payloads.txt")
rm -rf "$work"
mkdir -p "$work"
cluster="$work/cluster"
url=$(scripts/postgres-cluster.sh start "$cluster")
trap 'scripts/postgres-cluster.sh destroy "$cluster"' EXIT
postmaster=$(head -1 "$cluster/data/postmaster.pid")

# Microseconds of CPU (user + system) the given processes and their children have used.
cpu_us() {
    python3 - "$(getconf CLK_TCK)" "$@" <<'PY'
import os, sys
ticks, total = int(sys.argv[1]), 0
def stat(pid):
    """The fields after a process's name in /proc/PID/stat; None once it is gone."""
    try:
        return open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    except OSError:
        return None
for parent in sys.argv[2:]:
    children = [p for p in os.listdir("/proc") if p.isdigit() and (stat(p) or [None, None])[1] == parent]
    for fields in filter(None, map(stat, [parent] + children)):
        total += int(fields[11]) + int(fields[12])
print(total * 1_000_000 // ticks)
PY
}

results=""
rounds=${BENCH_POSTGRES_ROUNDS:-5}
[ "$rounds" -ge 1 ] || { echo "BENCH_POSTGRES_ROUNDS must be at least 1" >&2; exit 2; }
for round in $(seq 1 "$rounds"); do
  order="1 2"
  [ $((round % 2)) -eq 1 ] || order="2 1"
  for nodes in $order; do
    database="bench_${round}_$nodes"
    createdb --maintenance-db="$url" "$database"
    ports=()
    servers=()
    for n in $(seq 1 "$nodes"); do
        dir="$work/node$n"
        mkdir -p "$dir"
        cp "$ingest/root.pem" "$dir/"
        cat > "$dir/revenuedot.json" <<JSON
{
  "listen": "127.0.0.1:0",
  "database": "${url%/postgres}/$database",
  "apps": [{"id": "bench", "bundleId": "com.example.app", "appAppleId": 1234, "environments": ["Sandbox"],
            "rootCertificates": ["root.pem"]}]
}
JSON
        start_server "$dir"
        servers+=("$server")
        ports+=("$port")
    done
    nodes_before=$(cpu_us "${servers[@]}")
    postgres_before=$(cpu_us "$postmaster")
    result=$("$bench" ingest --port "$(IFS=,; echo "${ports[*]}")" --app bench --payloads "$ingest/payloads.txt" --connections 16)
    nodes_after=$(cpu_us "${servers[@]}")
    postgres_after=$(cpu_us "$postmaster")
    for server in "${servers[@]}"; do kill -TERM "$server"; wait "$server" || true; done
    # Gone before the next run, so that its vacuum and checkpoints do not weigh on that one.
    dropdb --maintenance-db="$url" "$database"
    echo "round $round, $nodes node(s): $result" >&2
    results="$results$(python3 -c 'import json, sys
r = json.loads(sys.argv[1]); n = int(sys.argv[6])
print(json.dumps({"round": int(sys.argv[8]), "nodes": int(sys.argv[7]), "requests_per_second": r["requests_per_second"],
  "failures": r["failures"], "p50_ms": r["p50_ms"], "p99_ms": r["p99_ms"], "cores_busy_percent": r.get("cores_busy_percent"),
  "nodes_cpu_us": round((int(sys.argv[3]) - int(sys.argv[2])) / n),
  "postgres_cpu_us": round((int(sys.argv[5]) - int(sys.argv[4])) / n)}))' \
        "$result" "$nodes_before" "$nodes_after" "$postgres_before" "$postgres_after" "$count" "$nodes" "$round")"$'\n'
  done
done
python3 - "$results" <<'PY'
import json, statistics, sys
runs = [json.loads(line) for line in sys.argv[1].splitlines() if line.strip()]
def median_run(nodes):
    """The median run (of an even count, the upper of the middle two)."""
    chosen = sorted((r for r in runs if r["nodes"] == nodes), key=lambda r: r["requests_per_second"])
    return chosen[len(chosen) // 2]
rate = {(r["round"], r["nodes"]): r["requests_per_second"] for r in runs}
ratios = [round(rate[(k, 2)] / rate[(k, 1)], 2) for k in sorted({r["round"] for r in runs})]
one = [r["requests_per_second"] for r in runs if r["nodes"] == 1]
print(json.dumps({"runs": runs, "one": median_run(1), "two": median_run(2), "ratios": ratios,
                  "ratio": statistics.median(ratios), "noise": round((max(one) - min(one)) / statistics.median(one), 2)}))
PY
