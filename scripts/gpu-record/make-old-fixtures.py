#!/usr/bin/env python3
"""Writes the small hand-made fixtures for layouts and schemas that the GPU machine's nsys
2025.3.1 cannot produce, following ../shared/research/nsys-formats.md (§1.2 layouts A and C,
§2.1–2.2 schemas before 2021 and from 2026) and the kineto notes (§4), plus broken inputs, and
a two-rank, two-GPU job (fixtures/nsys/handmade/) that the GPU machine's single GPU cannot record.
Run from the project root: python3 scripts/gpu-record/make-old-fixtures.py
"""
import gzip, json, os, sqlite3

OUT = "fixtures"
VM = 1 << 48


def gpid(pid):
    return VM + (pid << 24)


def gtid(pid, tid):
    return gpid(pid) + tid


def line(obj):
    return json.dumps(obj, separators=(",", ":"))


def cuda(type_, start, end, corr, pid, stream, sub_key, sub, device=0, context=1):
    return {"Type": type_, "CudaEvent": {"startNs": str(start), "endNs": str(end), "correlationId": corr,
            "deviceId": device, "contextId": str(context), "streamId": str(stream), "globalPid": str(gpid(pid)),
            sub_key: sub}}


def api(start, end, corr, pid, tid, name, event_class=0):
    return {"Type": 48, "TraceProcessEvent": {"startNs": str(start), "endNs": str(end), "correlationId": corr,
            "eventClass": event_class, "name": str(name), "returnValue32": 0, "globalTid": str(gtid(pid, tid))}}


def kernel(name):
    return {"demangledName": str(name), "shortName": str(name), "gridX": 4, "gridY": 1, "gridZ": 1, "blockX": 128,
            "blockY": 1, "blockZ": 1, "staticSharedMemory": 0, "dynamicSharedMemory": 1024, "registersPerThread": 32}


# Strings shared by the JSON layouts: index = position.
STRINGS = ["", "cudaLaunchKernel_v7000", "cudaMemcpyAsync_v3020", "saxpy(float*, float*)", "reduce_kernel",
           "cudaEventRecord_v3020", "cudaStreamWaitEvent_v3020", "python3", "worker", "my-domain", "registered range",
           "cudaMemset_v3020", "/opt/nvidia/nsight-systems/2021.3.1/target-linux-x64/libToolsInjection64.so"]


def events_two_processes():
    """Two processes that reuse correlation ids 10 and 11; an event id recorded twice; orphans."""
    ev = []
    for pid, base in ((1001, 0), (1002, 100000)):
        ev.append(api(base + 1000, base + 1400, 10, pid, pid, 1))
        ev.append(cuda(79, base + 2000, base + 9000, 10, pid, 7, "kernel", kernel(3)))
        ev.append(api(base + 1500, base + 1700, 11, pid, pid, 2))
        ev.append(cuda(80, base + 9100, base + 12000, 11, pid, 13, "memcpy",
                       {"sizebytes": "4096", "copyKind": "1", "srcKind": 1, "dstKind": 2}))
    # Event 5 recorded on stream 13, waited on by stream 14, then recorded again and waited again.
    ev.append(api(20000, 20100, 20, 1001, 1001, 5))
    ev.append(cuda(127, 0, 0, 20, 1001, 13, "cudaEventRecord", {"eventId": 5}))
    ev.append(api(20200, 20300, 21, 1001, 1001, 6))
    ev.append(cuda(106, 21000, 23000, 21, 1001, 14, "sync", {"eventId": 5, "syncType": "SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT"}))
    ev.append(api(24000, 24100, 22, 1001, 1001, 5))
    ev.append(cuda(127, 0, 0, 22, 1001, 13, "cudaEventRecord", {"eventId": 5}))
    ev.append(api(24200, 24300, 23, 1001, 1001, 6))
    ev.append(cuda(106, 25000, 26000, 23, 1001, 14, "sync", {"eventId": 5, "syncType": "SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT"}))
    # A synchronous memset (cudaMemset) and a peer copy on a second device.
    ev.append(api(27000, 29500, 24, 1001, 1001, 11))
    ev.append(cuda(80, 28000, 29000, 24, 1001, 7, "memset", {"sizebytes": "1048576", "value": 0, "memKind": 2}))
    ev.append(cuda(80, 30000, 31000, 25, 1001, 21, "memcpy", {"sizebytes": "65536", "copyKind": "10", "srcKind": 2, "dstKind": 2}, device=1, context=2))
    # A kernel without an API call (graph replay / time-sliced trace), launched by a driver call elsewhere.
    ev.append(cuda(79, 32000, 33000, 999, 1001, 7, "kernel", kernel(4)))
    # NVTX: push/pop with a registered string, start/end across threads, a mark, a domain, an open range.
    ev.append({"Type": 75, "NvtxEvent": {"Type": 75, "Timestamp": "500", "Text": "my-domain", "GlobalTid": str(gtid(1001, 1001)), "DomainId": "3"}})
    ev.append({"Type": 59, "NvtxEvent": {"Type": 59, "Timestamp": "900", "EndTimestamp": "30000", "TextId": "10", "GlobalTid": str(gtid(1001, 1001)), "DomainId": "3"}})
    ev.append({"Type": 59, "NvtxEvent": {"Type": 59, "Timestamp": "1000", "EndTimestamp": "2000", "Text": "inner", "GlobalTid": str(gtid(1001, 1001)), "DomainId": "0"}})
    ev.append({"Type": 60, "NvtxEvent": {"Type": 60, "Timestamp": "3000", "EndTimestamp": "26000", "Text": "async work", "GlobalTid": str(gtid(1001, 1003)), "DomainId": "0"}})
    ev.append({"Type": 34, "NvtxEvent": {"Type": 34, "Timestamp": "4000", "Text": "checkpoint", "GlobalTid": str(gtid(1001, 1001)), "DomainId": "0"}})
    ev.append({"Type": 59, "NvtxEvent": {"Type": 59, "Timestamp": "5000", "Text": "never popped", "GlobalTid": str(gtid(1002, 1002))}})
    # Process names (CommEvent) with command-line Args that must never reach the trace.
    ev.append({"Type": 27, "CommEvent": {"Timestamp": "0", "GlobalPid": str(gpid(1001)), "Command": "python3", "Args": ["--token", "SECRET-TOKEN"], "NsTime": True}})
    ev.append({"Type": 27, "CommEvent": {"Timestamp": "0", "GlobalPid": str(gpid(1002)), "Commname": "worker", "NsTime": True}})
    return ev


THREADS = [{"nameIdx": "7", "priority": "10", "globalTid": str(gtid(1001, 1001))},
           {"nameIdx": "8", "priority": "10", "globalTid": str(gtid(1002, 1002))}]


def write_json_layouts():
    d = f"{OUT}/nsys/older"
    ev = events_two_processes()
    # Layout A (exporter docs 2020–2021.5): events, then strings, then stdout/stderr streams, then threads.
    with open(f"{d}/layout-a-2021.json", "w") as f:
        for e in ev:
            f.write(line(e) + "\n")
        f.write(line({"data": STRINGS}) + "\n")
        f.write(line({"data": [{"FileName": 1, "Content": "SECRET=environment"}]}) + "\n")
        f.write(line({"data": THREADS}) + "\n")
    # Layout C (--separate-strings): one record per string and per thread name, events unchanged.
    with open(f"{d}/layout-c-separate-strings.json", "w") as f:
        for i, s in enumerate(STRINGS):
            f.write(line({"type": "String", "id": str(i), "value": s}) + "\n")
        for t in THREADS:
            f.write(line({"type": "ThreadName", "globalTid": t["globalTid"], "nameId": t["nameIdx"], "priority": t["priority"]}) + "\n")
        for e in ev:
            f.write(line(e) + "\n")


def create(db, table, cols, rows):
    db.execute(f'create table "{table}" ({", ".join(cols)})')
    if rows:
        db.executemany(f'insert into "{table}" values ({", ".join("?" * len(cols))})', rows)


# Strings only the pre-2021 SQLite has (its sync rows of every kind), after the shared ones.
OLD_SYNC_STRINGS = ["cudaEventSynchronize_v3020", "cudaDeviceSynchronize_v3020"]


def write_sqlite(path, new):
    if os.path.exists(path):
        os.remove(path)
    db = sqlite3.connect(path)
    create(db, "StringIds", ["id", "value"], list(enumerate(STRINGS + ([] if new else OLD_SYNC_STRINGS))))
    kcols = ["start", "end", "deviceId", "contextId", "streamId", "correlationId", "globalPid", "demangledName",
             "shortName", "gridX", "gridY", "gridZ", "blockX", "blockY", "blockZ", "staticSharedMemory",
             "dynamicSharedMemory", "registersPerThread"] + (["mangledName", "graphId", "greenContextId", "graphNodeId"] if new else [])
    krows = []
    for pid, base in ((1001, 0), (1002, 100000)):
        krows.append([base + 2000, base + 9000, 0, 1, 7, 10, gpid(pid), 3, 3, 4, 1, 1, 128, 1, 1, 0, 1024, 32] + ([3, 0, 0, None] if new else []))
    krows.append([32000, 33000, 0, 1, 7, 999, gpid(1001), 4, 4, 1, 1, 1, 32, 1, 1, 0, 0, 16] + ([4, 0, 0, None] if new else []))
    if new:  # a graph launched with --cuda-graph-trace=node: its kernels share the launch's correlation id
        for n in range(2):
            krows.append([60000 + n * 3000, 62000 + n * 3000, 0, 1, 7, 32, gpid(1001), 4, 4, 1, 1, 1, 32, 1, 1, 0, 0, 16, 4, 1, 0, 100 + n])
    create(db, "CUPTI_ACTIVITY_KIND_KERNEL", kcols, krows)
    mcols = ["start", "end", "deviceId", "contextId", "streamId", "correlationId", "globalPid", "bytes", "copyKind", "srcKind", "dstKind"]
    create(db, "CUPTI_ACTIVITY_KIND_MEMCPY", mcols, [
        [9100, 12000, 0, 1, 13, 11, gpid(1001), 4096, 1, 1, 2],
        [109100, 112000, 0, 1, 13, 11, gpid(1002), 4096, 1, 1, 2],
        [30000, 31000, 1, 2, 21, 25, gpid(1001), 65536, 10, 2, 2]])
    create(db, "CUPTI_ACTIVITY_KIND_MEMSET", ["start", "end", "deviceId", "contextId", "streamId", "correlationId", "globalPid", "value", "bytes", "memKind"],
           [[28000, 29000, 0, 1, 7, 24, gpid(1001), 0, 1048576, 2]])
    scols = ["start", "end", "deviceId", "contextId", "streamId", "correlationId", "globalPid", "syncType", "eventId"] + (["eventSyncId"] if new else [])
    create(db, "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", scols, [
        [21000, 23000, 0, 1, 14, 21, gpid(1001), 2, 5] + ([1] if new else []),
        [25000, 26000, 0, 1, 14, 23, gpid(1001), 2, 5] + ([2] if new else []),
        # stream synchronize: syncType 3 in 2022.4 / 2026 exports
        [34000, 35000, 0, 1, 7, 26, gpid(1001), 3, 0xFFFFFFFF] + ([0xFFFFFFFF] if new else [])]
        # CUPTI's numbering (CUpti_ActivitySynchronizationType), the only one documented for schemas
        # without ENUM tables: 1 event synchronize (no stream), 4 context synchronize (no stream, no
        # event), and an event synchronize whose type CUPTI left at 0 (UNKNOWN).
        + ([] if new else [
            [36100, 37100, 0, 1, 0xFFFFFFFF, 27, gpid(1001), 1, 5],
            [38100, 39100, 0, 1, 0xFFFFFFFF, 28, gpid(1001), 4, 0xFFFFFFFF],
            [40100, 40500, 0, 1, 0xFFFFFFFF, 29, gpid(1001), 0, 5]]))
    rcols = ["start", "end", "globalTid", "correlationId", "nameId"] + (["eventClass", "returnValue", "callchainId"] if new else [])
    extra = lambda c: ([c, 0, None] if new else [])
    create(db, "CUPTI_ACTIVITY_KIND_RUNTIME", rcols, [
        [1000, 1400, gtid(1001, 1001), 10, 1] + extra(0), [1500, 1700, gtid(1001, 1001), 11, 2] + extra(0),
        [101000, 101400, gtid(1002, 1002), 10, 1] + extra(0), [101500, 101700, gtid(1002, 1002), 11, 2] + extra(0),
        [20000, 20100, gtid(1001, 1001), 20, 5] + extra(0), [20200, 20300, gtid(1001, 1001), 21, 6] + extra(0),
        [24000, 24100, gtid(1001, 1001), 22, 5] + extra(0), [24200, 24300, gtid(1001, 1001), 23, 6] + extra(0),
        [27000, 29500, gtid(1001, 1001), 24, 11] + extra(0), [33900, 35100, gtid(1001, 1001), 26, 6] + extra(0)]
        + ([[59000, 59500, gtid(1001, 1001), 32, 1, 0, 0, None]] if new else [
            [36000, 37200, gtid(1001, 1001), 27, 13], [38000, 39200, gtid(1001, 1001), 28, 14],
            [40000, 40600, gtid(1001, 1001), 29, 13]]))
    ncols = ["start", "end", "eventType", "text", "globalTid", "endGlobalTid", "textId", "domainId"]
    create(db, "NVTX_EVENTS", ncols, [
        [500, None, 75, "my-domain", gtid(1001, 1001), None, None, 3],
        [900, 30000, 59, None, gtid(1001, 1001), None, 10, 3],
        [1000, 2000, 59, "inner", gtid(1001, 1001), None, None, 0],
        [3000, 26000, 60, "async work", gtid(1001, 1003), gtid(1001, 1001), None, 0],
        [4000, None, 34, "checkpoint", gtid(1001, 1001), None, None, 0],
        [5000, None, 59, "never popped", gtid(1002, 1002), None, None, 0]])
    create(db, "ThreadNames", ["nameId", "priority", "globalTid"], [[7, 10, gtid(1001, 1001)], [8, 10, gtid(1002, 1002)]])
    if new:
        create(db, "CUPTI_ACTIVITY_KIND_CUDA_EVENT", ["deviceId", "contextId", "streamId", "correlationId", "globalPid", "eventId", "eventSyncId"],
               [[0, 1, 13, 20, gpid(1001), 5, 1], [0, 1, 13, 22, gpid(1001), 5, 2]])
        create(db, "CUPTI_ACTIVITY_KIND_GRAPH_TRACE", ["start", "end", "deviceId", "contextId", "streamId", "correlationId", "globalPid", "graphId", "graphExecId"],
               [[40000, 48000, 0, 1, 7, 30, gpid(1001), 1, 2], [50000, 58000, 0, 1, 7, 31, gpid(1001), 1, 2]])
        create(db, "PROCESSES", ["globalPid", "pid", "name"], [[gpid(1001), 1001, "python3"], [gpid(1002), 1002, "worker"], [gpid(7), 7, "kworker/0:1"]])
        create(db, "TARGET_INFO_GPU", ["vmId", "id", "name", "busLocation", "totalMemory", "smCount", "computeMajor", "computeMinor", "asyncEngines", "clockRate", "memoryBandwidth"],
               [[VM, 0, "NVIDIA H200", "0000:1a:00.0", 150754820096, 132, 9, 0, 3, 1980000000, 4800000000000],
                [VM, 1, "NVIDIA H200", "0000:1b:00.0", 150754820096, 132, 9, 0, 3, 1980000000, 4800000000000]])
        create(db, "TARGET_INFO_CUDA_STREAM", ["streamId", "hwId", "vmId", "processId", "contextId", "priority", "flag"],
               [[7, 0, 1, 1001, 1, 0, 3], [13, 0, 1, 1001, 1, 4294967295, 2], [14, 0, 1, 1001, 1, 0, 1]])
        create(db, "META_DATA_EXPORT", ["name", "value"], [["EXPORT_PRODUCT_VERSION", "2026.2.1.0"], ["EXPORT_SCHEMA_VERSION", "3.25.0"]])
        create(db, "ENUM_CUPTI_SYNC_TYPE", ["id", "name", "label"], [[3, "CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE", "Stream sync"]])
        create(db, "TARGET_INFO_SYSTEM_ENV", ["globalVid", "devStateName", "name", "nameEnum", "value"], [[VM, "x", "DeviceEnvironment", 610, "TOKEN=SECRET-TOKEN"]])
        for r in (4000,):
            db.execute("update CUPTI_ACTIVITY_KIND_RUNTIME set eventClass = 1 where correlationId = 10 and globalTid = ?", (gtid(1002, 1002),))
    else:
        # Before 2021.2 the GPU table mirrors CUPTI's device record (CUpti_ActivityDevice): keyed by
        # deviceId (nsys 2021.1's gputrace report joins it USING (deviceId)), with numMultiprocessors,
        # computeCapabilityMajor, numThreadsPerWarp, maxWarpsPerMultiprocessor, coreClockRate, maxIPC
        # (columns third-party readers of those exports query), and CUPTI's other device fields.
        create(db, "TARGET_INFO_CUDA_GPU", ["deviceId", "name", "computeCapabilityMajor", "computeCapabilityMinor",
                                            "numMultiprocessors", "globalMemorySize", "globalMemoryBandwidth",
                                            "l2CacheSize", "numThreadsPerWarp", "coreClockRate", "numMemcpyEngines",
                                            "maxIPC", "maxWarpsPerMultiprocessor", "maxBlocksPerMultiprocessor"],
               [[d, "Tesla V100-SXM2-16GB", 7, 0, 80, 16945512448, 898048000, 6291456, 32, 1530000, 6, 4, 64, 32]
                for d in (0, 1)])
    db.commit()
    db.close()


# Two ranks of a data-parallel job, one GPU each (rank r on GPU r), as a 2023.3 SQLite export
# (ENUM tables, PROCESSES, no CUDA_EVENT or CONTEXT_INFO tables) and a 2025.3 JSON export (layout B).
# Each process numbers its own context 1 and streams 7 and 15. Sync rows carry deviceId 0 for both
# ranks (CUPTI's sync record has no device). The process names are whole command lines with
# arguments (a quoted path with spaces for rank 1) that must not reach the trace.
DDP_STRINGS = ["", "cudaMemcpyAsync_v3020", "cudaLaunchKernel_v7000", "cudaEventRecord_v3020",
               "cudaStreamWaitEvent_v3020", "cudaMemsetAsync_v3020", "cudaStreamSynchronize_v3020",
               "cudaEventSynchronize_v3020", "cudaDeviceSynchronize_v3020", "forward_kernel(float*, int)",
               "allreduce_kernel(float*, int)", "python3",
               "/opt/nvidia/nsight-systems/2025.3.1/target-linux-x64/libToolsInjection64.so"]
DDP_RANKS = ((2001, 0, 0), (2002, 1, 700))  # pid, GPU, time offset (ns)
DDP_COMMANDS = {2001: "/usr/bin/python3 -u train.py --local-rank=0 --token=SECRET-TOKEN",
                2002: "'/opt/conda envs/ddp/bin/python3' -u train.py --local-rank=1 --token=SECRET-TOKEN"}
NO_ID = 0xFFFFFFFF
SYNC_JSON_NAMES = {1: "SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE", 2: "SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT",
                   3: "SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE", 4: "SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE"}


def ddp_rank_ops(pid, gpu, b):
    """(api rows, gpu ops) of one rank: api = (corr, start, end, nameIdx); gpu = dicts by kind."""
    api_rows = [(1, 1000, 1200, 1), (2, 1250, 1350, 2), (3, 1400, 1450, 3), (4, 1500, 1550, 4), (5, 1600, 1700, 2),
                (6, 1750, 1800, 5), (7, 1850, 9450, 6), (8, 9460, 9490, 7), (9, 9500, 12700, 8)]
    gpu_ops = [
        dict(kind="memcpy", corr=1, start=1300, end=3300, stream=15, bytes=1048576, copyKind=1, srcKind=1, dstKind=2),
        dict(kind="kernel", corr=2, start=3400, end=9400, stream=15, name=9),
        dict(kind="record", corr=3, stream=15, eventId=1, eventSyncId=1),
        dict(kind="sync", corr=4, start=1510, end=1540, stream=7, syncType=2, eventId=1, eventSyncId=1),
        dict(kind="kernel", corr=5, start=9500, end=12000, stream=7, name=10),
        dict(kind="memset", corr=6, start=12100, end=12600, stream=7, bytes=4096, memKind=2),
        # cudaStreamSynchronize: 2023.3 writes syncType 3; 2025.3 JSON a stream wait on no event
        dict(kind="sync", corr=7, start=1860, end=9440, stream=15, syncType=3, eventId=NO_ID, eventSyncId=NO_ID),
        dict(kind="sync", corr=8, start=9465, end=9485, stream=NO_ID, syncType=1, eventId=1, eventSyncId=1),
        dict(kind="sync", corr=9, start=9510, end=12690, stream=NO_ID, syncType=4, eventId=NO_ID, eventSyncId=NO_ID),
    ]
    api_rows = [(c, b + s, b + e, n) for c, s, e, n in api_rows]
    for op in gpu_ops:
        if "start" in op:
            op["start"] += b
            op["end"] += b
        op["device"] = 0 if op["kind"] == "sync" else gpu
    return api_rows, gpu_ops


def write_ddp_json(path):
    lines = [{"data": DDP_STRINGS, "files": []}]
    for pid, gpu, b in DDP_RANKS:
        lines.append({"Type": 27, "CommEvent": {"Timestamp": "0", "GlobalPid": str(gpid(pid)),
                                                "Command": DDP_COMMANDS[pid], "WorkDir": "/path", "NsTime": True}})
        api_rows, gpu_ops = ddp_rank_ops(pid, gpu, b)
        for corr, start, end, name in api_rows:
            lines.append(api(start, end, corr, pid, pid, name))
        for op in gpu_ops:
            k = op["kind"]
            if k == "kernel":
                e = cuda(79, op["start"], op["end"], op["corr"], pid, op["stream"], "kernel", kernel(op["name"]), op["device"])
            elif k == "memcpy":
                e = cuda(80, op["start"], op["end"], op["corr"], pid, op["stream"], "memcpy",
                         {"sizebytes": str(op["bytes"]), "copyKind": str(op["copyKind"]), "srcKind": op["srcKind"],
                          "dstKind": op["dstKind"], "copyCount": "1"}, op["device"])
            elif k == "memset":
                e = cuda(80, op["start"], op["end"], op["corr"], pid, op["stream"], "memset",
                         {"sizebytes": str(op["bytes"]), "value": 0, "memKind": op["memKind"]}, op["device"])
            elif k == "record":
                e = cuda(127, 0, 0, op["corr"], pid, op["stream"], "cudaEventRecord",
                         {"eventId": op["eventId"], "eventSyncId": str(op["eventSyncId"])}, op["device"])
            else:
                sync_type = 2 if op["syncType"] == 3 else op["syncType"]  # the 2025.x quirk
                e = cuda(106, op["start"], op["end"], op["corr"], pid, op["stream"], "sync",
                         {"eventId": op["eventId"], "eventSyncId": str(op["eventSyncId"]),
                          "syncType": SYNC_JSON_NAMES[sync_type]}, op["device"])
            lines.append(e)
    lines.append({"data": [{"nameIdx": "11", "priority": "10", "globalTid": str(gtid(pid, pid))} for pid, _, _ in DDP_RANKS]})
    with open(path, "w") as f:
        for e in lines:
            f.write(line(e) + "\n")


def write_ddp_sqlite(path):
    if os.path.exists(path):
        os.remove(path)
    db = sqlite3.connect(path)
    create(db, "StringIds", ["id", "value"], list(enumerate(DDP_STRINGS)))
    kernels, copies, memsets, syncs, runtime = [], [], [], [], []
    for pid, gpu, b in DDP_RANKS:
        api_rows, gpu_ops = ddp_rank_ops(pid, gpu, b)
        runtime += [[start, end, 0, gtid(pid, pid), corr, name, 0, None] for corr, start, end, name in api_rows]
        for op in gpu_ops:
            head = [op.get("start"), op.get("end"), op["device"], 1, op["stream"], op["corr"], gpid(pid)]
            if op["kind"] == "kernel":
                kernels.append(head + [op["name"], op["name"], 1, 128, 1, 1, 256, 1, 1, 0, 0, 32, None])
            elif op["kind"] == "memcpy":
                copies.append(head + [op["bytes"], op["copyKind"], op["srcKind"], op["dstKind"], None])
            elif op["kind"] == "memset":
                memsets.append(head + [0, op["bytes"], None, op["memKind"]])
            elif op["kind"] == "sync":
                syncs.append(head + [op["syncType"], op["eventId"]])
    gpu_cols = ["start", "end", "deviceId", "contextId", "streamId", "correlationId", "globalPid"]
    create(db, "CUPTI_ACTIVITY_KIND_KERNEL", gpu_cols + ["demangledName", "shortName", "launchType", "gridX", "gridY",
           "gridZ", "blockX", "blockY", "blockZ", "staticSharedMemory", "dynamicSharedMemory", "registersPerThread",
           "graphNodeId"], kernels)
    create(db, "CUPTI_ACTIVITY_KIND_MEMCPY", gpu_cols + ["bytes", "copyKind", "srcKind", "dstKind", "graphNodeId"], copies)
    create(db, "CUPTI_ACTIVITY_KIND_MEMSET", gpu_cols + ["value", "bytes", "graphNodeId", "memKind"], memsets)
    create(db, "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", gpu_cols + ["syncType", "eventId"], syncs)
    create(db, "CUPTI_ACTIVITY_KIND_RUNTIME", ["start", "end", "eventClass", "globalTid", "correlationId", "nameId",
           "returnValue", "callchainId"], runtime)
    create(db, "ThreadNames", ["nameId", "priority", "globalTid"], [[11, 10, gtid(pid, pid)] for pid, _, _ in DDP_RANKS])
    create(db, "PROCESSES", ["globalPid", "pid", "name"], [[gpid(pid), pid, DDP_COMMANDS[pid]] for pid, _, _ in DDP_RANKS])
    create(db, "TARGET_INFO_GPU", ["vmId", "id", "name", "busLocation", "totalMemory", "smCount", "computeMajor",
           "computeMinor", "asyncEngines", "clockRate", "memoryBandwidth", "cuDevice"],
           [[1, d, "NVIDIA H100 80GB HBM3", f"0000:{0x18 + d:02x}:00.0", 85017493504, 132, 9, 0, 3, 1980000000,
             3352320000000, d] for d in (0, 1)])
    create(db, "TARGET_INFO_CUDA_STREAM", ["streamId", "hwId", "vmId", "processId", "contextId", "priority", "flag"],
           [[s, 0, 1, pid, 1, 0, 3 if s == 7 else 2] for pid, _, _ in DDP_RANKS for s in (7, 15)])
    create(db, "ENUM_CUPTI_SYNC_TYPE", ["id", "name", "label"], [
        [0, "CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_UNKNOWN", "Unknown"],
        [1, "CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE", "Event sync"],
        [2, "CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT", "Stream wait sync"],
        [3, "CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE", "Stream sync"],
        [4, "CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE", "Context sync"]])
    create(db, "META_DATA_EXPORT", ["name", "value"], [["EXPORT_PRODUCT_VERSION", "2023.3.1.92"],
                                                      ["EXPORT_SCHEMA_VERSION", "3.4.0"]])
    db.commit()
    db.close()


def write_kineto():
    d = f"{OUT}/kineto"
    # PyTorch 1.8–1.9 (kineto 2021): capitalised categories, "stream 7" tids, async/launch flows, lower-case args.
    ev = [
        {"ph": "X", "cat": "Operator", "name": "aten::add", "pid": 77, "tid": 77, "ts": 100, "dur": 50, "args": {"external id": 1}},
        {"ph": "X", "cat": "Runtime", "name": "cudaLaunchKernel", "pid": 77, "tid": 77, "ts": 110, "dur": 20, "args": {"correlation": 5, "external id": 1}},
        {"ph": "X", "cat": "Kernel", "name": "add_kernel", "pid": 0, "tid": "stream 7", "ts": 140, "dur": 30, "args": {"correlation": 5, "device": 0, "stream": 7, "grid": [1, 1, 1], "block": [256, 1, 1]}},
        {"ph": "s", "cat": "async", "name": "launch", "id": 5, "pid": 77, "tid": 77, "ts": 110},
        {"ph": "f", "cat": "async", "name": "launch", "id": 5, "pid": 0, "tid": "stream 7", "ts": 140, "bp": "e"},
        {"ph": "X", "cat": "Memcpy", "name": "Memcpy DtoH (Device -> Pageable)", "pid": 0, "tid": "stream 7", "ts": 200, "dur": 10, "args": {"correlation": 6, "device": 0, "stream": 7, "bytes": 1024}},
        {"ph": "X", "cat": "Runtime", "name": "cudaMemcpy", "pid": 77, "tid": 77, "ts": 180, "dur": 40, "args": {"correlation": 6}},
        {"ph": "M", "name": "process_name", "pid": 77, "tid": 0, "args": {"name": "python"}},
        {"ph": "M", "name": "thread_name", "pid": 77, "tid": 77, "args": {"name": "thread 77 (python)"}},
    ]
    with open(f"{d}/kineto-2021.json", "w") as f:
        json.dump({"schemaVersion": 1, "traceEvents": ev}, f)
    # A bare array that was never terminated (the Chrome format allows it), with a sync that waits on an event.
    ev2 = [
        {"ph": "X", "cat": "cuda_runtime", "name": "cudaEventRecord", "pid": 9, "tid": 9, "ts": 1.5, "dur": 1.25, "args": {"correlation": 40}},
        {"ph": "X", "cat": "cuda_runtime", "name": "cudaStreamWaitEvent", "pid": 9, "tid": 9, "ts": 3.0, "dur": 1.0, "args": {"correlation": 41}},
        {"ph": "X", "cat": "cuda_sync", "name": "Stream Wait Event", "pid": 0, "tid": 14, "ts": 4.5, "dur": 2.125, "args": {"correlation": 41, "device": 0, "stream": 14, "wait_on_cuda_event_record_corr_id": 40, "wait_on_stream": 7}},
        {"ph": "X", "cat": "cuda_sync", "name": "Stream Wait Event", "pid": 0, "tid": 14, "ts": 8.0, "dur": 1.0, "args": {"correlation": 42, "device": 0, "stream": 14, "wait_on_cuda_event_record_corr_id": 4000}},
        {"ph": "X", "cat": "gpu_memset", "name": "Memset (Device)", "pid": 0, "tid": 7, "ts": 10.0, "dur": 0.5, "args": {"correlation": 43, "device": 0, "stream": 7, "bytes": 256}},
    ]
    with open(f"{d}/array-unterminated.json", "w") as f:
        f.write("[\n" + ",\n".join(json.dumps(e) for e in ev2) + ",\n")


def write_broken():
    d = f"{OUT}/broken"
    with open(f"{OUT}/nsys/older/layout-a-2021.json") as f:
        full = f.read()
    with open(f"{d}/truncated.json", "w") as f:
        f.write(full[: len(full) // 2])  # cut mid-line, before the string table
    with open(f"{d}/truncated.sqlite", "wb") as f:
        f.write(open(f"{OUT}/nsys/older/schema-2026.sqlite", "rb").read()[:6000])
    with open(f"{d}/wrong-format.json", "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + bytes(range(64)))
    good = line(cuda(79, 1000, 2000, 1, 5, 7, "kernel", kernel(3)))
    with open(f"{d}/invalid-utf8.json", "wb") as f:
        f.write(line({"data": ["", "a", "b", "k"]}).encode() + b"\n" + good.encode() + b"\n")
        f.write(b'{"Type":59,"NvtxEvent":{"Type":59,"Timestamp":"5","EndTimestamp":"9","Text":"bad \xff\xfe text","GlobalTid":"281474993487873"}}\n')
    with open(f"{d}/absurd-numbers.json", "w") as f:
        f.write(line({"data": ["", "a", "b", "k"]}) + "\n" + good + "\n")
        f.write(line(cuda(79, 99999999999999999999, 2000, 2, 5, 7, "kernel", kernel(3))) + "\n")
    with open(f"{d}/missing-field.json", "w") as f:
        ev = cuda(79, 1000, 2000, 1, 5, 7, "kernel", kernel(3))
        del ev["CudaEvent"]["startNs"]
        f.write(line({"data": ["", "a", "b", "k"]}) + "\n" + line(ev) + "\n")
    p = f"{d}/missing-table.sqlite"
    if os.path.exists(p):
        os.remove(p)
    db = sqlite3.connect(p)
    create(db, "CUPTI_ACTIVITY_KIND_KERNEL", ["start", "end"], [[1, 2]])
    db.commit()
    db.close()
    p = f"{d}/missing-column.sqlite"
    if os.path.exists(p):
        os.remove(p)
    db = sqlite3.connect(p)
    create(db, "StringIds", ["id", "value"], [[0, ""]])
    create(db, "CUPTI_ACTIVITY_KIND_KERNEL", ["start", "end", "deviceId", "contextId", "globalPid"], [[1, 2, 0, 1, gpid(5)]])
    db.commit()
    db.close()
    p = f"{d}/absurd-numbers.sqlite"
    if os.path.exists(p):
        os.remove(p)
    db = sqlite3.connect(p)
    create(db, "StringIds", ["id", "value"], [[0, ""], [1, "k"]])
    create(db, "CUPTI_ACTIVITY_KIND_KERNEL", ["start", "end", "deviceId", "contextId", "streamId", "correlationId", "globalPid", "demangledName"],
           [[1000, 2000, 0, 1, 7, 1, gpid(5), 1], [1 << 60, (1 << 60) + 5, 0, 1, 7, 2, gpid(5), 1]])
    db.commit()
    db.close()
    # Flows and waits that point at nothing: kept, with warnings.
    with open(f"{d}/dangling-flows.json", "w") as f:
        f.write(line({"data": STRINGS}) + "\n")
        f.write(line(cuda(106, 100, 200, 77, 1001, 14, "sync", {"eventId": 42, "syncType": "SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT"})) + "\n")
        f.write(line(api(10, 20, 5, 1001, 1001, 1)) + "\n")
        f.write(line(cuda(79, 300, 400, 6, 1001, 7, "kernel", kernel(3))) + "\n")
        f.write(line(cuda(79, 500, 600, 7, 1001, 7, "kernel", {"demangledName": "4000"})) + "\n")
    with gzip.GzipFile(f"{d}/gzip-bomb.json.gz", "wb", 9, mtime=0) as f:
        f.write(b"[")
        block = b" " * (1 << 20)
        for _ in range(256):
            f.write(block)
        f.write(b"]")
    with open(f"{d}/report.nsys-rep", "wb") as f:
        f.write(b"NVIDIA Tegra Profiler Report\x00" + bytes(32))


write_json_layouts()
write_sqlite(f"{OUT}/nsys/older/schema-2021.sqlite", new=False)
write_sqlite(f"{OUT}/nsys/older/schema-2026.sqlite", new=True)
os.makedirs(f"{OUT}/nsys/handmade", exist_ok=True)
write_ddp_json(f"{OUT}/nsys/handmade/ddp-2gpu.json")
write_ddp_sqlite(f"{OUT}/nsys/handmade/ddp-2gpu.sqlite")
write_kineto()
write_broken()
print("written")
