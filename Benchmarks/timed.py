"""Runs a command with its output discarded and prints "WALL CPU": elapsed seconds and the
user plus system CPU seconds it used (all its threads), for rates and CPU per item in run.sh.

Usage: timed.py COMMAND [ARG...]
"""
import resource
import subprocess
import sys
import time

before = resource.getrusage(resource.RUSAGE_CHILDREN)
start = time.monotonic()
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, check=True)
wall = time.monotonic() - start
after = resource.getrusage(resource.RUSAGE_CHILDREN)
cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
print(f"{wall:.6f} {cpu:.6f}")
