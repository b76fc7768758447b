"""Fail if a scrubbed fixture still holds something of the recording machine.

Reads kineto / nsys JSON and nsys SQLite exports, plain or gzip/xz-compressed, and looks for
this machine's host name, user name (unless root), working directory, home and temp folder,
extra strings given with --forbid, and patterns that no fixture may hold: home and temp paths,
the GPU machine's project and Python roots, environment assignments of common variables.
Prints one line per finding (file, table.column or byte offset, what matched) and exits 1.
Usage: check-scrubbed.py [--forbid STR]... FILE...
"""
import getpass
import gzip
import lzma
import os
import re
import socket
import sqlite3
import sys
import tempfile

PATTERNS = [
    r"/home/[A-Za-z0-9_.-]+",
    r"/root/",
    r"/tmp/[A-Za-z0-9_.-]",
    r"/opt/torch",
    r"/work/[A-Za-z0-9_.-]",
    r"\b(?:PATH|HOME|USER|LOGNAME|HOSTNAME|LD_LIBRARY_PATH|PWD|SSH_[A-Z_]+|AWS_[A-Z_]+|HF_TOKEN)=",
]


def forbidden(extra: list) -> list:
    words = list(extra)
    host = socket.gethostname()
    for n in {host, host.split(".")[0]}:
        if len(n) >= 2 and n != "localhost":
            words.append(n)
    user = getpass.getuser()
    if user and user != "root":
        words.append(user)
    for d in (os.getcwd(), os.path.expanduser("~"), tempfile.gettempdir()):
        if d not in ("/", ""):
            words.append(d)
    rx = [re.compile(r"(?<![\w-])" + re.escape(w) + r"(?![\w-])") for w in words]
    return rx + [re.compile(p) for p in PATTERNS]


def raw_bytes(path: str) -> bytes:
    opener = gzip.open if path.endswith(".gz") else lzma.open if path.endswith(".xz") else open
    with opener(path, "rb") as f:
        return f.read()


def texts(path: str):
    """(place, text) pairs of a file: a JSON file whole, an SQLite file cell by cell."""
    data = raw_bytes(path)
    if data[:16] != b"SQLite format 3\x00":
        yield "text", data.decode("utf-8", errors="replace")
        return
    with tempfile.NamedTemporaryFile(suffix=".sqlite") as tmp:
        tmp.write(data)
        tmp.flush()
        db = sqlite3.connect(tmp.name)
        tables = [r[0] for r in db.execute("select name from sqlite_master where type='table'")]
        for t in tables:
            cols = [r[1] for r in db.execute(f'pragma table_info("{t}")')]
            for c in cols:
                q = f'select "{c}" from "{t}" where typeof("{c}") = \'text\''
                for (v,) in db.execute(q):
                    yield f"{t}.{c}", v
        db.close()


def main() -> None:
    args = sys.argv[1:]
    extra = []
    while args and args[0] == "--forbid":
        extra.append(args[1])
        args = args[2:]
    rules = forbidden(extra)
    bad = 0
    for path in args:
        found = 0
        for place, text in texts(path):
            for rx in rules:
                for m in rx.finditer(text):
                    at = place if place != "text" else f"offset {m.start()}"
                    if found < 20:
                        print(f"{path}: {at}: {m.group(0)!r} matches {rx.pattern!r}")
                    found += 1
        print(f"{path}: {'clean' if found == 0 else f'{found} findings'}")
        bad += found
    sys.exit(1 if bad else 0)


main()
