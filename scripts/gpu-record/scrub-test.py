"""Tests of the recording helpers that run anywhere (no GPU, no torch): python3 scrub-test.py

- scrub-kineto.py keeps every number byte for byte (epoch-µs timestamps with a ns fraction do
  not survive a float round trip), drops traceName, and scrubs the machine's paths, host name,
  IPs and environment strings; check-scrubbed.py fails the raw file and passes the scrubbed one.
- scrub-extra.py replaces the host name nsys keeps in META_DATA_CAPTURE / META_DATA_EXPORT.
- fixture-counts.py counts a small hand-made trace as it should.
"""
import json
import os
import socket
import sqlite3
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
HOST = socket.gethostname()


def run(script: str, *args: str, cwd: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, os.path.join(HERE, script), *args], cwd=cwd, capture_output=True, text=True
    )


def raw_trace(workdir: str) -> str:
    return (
        "{\n"
        '  "schemaVersion": 1,\n'
        '  "distributedInfo": {"backend": "nccl", "rank": 1, "world_size": 2},\n'
        '  "traceEvents": [\n'
        "  {\n"
        '    "ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 42, "tid": 42,\n'
        '    "ts": 1763999999123456.789, "dur": 12.345,\n'
        f'    "args": {{"file": "{workdir}/kernels/k.py", "where": "on {HOST}",'
        ' "env": "PATH=/usr/bin HOME=/home/someone", "peer": "10.1.2.3", "lo": "127.0.0.1"}\n'
        "  },\n"
        '  {"name": "Record Window End", "ph": "i", "s": "g", "pid": "", "tid": "", "ts": 1763999999123999.001}\n'
        "  ],\n"
        f'  "traceName": "{workdir}/out.json",\n'
        '  "baseTimeNanoseconds": 1790857026000000000\n'
        "}\n"
    )


class ScrubKineto(unittest.TestCase):
    def setUp(self) -> None:
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name
        with open(os.path.join(self.dir, "raw.json"), "w", encoding="utf-8") as f:
            f.write(raw_trace(self.dir))
        done = run("scrub-kineto.py", "raw.json", "out.json", cwd=self.dir)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.report = done.stdout
        with open(os.path.join(self.dir, "out.json"), encoding="utf-8") as f:
            self.out = f.read()

    def tearDown(self) -> None:
        self.tmp.cleanup()

    def test_numbers_stay_as_written(self) -> None:
        self.assertIn('"ts": 1763999999123456.789, "dur": 12.345', self.out)
        self.assertIn('"ts": 1763999999123999.001', self.out)
        self.assertIn('"baseTimeNanoseconds": 1790857026000000000', self.out)

    def test_drops_trace_name_and_keeps_distributed_info(self) -> None:
        doc = json.loads(self.out)
        self.assertNotIn("traceName", doc)
        self.assertIn("['traceName']", self.report)
        self.assertEqual(doc["distributedInfo"], {"backend": "nccl", "rank": 1, "world_size": 2})

    def test_scrubs_what_names_the_machine(self) -> None:
        args = json.loads(self.out)["traceEvents"][0]["args"]
        self.assertEqual(args["file"], "/path")
        self.assertEqual(args["where"], "on host" if len(HOST) >= 2 and HOST != "localhost" else f"on {HOST}")
        self.assertEqual(args["env"], "[environment removed]")
        self.assertEqual(args["peer"], "0.0.0.0")
        self.assertEqual(args["lo"], "127.0.0.1")
        self.assertNotIn(self.dir, self.out)

    def test_check_fails_the_raw_file_and_passes_the_scrubbed_one(self) -> None:
        raw = run("check-scrubbed.py", "raw.json", cwd=self.dir)
        self.assertEqual(raw.returncode, 1, raw.stdout)
        self.assertIn("PATH=", raw.stdout)
        out = run("check-scrubbed.py", "out.json", cwd=self.dir)
        self.assertEqual(out.returncode, 0, out.stdout)


class ScrubExtra(unittest.TestCase):
    def test_replaces_the_host_name_nsys_keeps(self) -> None:
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "x.sqlite")
            db = sqlite3.connect(path)
            db.execute("create table META_DATA_CAPTURE (name text, value text)")
            db.execute("create table META_DATA_EXPORT (name text, value text)")
            db.execute("insert into META_DATA_CAPTURE values ('DEVICE_DISPLAY_NAME', 'gpu-box-17')")
            db.execute("insert into META_DATA_EXPORT values ('EXPORT_HOST', 'gpu-box-17')")
            db.commit()
            db.close()
            done = run("scrub-extra.py", path, cwd=d)
            self.assertEqual(done.returncode, 0, done.stderr)
            db = sqlite3.connect(path)
            self.assertEqual(db.execute("select value from META_DATA_CAPTURE").fetchall(), [("host",)])
            self.assertEqual(db.execute("select value from META_DATA_EXPORT").fetchall(), [("host",)])
            db.close()


class FixtureCounts(unittest.TestCase):
    def test_counts_a_small_trace(self) -> None:
        def x(cat, name, ts, dur, **args):
            return {"ph": "X", "cat": cat, "name": name, "pid": 1, "tid": 1, "ts": ts, "dur": dur, "args": args}

        events = [
            x("user_annotation", "ProfilerStep#2", 1000.5, 100.0),
            x("user_annotation", "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", 1001.0, 60.0),
            x("cuda_runtime", "cudaLaunchKernel", 1070.0, 2.0, correlation=7),
            x("cuda_runtime", "cudaMemcpyAsync", 1065.0, 2.0, correlation=6),
            x("kernel", "k", 1080.0, 10.0, correlation=7, stream=7),
            x("kernel", "late", 1085.0, 10.0, correlation=3, stream=7),  # launched before the window
            x("gpu_memcpy", "Memcpy HtoD (Pinned -> Device)", 1066.0, 4.0, correlation=6, stream=7),
        ]
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "t.json"), "w") as f:
                json.dump({"traceEvents": events, "baseTimeNanoseconds": 5}, f)
            done = run("fixture-counts.py", "t.json", cwd=d)
        self.assertEqual(done.returncode, 0, done.stderr)
        (c,) = json.loads(done.stdout)
        self.assertEqual((c["kernels"], c["memsets"], c["runtimeCalls"], c["driverCalls"]), (2, 0, 2, 0))
        self.assertEqual(c["memcpy"], {"Memcpy HtoD (Pinned -> Device)": 1})
        self.assertEqual(c["gpuOpsWithoutCall"], 1)
        self.assertEqual(c["timestamps"]["firstTsText"], "1000.5")
        # GPU busy: memcpy 1066..1070 (4) + kernels 1080..1095 merged (15) = 19 µs
        self.assertEqual(
            c["profilerSteps"], [{"name": "ProfilerStep#2", "durUs": 100.0, "dataLoaderUs": 60.0, "gpuBusyUs": 19.0}]
        )


if __name__ == "__main__":
    unittest.main()
