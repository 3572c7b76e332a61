#!/usr/bin/env bash
# `make bench`: notification verification throughput on one core, reported as ratios against
# baselines measured in this same run:
#   - the raw OpenSSL P-256 verify rate (`openssl speed ecdsap256`), whose third is the ceiling
#     for a notification (outer JWS + transaction + renewal info = 3 ES256 verifies);
#   - Apple's official Python library (app-store-server-library, pinned in python/requirements.txt)
#     verifying the same payloads.
# Usage: Benchmarks/run.sh WORK_DIR   (expects release builds of revenuedot-bench and revenuedot)
set -euo pipefail
cd "$(dirname "$0")/.."
work="${1:-.build/bench}"
seconds="${BENCH_SECONDS:-5}"
count="${BENCH_COUNT:-200}"
bench=.build/release/revenuedot-bench
mkdir -p "$work"

# CPU time (user, system; clock ticks) and bytes written of each server thread, one line per
# thread: "name user system written". Linux /proc only. A thread that ends while it is read
# (a Dispatch worker) is left out.
thread_usage() {
    local task name times written
    for task in /proc/"$1"/task/*; do
        name=$(tr ' ' _ < "$task/comm" 2>/dev/null) || continue
        times=$(awk '{print $14, $15}' "$task/stat" 2>/dev/null) || continue
        written=$(awk '/^wchar/ {print $2}' "$task/io" 2>/dev/null) || written=0
        [ -n "$name" ] && [ -n "$times" ] || continue
        printf '%s %s %s\n' "$name" "$times" "${written:-0}"
    done
}

source Benchmarks/serve.sh

# Serves DIR/revenuedot.json, POSTs DIR/payloads.txt once over 16 keep-alive connections, and
# stops the server; sets $run_result (the load's JSON, with the WAL flushes of the run under
# "flushes": Benchmarks/flushes.py) and $run_threads (where the server's CPU went, per notification
# and thread kind, and what each wrote: the figures to move when a ratio falls short).
ingest_run() {
    start_server "$1"
    local before after
    before=$(thread_usage "$server")
    run_result=$("$bench" ingest --port "$port" --app bench --payloads "$1/payloads.txt" --connections 16)
    after=$(thread_usage "$server")
    run_result=$(python3 Benchmarks/flushes.py "$port" "$run_result")
    echo "$run_result" >&2
    run_threads=$(python3 Benchmarks/thread_usage.py "$before" "$after" "$(wc -l < "$1/payloads.txt")" "$(getconf CLK_TCK)")
    echo "server CPU per notification by thread: $run_threads" >&2
    kill -TERM "$server"
    wait "$server"
    # The database as the stopped server left it (its WAL checkpointed into the file at close).
    run_result=$(python3 -c 'import json, sys; r = json.loads(sys.argv[1]); r["database_bytes"] = int(sys.argv[2]); print(json.dumps(r))' \
        "$run_result" "$(stat -c %s "$1/revenuedot.sqlite")")
}

echo "== generating $count signed notifications over a fresh test chain" >&2
"$bench" generate --out "$work" --count "$count"

echo "== RevenueDot verifier, one core (cold = no chain cache, warm = cache primed)" >&2
ours=$(taskset -c 0 "$bench" verify --root "$work/root.pem" --payloads "$work/payloads.txt" --min-seconds "$seconds")
echo "$ours" >&2

echo "== openssl speed ecdsap256, one core" >&2
speed=$(taskset -c 0 openssl speed -seconds "$seconds" ecdsap256 2>/dev/null | awk '/nistp256/ {print $NF}')
echo "P-256 verify/s: $speed" >&2

echo "== Apple's Python library (app-store-server-library), one core" >&2
Benchmarks/python/make_venv.sh "$work/venv" >&2
apple=$(taskset -c 0 "$work/venv/bin/python" Benchmarks/python/apple_verify_bench.py --root "$work/root.pem" \
    --bundle-id com.example.app --app-apple-id 1234 --environment Sandbox \
    --payloads "$work/payloads.txt" --min-seconds "$seconds")
echo "$apple" >&2

echo "== revenuedot verify --lines, both cores (end to end: read, verify, print JSON)" >&2
lines=$( { for _ in 1 2 3 4 5 6 7 8 9 10; do cat "$work/payloads.txt"; done; } > "$work/lines.txt"; \
    start=$(date +%s.%N); .build/release/revenuedot verify --root-cert "$work/root.pem" --bundle-id com.example.app \
    --environment Sandbox --lines "$work/lines.txt" > /dev/null; end=$(date +%s.%N); \
    echo "$(wc -l < "$work/lines.txt") $start $end" | awk '{printf "%.0f", $1 / ($3 - $2)}')
echo "notifications/s: $lines" >&2

ingest_count="${BENCH_INGEST_COUNT:-12000}"
echo "== ingest: $ingest_count unique notifications signed before timing" >&2
mkdir -p "$work/ingest"
"$bench" generate --out "$work/ingest" --count "$ingest_count"
cat > "$work/ingest/revenuedot.json" <<JSON
{
  "listen": "127.0.0.1:0",
  "database": "sqlite:revenuedot.sqlite",
  "apps": [{"id": "bench", "bundleId": "com.example.app", "appAppleId": 1234, "environments": ["Sandbox"],
            "rootCertificates": ["root.pem"]}]
}
JSON
# Five rounds (BENCH_INGEST_ROUNDS), each the ingest of the payloads into a fresh database between
# two bulk verifies of them; the round with the median ratio is reported. The host's speed drifts
# within seconds on this 2-core VM (bulk verify alone from 3,000 to 6,200/s within one run), so a
# round's bulk rate is that of the verifies just before and just after its ingest, taken together
# (both notifications over both times): a drift during the round moves both sides of its ratio.
# Each verify between two rounds serves both.
rounds_count="${BENCH_INGEST_ROUNDS:-5}"
ingest_rounds=""
# Sets bulk_wall, bulk_cpu (seconds), bulk_busy and bulk_steal (percent) of one bulk verify.
bulk_verify() {
    read -r bulk_wall bulk_cpu bulk_busy bulk_steal < <(python3 Benchmarks/timed.py .build/release/revenuedot verify \
        --root-cert "$work/ingest/root.pem" --bundle-id com.example.app --environment Sandbox \
        --lines "$work/ingest/payloads.txt")
    echo "bulk verify --lines of the same payloads, notifications/s: $(awk -v n="$ingest_count" -v s="$bulk_wall" \
        'BEGIN {printf "%.0f", n / s}') (cores busy $bulk_busy%, steal $bulk_steal%)" >&2
}
bulk_verify
before="$bulk_wall $bulk_cpu $bulk_busy $bulk_steal"
for round in $(seq 1 "$rounds_count"); do
    echo "round $round" >&2
    rm -f "$work/ingest/revenuedot.sqlite"*
    ingest_run "$work/ingest"
    bulk_verify
    after="$bulk_wall $bulk_cpu $bulk_busy $bulk_steal"
    ingest_rounds="$ingest_rounds$(python3 - "$before" "$after" "$ingest_count" "$run_result" "$run_threads" <<'PY'
import json, sys
(wall1, cpu1, busy1, steal1), (wall2, cpu2, busy2, steal2) = (map(float, side.split()) for side in sys.argv[1:3])
n = int(sys.argv[3])
print(json.dumps({"bulk": round(2 * n / (wall1 + wall2)), "bulk_sides": [round(n / wall1), round(n / wall2)],
                  "bulk_cpu_us": (cpu1 + cpu2) * 1e6 / (2 * n),
                  "bulk_busy": round((busy1 * wall1 + busy2 * wall2) / (wall1 + wall2), 1),
                  "bulk_steal": round((steal1 * wall1 + steal2 * wall2) / (wall1 + wall2), 1),
                  "ingest": json.loads(sys.argv[4]), "threads": json.loads(sys.argv[5])}))
PY
)"$'\n'
    before="$after"
done
mapfile -t median < <(python3 - "$ingest_rounds" <<'PY'
import json, sys
rounds = sorted((json.loads(l) for l in sys.argv[1].splitlines() if l.strip()),
                key=lambda r: r["ingest"]["requests_per_second"] / r["bulk"])
middle = rounds[len(rounds) // 2]
print(middle["bulk"]); print(json.dumps(middle["ingest"])); print(json.dumps(middle["threads"]))
print(", ".join(f'{r["ingest"]["requests_per_second"] / r["bulk"]:.2f}x'
                + f' (stalls {r["ingest"]["flushes"]["stalled_seconds"]:.2f} s)'
                for r in rounds))
print(middle["bulk_cpu_us"])
print(middle["bulk_busy"]); print(middle["bulk_steal"])
# Each side's own spread over the run: which of the two moved the ratios.
ingests = [r["ingest"]["requests_per_second"] for r in rounds]
bulks = {rate for r in rounds for rate in r["bulk_sides"]}
print(f"ingest rounds {min(ingests):,}-{max(ingests):,}/s; bulk verifies {min(bulks):,}-{max(bulks):,}/s")
PY
)
bulk=${median[0]}
ingest=${median[1]}
ingest_threads=${median[2]}
ingest_spread=${median[3]}
bulk_cpu_us=${median[4]}
bulk_busy=${median[5]}
bulk_steal=${median[6]}
sides_spread=${median[7]}

subscriptions="${BENCH_SUBSCRIPTIONS:-500}"
echo "== ingest again: $ingest_count notifications about $subscriptions subscriptions, in signed-date order" >&2
mkdir -p "$work/repeat"
"$bench" generate --out "$work/repeat" --count "$ingest_count" --subscriptions "$subscriptions"
rm -f "$work/repeat/revenuedot.sqlite"*
cp "$work/ingest/revenuedot.json" "$work/repeat/revenuedot.json"
ingest_run "$work/repeat"
repeat=$run_result
repeat_threads=$run_threads

# The production setup a team configures: new purchases tracked, entitlements, a webhook to a
# receiver that answers at once; the same unique notifications over 16 connections. Three
# rounds (BENCH_PRODUCTION_ROUNDS), each against the bulk verifies just before and after it, as
# above; the round with the median ratio is reported, with the writer's time per phase
# (REVENUEDOT_WRITE_PROFILE, which costs the writer about 1 µs a notification).
echo "== production setup: the same $ingest_count notifications, tracking, entitlements, a webhook per event" >&2
production_rounds=""
bulk_verify
before="$bulk_wall"
for round in $(seq 1 "${BENCH_PRODUCTION_ROUNDS:-3}"); do
    echo "round $round" >&2
    webhooks=$("$bench" webhooks --dir "$work/ingest" --revenuedot .build/release/revenuedot --connections 16)
    echo "$webhooks" >&2
    bulk_verify
    production_rounds="$production_rounds$(python3 -c 'import json, sys
r = json.loads(sys.argv[1]); r["bulk"] = round(2 * int(sys.argv[4]) / (float(sys.argv[2]) + float(sys.argv[3])))
print(json.dumps(r))' "$webhooks" "$before" "$bulk_wall" "$ingest_count")"$'\n'
    before="$bulk_wall"
done
webhooks=$(python3 - "$production_rounds" <<'PY'
import json, sys
rounds = sorted((json.loads(l) for l in sys.argv[1].splitlines() if l.strip()),
                key=lambda r: r["ingest"]["requests_per_second"] / r["bulk"])
middle = rounds[len(rounds) // 2]
middle["ratios"] = [round(r["ingest"]["requests_per_second"] / r["bulk"], 2) for r in rounds]
print(json.dumps(middle))
PY
)

echo "== PostgreSQL: the same $ingest_count notifications, one node and two nodes on a throwaway cluster" >&2
postgres=$(Benchmarks/postgres.sh "$work/ingest" "$work/postgres" "$bench")
echo "$postgres" >&2

echo "== history: ingest with ${BENCH_HISTORY:-1000000} notifications already stored, against an empty database, both engines" >&2
history=$(Benchmarks/history.sh "$work/ingest" "$work/history" "$bench")
echo "$history" >&2

echo "== stored payload bytes: zstd frames with a dictionary of recent payloads, against zstd and zlib without" >&2
compression=$(python3 Benchmarks/compression.py "$work/ingest/payloads.txt" "$work/ingest/webhooks.sqlite")
echo "$compression" >&2

echo "== backfill: the same $ingest_count notifications, listed by a local App Store Server API as undelivered" >&2
backfill=$("$bench" backfill --dir "$work/ingest" --revenuedot .build/release/revenuedot)
echo "$backfill" >&2

echo "== import: ${BENCH_IMPORT_COUNT:-2000} subscriptions from a local App Store Server API (no rate limit)" >&2
imported=$("$bench" import --dir "$work/ingest" --revenuedot .build/release/revenuedot --count "${BENCH_IMPORT_COUNT:-2000}")
echo "$imported" >&2

customers="${BENCH_CUSTOMERS:-100000}"
reads="${BENCH_READS:-50000}"
echo "== subscribers: $customers customers, each linked by a posted StoreKit 2 transaction" >&2
mkdir -p "$work/subscribers"
[ -s "$work/subscribers/transactions.txt" ] && [ "$(wc -l < "$work/subscribers/transactions.txt")" = "$customers" ] \
    || "$bench" customers --out "$work/subscribers" --count "$customers"
rm -f "$work/subscribers/revenuedot.sqlite"*
cat > "$work/subscribers/revenuedot.json" <<JSON
{
  "listen": "127.0.0.1:0",
  "database": "sqlite:revenuedot.sqlite",
  "apps": [{"id": "bench", "bundleId": "com.example.app", "appAppleId": 1234, "environments": ["Sandbox"],
            "rootCertificates": ["root.pem"], "secretApiKey": "sk_bench", "publicApiKey": "pk_bench",
            "entitlements": {"pro": ["pro.monthly", "pro.yearly"]}}]
}
JSON
start_server "$work/subscribers"
seed=$("$bench" link --port "$port" --transactions "$work/subscribers/transactions.txt" --key pk_bench)
echo "seeding: $seed" >&2
# Warm both paths once, then alternate health and subscribers three times; the median round of
# each is reported (machine noise moves single rounds by ±20%, and a best-of favours lucky windows).
"$bench" get --port "$port" --path /health --requests 5000 > /dev/null
"$bench" get --port "$port" --transactions "$work/subscribers/transactions.txt" --key sk_bench --requests 5000 > /dev/null
health=""; subscribers=""
for _ in 1 2 3; do
    health="$health$("$bench" get --port "$port" --path /health --requests "$reads")"$'\n'
    subscribers="$subscribers$("$bench" get --port "$port" --transactions "$work/subscribers/transactions.txt" \
        --key sk_bench --requests "$reads")"$'\n'
done
echo "$health$subscribers" >&2
kill -TERM "$server"
wait "$server"

python3 - "$ours" "$speed" "$apple" "$lines" "$bulk" "$ingest" "$health" "$subscribers" "$seed" "$customers" "$webhooks" "$ingest_threads" "$repeat" "$repeat_threads" "$subscriptions" "$ingest_spread" "$bulk_cpu_us" "$bulk_busy" "$bulk_steal" "$sides_spread" "$backfill" "$imported" "$compression" "$postgres" "$history" <<'PY'
import json, sys

def print_threads(threads):
    """Server CPU per notification by thread kind, and what each wrote."""
    for thread, use in sorted(threads.items()):
        print(f"  {'server CPU per notification, ' + thread:<42} {use['user_us'] + use['system_us']:>7.0f} us   "
              f"(user {use['user_us']}, system {use['system_us']}; wrote {use['written_kib']} KiB)")

def print_database(run):
    """The size of the database the run left, in all and per notification."""
    size = run["database_bytes"]
    print(f"  {'database file after the run':<42} {size / 2**20:>8.1f} MiB   {size / run['requests']:,.0f} bytes per notification")

ours, speed, apple, lines = json.loads(sys.argv[1]), float(sys.argv[2]), json.loads(sys.argv[3]), float(sys.argv[4])
bulk, ingest = float(sys.argv[5]), json.loads(sys.argv[6])
rounds = lambda text: sorted((json.loads(l) for l in text.splitlines() if l.strip()), key=lambda r: r["requests_per_second"])
median = lambda text: rounds(text)[len(rounds(text)) // 2]
health, subscribers, seed, customers = median(sys.argv[7]), median(sys.argv[8]), json.loads(sys.argv[9]), int(sys.argv[10])
hooks = json.loads(sys.argv[11])
warm, cold = ours["warm_notifications_per_second"], ours["cold_notifications_per_second"]
ceiling = speed / 3
python = apple["notifications_per_second"]
rows = [
    ("OpenSSL P-256 verify/s (openssl speed)", f"{speed:,.0f}", ""),
    ("  ceiling: 3 verifies per notification", f"{ceiling:,.0f}", "1.00"),
    ("Apple Python library, notifications/s", f"{python:,.1f}", ""),
    ("RevenueDot cold (no chain cache)", f"{cold:,.0f}", f"{cold / python:.1f}x Python"),
    ("RevenueDot warm (chain cached)", f"{warm:,.0f}", f"{warm / ceiling:.0%} of ceiling, {warm / python:.1f}x Python"),
    ("revenuedot verify --lines, 2 cores", f"{lines:,.0f}", f"{lines / python:.1f}x Python (1 core)"),
]
print("\nVerification benchmark (notification = outer JWS + transaction + renewal info)")
for name, value, ratio in rows:
    print(f"  {name:<42} {value:>10}   {ratio}")
# A load's failures, with the first one's reason when there was one.
failed = lambda run: f"failures: {run['failures']}" + (f" (first: {run['first_failure']})" if run.get("first_failure") else "")
rate = ingest["requests_per_second"]
print("\nIngest over loopback (revenuedot serve, SQLite, 16 keep-alive connections, unique notifications)")
print(f"  {'bulk revenuedot verify --lines, same payloads':<42} {bulk:>10,.0f}   1.00")
print(f"  {'ingest, notifications/s':<42} {rate:>10,.0f}   {rate / bulk:.2f}x bulk verify")
print(f"  {'latency p50 / p99 (ms)':<42} {ingest['p50_ms']:>5} / {ingest['p99_ms']:<5}   {failed(ingest)}")
print(f"  (the round with the median ratio of {sys.argv[16].count('x')}, each ingest against the bulk verifies just before and after it: {sys.argv[16]})")
print(f"  (each side over the run: {sys.argv[20]})")
backfill = json.loads(sys.argv[21])
backfill_rate = backfill["notifications_per_second"]
print(f"  {'backfill from the App Store Server API, notifications/s':<42} {backfill_rate:>10,.0f}   "
      f"{backfill_rate / rate:.2f}x HTTP ingest ({backfill['pages']} pages of 20, into a fresh database; goal 0.8x)")
imported = json.loads(sys.argv[22])
print(f"  {'import from the App Store Server API, subscriptions/s':<42} {imported['subscriptions_per_second']:>10,.0f}   "
      f"{imported['subscriptions_per_second'] / 50:.1f}x Apple's Production limit of 50 requests/s "
      f"per endpoint (a history page and a status per subscription; Sandbox allows 5)")
# While the disk holds a flush, the answers of its commits wait and, once every connection waits,
# the cores idle: time the ratio loses to the disk, not to RevenueDot's work.
flushes = ingest["flushes"]
print(f"  {'WAL flushes (fdatasync) in that round':<42} {flushes['flushes']:>10,}   {flushes['flush_seconds']:.2f} s in all; "
      f"over 10 ms: {flushes['over_10ms']}, over 100 ms: {flushes['over_100ms']}")
print(f"  {'  stalls: time in flushes over 10 ms':<42} {flushes['stalled_seconds']:>8.2f} s   "
      f"at least {flushes['stalled_percent']}% of the round (the cores wait with the answers)")
ingest_threads = json.loads(sys.argv[12])
print_threads(ingest_threads)
print_database(ingest)
print(f"  {'bench client CPU per request (same cores)':<42} {ingest['client_cpu_us_per_request']:>7.0f} us")
# CPU per notification moves less with host load than throughput: the ratio ingest would reach
# if it kept the cores as busy as bulk verify does.
server_us = sum(use['user_us'] + use['system_us'] for use in ingest_threads.values())
ingest_us = server_us + ingest['client_cpu_us_per_request']
bulk_us = float(sys.argv[17])
print(f"  {'CPU per notification: bulk verify':<42} {bulk_us:>7.0f} us")
print(f"  {'CPU per notification: ingest (server+client)':<42} {ingest_us:>7.0f} us   "
      f"{bulk_us / ingest_us:.2f}x: the ratio at equal use of the cores")
# The other factor of the ratio: how much of the machine each kept busy (idle cores are time spent
# waiting: on the disk's flush, on wake-ups), and what a busy host took away (steal).
print(f"  {'cores busy: bulk verify / ingest':<42} {float(sys.argv[18]):>5.1f}% / {ingest['cores_busy_percent']}%   "
      f"steal {float(sys.argv[19])}% / {ingest['steal_percent']}%")
repeat, repeat_threads, subscriptions = json.loads(sys.argv[13]), json.loads(sys.argv[14]), int(sys.argv[15])
again = repeat["requests_per_second"]
print(f"\nIngest, {repeat['requests']:,} notifications about {subscriptions:,} subscriptions (each purchase's history grows)")
print(f"  {'ingest, notifications/s':<42} {again:>10,.0f}   {again / bulk:.2f}x bulk verify above")
print(f"  {'latency p50 / p99 (ms)':<42} {repeat['p50_ms']:>5} / {repeat['p99_ms']:<5}   {failed(repeat)}")
print_threads(repeat_threads)
print_database(repeat)
hook_ingest, hook_rate = hooks["ingest"]["requests_per_second"], hooks["webhooks_per_second"]
print("\nProduction setup (tracking on, entitlements, a webhook per event; same notifications, 16 connections)")
print(f"  {'bulk revenuedot verify --lines, same payloads':<42} {hooks['bulk']:>10,.0f}   1.00")
print(f"  {'ingest, notifications/s':<42} {hook_ingest:>10,.0f}   {hook_ingest / hooks['bulk']:.2f}x bulk verify   "
      f"(median of {', '.join(f'{r:.2f}x' for r in hooks['ratios'])})")
print(f"  {'latency p50 / p99 (ms)':<42} {hooks['ingest']['p50_ms']:>5} / {hooks['ingest']['p99_ms']:<5}   {failed(hooks['ingest'])}")
print(f"  {hooks['write_profile']}")
packed = json.loads(sys.argv[23])
print("\nStored raw payload per notification (the ingest's payloads; the snapshots are kept either way)")
print(f"  {'signed payload as Apple sends it':<42} {packed['raw_bytes']:>8,} B")
print(f"  {'stored: zstd -3, dictionary of recent payloads':<42} {packed['stored_bytes'] or 0:>8,} B   "
      f"{(packed['stored_bytes'] or 0) / packed['raw_bytes']:.3f}x raw   {packed['compress_us']} us to compress, "
      f"{packed['decompress_us']} us to decompress")
print(f"  {'  every row (the first before a dictionary)':<42} {packed['stored_all_bytes']:>8,} B   "
      f"{packed['rows_with_dictionary']:,} of {packed['rows']:,} rows with a dictionary; "
      f"{packed['dictionaries']} dictionaries, {packed['dictionaries_bytes']:,} B")
print(f"  {'zstd -3 / zlib -6, no dictionary':<42} {packed['zstd_bytes']:>8,} B   "
      f"{packed['zstd_bytes'] / packed['raw_bytes']:.3f}x raw   zlib {packed['zlib_bytes']:,} B, {packed['zlib_compress_us']} us")
postgres = json.loads(sys.argv[24])
print("\nPostgreSQL ingest (same notifications, 16 connections, fresh database; CPU per notification by process)")
print(f"  {'SQLite ingest, notifications/s (median round)':<42} {rate:>10,.0f}   1.00")
for run in (postgres["one"], postgres["two"]):
    print(f"  {str(run['nodes']) + ' node(s) on PostgreSQL (median run)':<42} {run['requests_per_second']:>10,.0f}   "
          f"{run['requests_per_second'] / rate:.2f}x SQLite   nodes {run['nodes_cpu_us']} us, PostgreSQL "
          f"{run['postgres_cpu_us']} us, cores busy {run['cores_busy_percent']}%   {failed(run)}")
for nodes in (1, 2):
    print(f"  {'  ' + str(nodes) + ' node(s), every round':<42} "
          + ", ".join(format(r["requests_per_second"], ",") for r in postgres["runs"] if r["nodes"] == nodes))
print(f"  {'two nodes / one, per round (alternating)':<42} {postgres['ratio']:>10.2f}   median of "
      f"{', '.join(map(str, postgres['ratios']))}; one-node runs {postgres['noise']:.0%} apart (noise)")
postgres_failures = sum(r["failures"] for r in postgres["runs"])
stored = json.loads(sys.argv[25])
print(f"\nIngest with {stored['history']:,} notifications already stored (filled in-process at {stored['fill']['per_second']:,}/s; "
      f"copied to PostgreSQL by migrate-db in {stored['copy_seconds']} s)")
for name in ("sqlite", "postgres"):
    run = stored[name]
    print(f"  {name + ': empty, then history (sets A, B)':<42} {'/'.join(format(r, ',') for r in run['empty'])} -> "
          f"{'/'.join(format(r, ',') for r in run['history'])}   {run['ratio']:.2f}x empty   database "
          f"{stored[name + '_bytes'] / 2**30:.1f} GiB")
print("\nWebhooks (that round: one event per notification, receiver answering at once, ingest running alongside)")
print(f"  {'ingest in the same run, notifications/s':<42} {hook_ingest:>10,.0f}   1.00")
print(f"  {'webhooks delivered/s':<42} {hook_rate:>10,.0f}   {hook_rate / hook_ingest:.2f}x ingest   "
      f"received {hooks['webhooks_received']:,} of {hooks['notifications']:,}")
print(f"  {'answered 200 -> webhook received p50 / p99':<42} {hooks['latency_p50_ms']:>5} / {hooks['latency_p99_ms']} ms   "
      f"max {hooks['latency_max_ms']} ms")
h, g = health["requests_per_second"], subscribers["requests_per_second"]
print(f"\nGET /v1/subscribers over loopback ({customers:,} customers, random ids, 16 keep-alive connections)")
print(f"  {'seeding: POST .../transactions, per second':<42} {seed['requests_per_second']:>10,.0f}   {failed(seed)}")
print(f"  {'GET /health, requests/s':<42} {h:>10,.0f}   1.00   p50 / p99 {health['p50_ms']} / {health['p99_ms']} ms"
      + (f"   {failed(health)}" if health["failures"] else ""))
print(f"  {'GET /v1/subscribers/{id}, requests/s':<42} {g:>10,.0f}   {g / h if h else 0:.2f}x health   p50 / p99 {subscribers['p50_ms']} / {subscribers['p99_ms']} ms"
      + (f"   {failed(subscribers)}" if subscribers["failures"] else ""))
spread = lambda text: ", ".join(format(r["requests_per_second"], ",") for r in rounds(text))
print(f"  (median of 3 alternating rounds; /health rounds {spread(sys.argv[7])}; /v1/subscribers rounds {spread(sys.argv[8])})")
goals = [("warm >= 2,000/s", warm >= 2000), ("warm >= 60% of OpenSSL ceiling", warm >= 0.6 * ceiling),
         ("warm >= 40x Apple's Python library", warm >= 40 * python),
         ("ingest >= 0.6x bulk verify", rate >= 0.6 * bulk), ("ingest p99 <= 25 ms", ingest["p99_ms"] <= 25),
         ("production setup >= 0.5x bulk verify", hook_ingest >= 0.5 * hooks["bulk"]),
         ("no ingest failures", ingest["failures"] == 0),
         ("subscribers >= 0.5x health", h > 0 and g >= 0.5 * h), ("subscribers p99 <= 5 ms", subscribers["p99_ms"] <= 5),
         ("no seeding or read failures", seed["failures"] + subscribers["failures"] + health["failures"] == 0),
         ("webhooks keep up with ingest (>= 0.95x over the run)", hook_rate >= 0.95 * hook_ingest),
         ("webhook latency p99 <= 1 s", hooks["latency_p99_ms"] <= 1000),
         ("every webhook received", hooks["webhooks_received"] == hooks["notifications"]),
         ("no webhook delivered twice", hooks.get("duplicate_webhooks", 0) == 0),
         ("one PostgreSQL node >= 0.6x SQLite ingest", postgres["one"]["requests_per_second"] >= 0.6 * rate),
         ("no PostgreSQL ingest failures", postgres_failures == 0),
         # The median of the paired rounds; the rounds and the noise are printed above, to judge by.
         ("two PostgreSQL nodes not slower than one", postgres["ratio"] >= 1),
         ("SQLite ingest on the history >= 0.9x empty", stored["sqlite"]["ratio"] >= 0.9),
         ("PostgreSQL ingest on the history >= 0.9x empty", stored["postgres"]["ratio"] >= 0.9)]
print("Goals: " + ", ".join(f"{name}: {'met' if ok else 'NOT met'}" for name, ok in goals))
PY
