"""Runs a command with its output discarded and prints "WALL CPU BUSY STEAL": elapsed seconds, the
user plus system CPU seconds it used (all its threads), and the percent of the machine's cores that
were busy meanwhile and that the host took away as steal (/proc/stat; -1 without it), for rates,
CPU per item and the use of the cores in run.sh.

Usage: timed.py COMMAND [ARG...]
"""
import resource
import subprocess
import sys
import time


def machine():
    """(idle incl. iowait, steal, total) clock ticks of all cores, or None without /proc/stat."""
    try:
        with open("/proc/stat") as stat:
            fields = stat.readline().split()
    except OSError:
        return None
    if not fields or fields[0] != "cpu" or len(fields) < 9:
        return None
    ticks = [int(value) for value in fields[1:9]]
    return ticks[3] + ticks[4], ticks[7], sum(ticks)


def shares(before, after):
    """Percent busy (neither idle, waiting for I/O nor stolen) and stolen between two readings."""
    if before is None or after is None or after[2] <= before[2]:
        return -1, -1
    total = after[2] - before[2]
    idle, steal = after[0] - before[0], after[1] - before[1]
    return round(100 * (total - idle - steal) / total, 1), round(100 * steal / total, 1)


before = resource.getrusage(resource.RUSAGE_CHILDREN)
machine_before = machine()
start = time.monotonic()
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, check=True)
wall = time.monotonic() - start
busy, steal = shares(machine_before, machine())
after = resource.getrusage(resource.RUSAGE_CHILDREN)
cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
print(f"{wall:.6f} {cpu:.6f} {busy} {steal}")
