#!/usr/bin/env python3
"""Agreement between the executor and Nsight Systems on the same workload.

usage: nsys-agreement.py (OURS.json | NSYS.sqlite) (NSYS.sqlite | OTHER_RUN.json)

OURS.json: `device-main.mjs export-json` of a run the executor timed with CUPTI.
NSYS.sqlite: `nsys export --type sqlite` of the same workload run under nsys (executor timing off).
Checks, per GPU stream: the same ops in the same order (kind and bytes), and every kernel and copy
duration within max(2 us, 2 %) of nsys. Streams are paired by their op sequences: our stream's
ops must be the tail of exactly one nsys stream (nsys also sees setup work before the run).
Given a second executor run (OTHER_RUN.json) instead, the same checks measure the executor's own
run-to-run spread: copies that share PCIe with other copies vary from run to run. Given two nsys
exports, they measure nsys's.
Prints a report; exit status 0 when everything agrees.
"""
import json
import sqlite3
import sys

COPY_KINDS = {1: "copy-htod", 2: "copy-dtoh", 8: "copy-dtod", 10: "copy-ptop", 9: "copy-htoh"}
TIMED_KINDS = {"kernel", "copy-htod", "copy-dtoh", "copy-dtod", "copy-ptop", "copy-htoh"}


def nsys_streams(db_path):
    db = sqlite3.connect(db_path)
    tables = {r[0] for r in db.execute("select name from sqlite_master where type='table'")}
    rows = []
    if "CUPTI_ACTIVITY_KIND_KERNEL" in tables:
        for start, end, dev, ctx, stream in db.execute(
            "select start, end, deviceId, contextId, streamId from CUPTI_ACTIVITY_KIND_KERNEL"
        ):
            rows.append(((dev, ctx, stream), start, end - start, "kernel", 0))
    if "CUPTI_ACTIVITY_KIND_MEMCPY" in tables:
        for start, end, dev, ctx, stream, nbytes, kind in db.execute(
            "select start, end, deviceId, contextId, streamId, bytes, copyKind from CUPTI_ACTIVITY_KIND_MEMCPY"
        ):
            rows.append(((dev, ctx, stream), start, end - start, COPY_KINDS.get(kind, f"copy-{kind}"), nbytes))
    if "CUPTI_ACTIVITY_KIND_MEMSET" in tables:
        for start, end, dev, ctx, stream, nbytes in db.execute(
            "select start, end, deviceId, contextId, streamId, bytes from CUPTI_ACTIVITY_KIND_MEMSET"
        ):
            rows.append(((dev, ctx, stream), start, end - start, "memset", nbytes))
    streams = {}
    for key, start, dur, kind, nbytes in sorted(rows, key=lambda r: r[1]):
        streams.setdefault(key, []).append({"kind": kind, "durNs": dur, "bytes": nbytes, "start": start})
    return streams


def json_streams(path):
    """Another executor run (export-json form), to measure run-to-run spread the same way."""
    other = json.load(open(path))
    return {
        (0, 0, name): [{"kind": o["kind"], "durNs": o["durNs"], "bytes": o["bytes"], "start": o["startNs"]} for o in ops]
        for name, ops in other["streams"].items()
    }


def signature(ops):
    return [(op["kind"], int(op["bytes"])) for op in ops]


def ops_of(ours, name):
    return ours["streams"][name]


def sqlite_as_ours(path):
    """An nsys export read as the first side, to measure nsys's own run-to-run spread."""
    streams = {
        f"{key[2]}": [
            {"kind": o["kind"], "durNs": o["durNs"], "bytes": o["bytes"], "startNs": o["start"], "name": o["kind"]}
            for o in ops
        ]
        for key, ops in nsys_streams(path).items()
    }
    return {"title": f"nsys run {path.rsplit('/', 1)[-1]}", "streams": streams}


def main(ours_path, nsys_path):
    ours = sqlite_as_ours(ours_path) if ours_path.endswith(".sqlite") else json.load(open(ours_path))
    theirs = json_streams(nsys_path) if nsys_path.endswith(".json") else nsys_streams(nsys_path)
    lines = [f"workload: {ours['title']}"]
    ok = True
    worst = {"kernel": (0.0, 0.0), "copy": (0.0, 0.0)}  # max |diff| ns, max relative diff
    compared = 0
    # Streams with the same op sequence (a pipeline's identical chunks) are paired in the order
    # their ops start: our first-starting stream with nsys's first-starting candidate.
    groups = {}
    for name, ops in ours["streams"].items():
        if ops:
            groups.setdefault(tuple(signature(ops)), []).append(name)
    pairs = []
    used = set()
    # Longest op sequences first: a short one (one kernel) is also the tail of longer streams,
    # so it may only take a stream that no longer sequence claimed.
    for sig, names in sorted(groups.items(), key=lambda g: -len(g[0])):
        names.sort(key=lambda n: ours["streams"][n][0]["startNs"])
        cands = [
            k
            for k, t in theirs.items()
            if k not in used and len(t) >= len(sig) and tuple(signature(t)[-len(sig):]) == sig
        ]
        cands.sort(key=lambda k: theirs[k][-len(sig)]["start"])
        if len(cands) < len(names):
            ok = False
            lines.append(f"  streams {', '.join(names)}: {len(ops_of(ours, names[0]))} ops each; only {len(cands)} nsys streams end with that op sequence")
            continue
        # Extra candidates (streams that ran the same ops earlier, in setup) come first.
        chosen = cands[len(cands) - len(names):]
        used.update(chosen)
        pairs.extend(zip(names, chosen))
    for name, key in sorted(pairs):
        ops = ours["streams"][name]
        tail = theirs[key][-len(ops):]
        bad = 0
        for mine, other in zip(ops, tail):
            if mine["kind"] not in TIMED_KINDS:
                continue
            compared += 1
            diff = abs(mine["durNs"] - other["durNs"])
            rel = diff / max(1, other["durNs"])
            group = "kernel" if mine["kind"] == "kernel" else "copy"
            worst[group] = (max(worst[group][0], diff), max(worst[group][1], rel))
            if diff > max(2000, 0.02 * other["durNs"]):
                bad += 1
                if bad <= 3:
                    lines.append(
                        f"  stream {name}: {mine['kind']} {mine['name']}: executor {mine['durNs']} ns, nsys {other['durNs']} ns"
                    )
        ok = ok and bad == 0
        lines.append(
            f"  stream {name} = nsys stream {key[2]} (device {key[0]}): {len(ops)} ops, same order; "
            f"{bad} durations outside max(2 us, 2 %)"
        )
    lines.append(
        f"  compared {compared} kernel/copy durations; worst kernel |diff| {worst['kernel'][0]:.0f} ns "
        f"({100 * worst['kernel'][1]:.2f} %), worst copy |diff| {worst['copy'][0]:.0f} ns ({100 * worst['copy'][1]:.2f} %)"
    )
    lines.append(f"  result: {'AGREE' if ok and compared > 0 else 'DISAGREE'}")
    print("\n".join(lines))
    return 0 if ok and compared > 0 else 1


if __name__ == "__main__":
    if len(sys.argv) != 3:
        print(__doc__)
        sys.exit(2)
    sys.exit(main(sys.argv[1], sys.argv[2]))
