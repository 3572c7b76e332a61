"""Per-thread CPU and bytes written per notification, from two `thread_usage` snapshots (run.sh).

Usage: thread_usage.py BEFORE AFTER COUNT CLK_TCK  (BEFORE/AFTER: lines "name user system written")
Prints a JSON object: thread name -> user_us, system_us, written_kib per notification.
"""
import collections
import json
import sys


def load(text):
    totals = collections.defaultdict(lambda: [0, 0, 0])
    for line in text.splitlines():
        name, user, system, written = line.split()
        for index, value in enumerate((user, system, written)):
            totals[name][index] += int(value)
    return totals


before, after = load(sys.argv[1]), load(sys.argv[2])
count, tick = int(sys.argv[3]), int(sys.argv[4])
result = {}
for name, (user, system, written) in after.items():
    was = before.get(name, [0, 0, 0])
    used = [(user - was[0]) * 1e6 / tick / count, (system - was[1]) * 1e6 / tick / count]
    if used[0] + used[1] >= 1:
        result[name] = {
            "user_us": round(used[0], 1),
            "system_us": round(used[1], 1),
            "written_kib": round((written - was[2]) / 1024 / count, 1),
        }
print(json.dumps(result))
