#!/usr/bin/env python3
"""What Nsight Systems recorded, in the form compare.ts checks `streamscope profile` against.

usage: nsys_stats.py NSYS.sqlite > NSYS.stats.json

Per stream (device:stream): kernel, copy and memset counts; per kernel name: count and total
duration; per copy kind: count and bytes; NVTX: count of each (name, kind) range or mark; CUDA
runtime and driver API calls by name. Nothing of the environment or command line is read.
"""
import json
import sqlite3
import sys

COPY_KINDS = {1: "copy-htod", 2: "copy-dtoh", 8: "copy-dtod", 10: "copy-ptop", 9: "copy-htoh"}
NVTX_KINDS = {59: "push-pop", 60: "start-end", 34: "mark"}


def main(path):
    db = sqlite3.connect(path)
    tables = {r[0] for r in db.execute("select name from sqlite_master where type='table'")}
    strings = dict(db.execute("select id, value from StringIds")) if "StringIds" in tables else {}
    streams = {}
    kernels = {}
    copies = {}

    def bump(key, kind):
        streams.setdefault(key, {"kernel": 0, "copy": 0, "memset": 0})[kind] += 1

    if "CUPTI_ACTIVITY_KIND_KERNEL" in tables:
        for start, end, dev, stream, name in db.execute(
            "select start, end, deviceId, streamId, demangledName from CUPTI_ACTIVITY_KIND_KERNEL"
        ):
            bump(f"{dev}:{stream}", "kernel")
            k = kernels.setdefault(strings.get(name, str(name)), {"count": 0, "totalNs": 0})
            k["count"] += 1
            k["totalNs"] += end - start
    if "CUPTI_ACTIVITY_KIND_MEMCPY" in tables:
        for dev, stream, kind, nbytes in db.execute(
            "select deviceId, streamId, copyKind, bytes from CUPTI_ACTIVITY_KIND_MEMCPY"
        ):
            bump(f"{dev}:{stream}", "copy")
            c = copies.setdefault(COPY_KINDS.get(kind, f"copy-{kind}"), {"count": 0, "bytes": 0})
            c["count"] += 1
            c["bytes"] += nbytes
    if "CUPTI_ACTIVITY_KIND_MEMSET" in tables:
        for dev, stream in db.execute("select deviceId, streamId from CUPTI_ACTIVITY_KIND_MEMSET"):
            bump(f"{dev}:{stream}", "memset")
    nvtx = {}
    if "NVTX_EVENTS" in tables:
        for kind, text, text_id in db.execute(
            "select eventType, text, textId from NVTX_EVENTS where eventType in (34, 59, 60)"
        ):
            name = text if text is not None else strings.get(text_id, "")
            key = f"{NVTX_KINDS[kind]}|{name}"
            nvtx[key] = nvtx.get(key, 0) + 1
    api = {}
    for table in ("CUPTI_ACTIVITY_KIND_RUNTIME", "CUPTI_ACTIVITY_KIND_DRIVER"):
        if table in tables:
            for name_id, count in db.execute(f"select nameId, count(*) from {table} group by nameId"):
                name = strings.get(name_id, str(name_id)).split("_v")[0]
                api[name] = api.get(name, 0) + count
    json.dump(
        {"streams": streams, "kernels": kernels, "copies": copies, "nvtx": nvtx, "api": api},
        sys.stdout,
        indent=1,
        sort_keys=True,
    )


if __name__ == "__main__":
    main(sys.argv[1])
