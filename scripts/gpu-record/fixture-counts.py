"""Count what a recorded trace holds, as the file itself says, so importer tests can compare.

kineto JSON (plain or .gz): events per category; kernels, copies (by name), memsets, runtime
and driver calls (by name); the streams of kernels and of all GPU ops; GPU ops whose runtime or
driver call is not in the file (launched before the profiler's window); NCCL kernels; kernels
launched through the driver API (Triton's); ProfilerStep and DataLoader __next__ ranges; launch
flows; distributedInfo; the timestamp form (baseTimeNanoseconds, the first ts as written, its
fraction digits, whether it reads as epoch microseconds). For each ProfilerStep: its duration,
the host time inside DataLoader __next__, and the GPU-busy time (union of kernels, copies and
memsets) inside it.
nsys SQLite (plain or .gz): rows of the kernel, memcpy, memset, runtime and sync tables; NCCL
kernel names; streams.
Usage: fixture-counts.py FILE...   (prints a JSON array, one object per file)
"""
import collections
import gzip
import json
import re
import sqlite3
import sys
import tempfile

GPU_CATS = ("kernel", "gpu_memcpy", "gpu_memset")
TS_TEXT = re.compile(rb'"ts"\s*:\s*(-?[0-9][0-9.eE+-]*)')


def read(path: str) -> bytes:
    with (gzip.open if path.endswith(".gz") else open)(path, "rb") as f:
        return f.read()


def union_us(spans: list) -> float:
    total, end = 0.0, float("-inf")
    for s, e in sorted(spans):
        if e <= end:
            continue
        total += e - max(s, end)
        end = e
    return total


def clip(spans: list, lo: float, hi: float) -> list:
    return [(max(s, lo), min(e, hi)) for s, e in spans if e > lo and s < hi]


def timestamp_form(data: bytes, doc: dict) -> dict:
    texts = [m.group(1).decode() for m in TS_TEXT.finditer(data)]
    frac = max((len(t.split(".")[1]) if "." in t else 0) for t in texts)
    values = [float(t) for t in texts]
    first = min(values)
    return {
        "baseTimeNanoseconds": doc.get("baseTimeNanoseconds"),
        "displayTimeUnit": doc.get("displayTimeUnit"),
        "firstTsText": texts[values.index(first)],
        "maxFractionDigits": frac,
        "tsLooksLikeEpochUs": first > 1e15,
        "spanUs": round(max(values) - first, 3),
    }


def step_table(events: list) -> list:
    gpu = [(e["ts"], e["ts"] + e.get("dur", 0)) for e in events if e.get("cat") in GPU_CATS and e.get("ph") == "X"]
    loader = [
        (e["ts"], e["ts"] + e["dur"])
        for e in events
        if e.get("ph") == "X" and str(e.get("name", "")).startswith("enumerate(DataLoader)")
    ]
    rows = []
    for e in events:
        if e.get("ph") == "X" and e.get("cat") == "user_annotation" and str(e.get("name", "")).startswith("ProfilerStep#"):
            lo, hi = e["ts"], e["ts"] + e["dur"]
            rows.append(
                {
                    "name": e["name"],
                    "durUs": round(e["dur"], 3),
                    "dataLoaderUs": round(union_us(clip(loader, lo, hi)), 3),
                    "gpuBusyUs": round(union_us(clip(gpu, lo, hi)), 3),
                }
            )
    return sorted(rows, key=lambda r: int(r["name"].split("#")[1]))


def kineto(path: str, data: bytes) -> dict:
    doc = json.loads(data)
    events = doc["traceEvents"]
    cats = collections.Counter(str(e.get("cat")) for e in events)
    named = lambda cat: collections.Counter(e["name"] for e in events if e.get("cat") == cat and e.get("ph") == "X")
    kernels = [e for e in events if e.get("cat") == "kernel" and e.get("ph") == "X"]
    driver = {e["args"].get("correlation") for e in events if e.get("cat") == "cuda_driver" and "args" in e}
    launches = driver | {e["args"].get("correlation") for e in events if e.get("cat") == "cuda_runtime" and "args" in e}
    gpu_ops = [e for e in events if e.get("cat") in GPU_CATS and e.get("ph") == "X"]
    return {
        "file": path,
        "events": len(events),
        "timestamps": timestamp_form(data, doc),
        "categories": dict(sorted(cats.items())),
        "kernels": len(kernels),
        "kernelStreams": sorted({e["args"].get("stream") for e in kernels}),
        "ncclKernels": dict(collections.Counter(e["name"] for e in kernels if "nccl" in e["name"].lower() or "oneRank" in e["name"])),
        "kernelsLaunchedByDriver": dict(collections.Counter(e["name"] for e in kernels if e["args"].get("correlation") in driver)),
        "gpuOpsWithoutCall": sum(1 for e in gpu_ops if e["args"].get("correlation") not in launches),
        "gpuOpStreams": sorted({e["args"].get("stream") for e in gpu_ops}),
        "memcpy": dict(named("gpu_memcpy")),
        "memsets": sum(named("gpu_memset").values()),
        "runtimeCalls": sum(named("cuda_runtime").values()),
        "runtimeByName": dict(named("cuda_runtime").most_common()),
        "driverCalls": sum(named("cuda_driver").values()),
        "driverByName": dict(named("cuda_driver").most_common()),
        "launchFlows": sum(1 for e in events if e.get("cat") == "ac2g" and e.get("ph") == "s"),
        "pids": sorted({str(e.get("pid")) for e in events if e.get("ph") == "X"}),
        "profilerSteps": step_table(events),
        "dataLoaderNext": sum(1 for e in events if str(e.get("name", "")).startswith("enumerate(DataLoader)")),
        "distributedInfo": doc.get("distributedInfo"),
    }


def nsys(path: str, data: bytes) -> dict:
    with tempfile.NamedTemporaryFile(suffix=".sqlite") as tmp:
        tmp.write(data)
        tmp.flush()
        db = sqlite3.connect(tmp.name)
        tables = {r[0] for r in db.execute("select name from sqlite_master where type='table'")}
        rows = lambda t: db.execute(f"select count(*) from {t}").fetchone()[0] if t in tables else None
        out = {"file": path}
        for t in ("KERNEL", "MEMCPY", "MEMSET", "RUNTIME", "SYNCHRONIZATION"):
            out[t.lower()] = rows("CUPTI_ACTIVITY_KIND_" + t)
        out["nvtx"] = rows("NVTX_EVENTS")
        if "CUPTI_ACTIVITY_KIND_KERNEL" in tables:
            q = (
                "select s.value, count(*) from CUPTI_ACTIVITY_KIND_KERNEL k join StringIds s"
                " on s.id = k.shortName group by s.value"
            )
            out["ncclKernels"] = {n: c for n, c in db.execute(q) if "nccl" in n.lower() or "oneRank" in n}
            q = "select distinct globalPid / 16777216 % 16777216, streamId from CUPTI_ACTIVITY_KIND_KERNEL"
            out["kernelStreamsByPid"] = sorted(list(r) for r in db.execute(q))
        db.close()
    return out


def main() -> None:
    results = []
    for path in sys.argv[1:]:
        data = read(path)
        results.append(nsys(path, data) if data[:16] == b"SQLite format 3\x00" else kineto(path, data))
    print(json.dumps(results, indent=1))


main()
