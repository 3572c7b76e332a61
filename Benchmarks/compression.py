#!/usr/bin/env python3
"""Stored bytes of a notification's raw payload: today's compact form against standard compressors.

Usage: compression.py PAYLOADS DATABASE
  PAYLOADS  the signed payloads, one per line (`revenuedot-bench generate`)
  DATABASE  a database that stored them (the bench's), whose `notifications.compact_payload`
            and `jws_headers` hold today's form

Today's form keeps the payload without its certificate headers (stored once in `jws_headers`)
and without the nested transaction and renewal info (kept anyway as the row's snapshots).
Against it: zstd with a dictionary trained on the first half of the payloads (the `zstd` command,
Debian's `zstd`), measured on the second half; zstd and zlib without a dictionary. Prints one
JSON object.
"""
import json, os, sqlite3, subprocess, sys, tempfile, time, zlib

payloads = [line.rstrip("\n").encode() for line in open(sys.argv[1]) if line.strip()]
database = sqlite3.connect(f"file:{sys.argv[2]}?mode=ro", uri=True)
compact, count = database.execute("SELECT sum(length(compact_payload)), count(*) FROM notifications").fetchone()
headers = database.execute("SELECT coalesce(sum(length(header)), 0) FROM jws_headers").fetchone()[0]
train, test = payloads[: len(payloads) // 2][:2000], payloads[len(payloads) // 2:][:2000]
raw = sum(map(len, test)) / len(test)

with tempfile.TemporaryDirectory() as work:
    for name, group in (("train", train), ("test", test)):
        os.mkdir(f"{work}/{name}")
        for index, payload in enumerate(group):
            with open(f"{work}/{name}/{index}", "wb") as file:
                file.write(payload)
    names = lambda group: [f"{work}/{group}/{index}" for index in range(len(train if group == "train" else test))]
    subprocess.run(["zstd", "-q", "--train", *names("train"), "-o", f"{work}/dict", "--maxdict=65536"], check=True)
    def zstd_bench(*options):
        """Average compressed size and µs per payload to compress and to decompress, from `zstd -b3`."""
        out = subprocess.run(["zstd", "-b3", *options, *names("test")], capture_output=True, text=True)
        line = [l for l in (out.stdout + out.stderr).replace("\r", "\n").splitlines() if "files" in l][-1]
        size = int(line.split("->")[1].split("(")[0])
        speeds = [float(part.split("MB/s")[0].split()[-1]) for part in line.split(",")[1:3]]
        return size / len(test), [raw / (mbps * 1e6) * 1e6 for mbps in speeds]
    dictionary, (dict_in, dict_out) = zstd_bench("-D", f"{work}/dict")
    plain, (plain_in, plain_out) = zstd_bench()
    dictionary_bytes = os.path.getsize(f"{work}/dict")

start = time.perf_counter()
deflated = sum(len(zlib.compress(payload, 6)) for payload in test) / len(test)
zlib_us = (time.perf_counter() - start) / len(test) * 1e6
print(json.dumps({
    "raw_bytes": round(raw), "today_bytes": round(compact / count), "today_headers_bytes": headers,
    "zstd_dictionary_bytes": round(dictionary), "zstd_dictionary_size": dictionary_bytes,
    "zstd_dictionary_compress_us": round(dict_in, 1), "zstd_dictionary_decompress_us": round(dict_out, 1),
    "zstd_bytes": round(plain), "zstd_compress_us": round(plain_in, 1), "zlib_bytes": round(deflated),
    "zlib_compress_us": round(zlib_us, 1),
}))
