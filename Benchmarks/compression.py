#!/usr/bin/env python3
"""Stored bytes of a notification's raw payload: what the store keeps against standard compressors.

Usage: compression.py PAYLOADS DATABASE
  PAYLOADS  the signed payloads, one per line (`revenuedot-bench generate`)
  DATABASE  a database that stored them (the bench's), whose `notifications.payload` holds zstd
            frames made with the dictionary `payload_dictionary` names (`payload_dictionaries`)

Reports the payload bytes of the rows stored with a dictionary (the steady state) and of all
rows, the dictionaries' bytes, the time zstd takes with the newest dictionary (`zstd -b3 -D`,
Debian's `zstd`, on up to 2,000 of the payloads), and zstd and zlib without a dictionary for
reference. Prints one JSON object.
"""
import json, os, sqlite3, subprocess, sys, tempfile, time, zlib

payloads = [line.rstrip("\n").encode() for line in open(sys.argv[1]) if line.strip()]
database = sqlite3.connect(f"file:{sys.argv[2]}?mode=ro", uri=True)
rows, all_bytes = database.execute("SELECT count(*), sum(length(payload)) FROM notifications").fetchone()
with_dictionary, dictionary_rows_bytes = database.execute(
    "SELECT count(*), coalesce(sum(length(payload)), 0) FROM notifications WHERE payload_dictionary IS NOT NULL").fetchone()
dictionaries = database.execute("SELECT id, dictionary FROM payload_dictionaries ORDER BY id").fetchall()
sample = payloads[-2000:]
raw = sum(map(len, sample)) / len(sample)

with tempfile.TemporaryDirectory() as work:
    names = []
    for index, payload in enumerate(sample):
        names.append(f"{work}/{index}")
        with open(names[-1], "wb") as file:
            file.write(payload)
    def zstd_bench(*options):
        """Average compressed size and µs per payload to compress and to decompress, from `zstd -b3`."""
        out = subprocess.run(["zstd", "-b3", *options, *names], capture_output=True, text=True)
        lines = [l for l in (out.stdout + out.stderr).replace("\r", "\n").splitlines() if "files" in l]
        # The final line gives both speeds; progress lines before it give one.
        line = max(lines, key=lambda l: l.count("MB/s"))
        size = int(line.split("->")[1].split("(")[0])
        speeds = [float(part.split("MB/s")[0].split()[-1]) for part in line.split(",")[1:3]]
        return size / len(sample), [raw / (mbps * 1e6) * 1e6 for mbps in speeds]
    timing = [None, None]
    if dictionaries:
        with open(f"{work}/dictionary", "wb") as file:
            file.write(dictionaries[-1][1])
        _, timing = zstd_bench("-D", f"{work}/dictionary")
    plain, _ = zstd_bench()

start = time.perf_counter()
deflated = sum(len(zlib.compress(payload, 6)) for payload in sample) / len(sample)
zlib_us = (time.perf_counter() - start) / len(sample) * 1e6
print(json.dumps({
    "raw_bytes": round(raw), "rows": rows, "rows_with_dictionary": with_dictionary,
    "stored_bytes": round(dictionary_rows_bytes / with_dictionary) if with_dictionary else None,
    "stored_all_bytes": round(all_bytes / rows), "dictionaries": len(dictionaries),
    "dictionaries_bytes": sum(len(d[1]) for d in dictionaries),
    "compress_us": timing[0] and round(timing[0], 1), "decompress_us": timing[1] and round(timing[1], 1),
    "zstd_bytes": round(plain), "zlib_bytes": round(deflated), "zlib_compress_us": round(zlib_us, 1),
}))
