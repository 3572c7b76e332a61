"""The WAL flushes of a server's load run, from its /metrics (the storage flush histogram).

Usage: flushes.py PORT LOAD_JSON   (LOAD_JSON: what `revenuedot-bench ingest` printed)
Prints LOAD_JSON with "flushes" added: flushes, flush_seconds (their total), over_10ms and
over_100ms (how many took longer), stalled_seconds (a lower bound of the time spent in flushes over
10 ms: each counts at its bucket's lower edge) and stalled_percent of the load's seconds. While a flush runs,
every answer of the commits it covers waits: with 16 connections all of them soon do, and the
cores idle. The disk's weather, not RevenueDot's work, and worth reading beside a ratio.
"""
import json
import re
import sys
import urllib.request

NAME = "revenuedot_storage_flush_duration_seconds"


def main():
    port, load = int(sys.argv[1]), json.loads(sys.argv[2])
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    text = opener.open(f"http://127.0.0.1:{port}/metrics", timeout=10).read().decode()
    buckets, total, count = [], 0.0, 0
    for line in text.splitlines():
        match = re.fullmatch(NAME + r'_bucket\{le="([^"]+)"\} (\d+)', line)
        if match:
            edge = float("inf") if match.group(1) == "+Inf" else float(match.group(1))
            buckets.append((edge, int(match.group(2))))
        elif line.startswith(NAME + "_sum "):
            total = float(line.split()[1])
        elif line.startswith(NAME + "_count "):
            count = int(line.split()[1])
    cumulative = dict(buckets)

    def over(edge):
        return count - cumulative.get(edge, count)

    stalled, previous_edge, previous_count = 0.0, 0.0, 0
    for edge, cumulative_count in buckets:
        if previous_edge >= 0.01:
            stalled += (cumulative_count - previous_count) * previous_edge
        previous_edge, previous_count = edge, cumulative_count
    load["flushes"] = {"flushes": count, "flush_seconds": round(total, 3), "over_10ms": over(0.01),
                       "over_100ms": over(0.1), "stalled_seconds": round(stalled, 3),
                       "stalled_percent": round(100 * stalled / load["seconds"], 1) if load["seconds"] > 0 else 0}
    print(json.dumps(load))


main()
