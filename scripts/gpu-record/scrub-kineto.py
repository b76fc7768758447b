"""Keep only trace data in a kineto (PyTorch profiler) JSON trace, byte for byte otherwise.

Top-level members not in KEEP are cut out of the text (traceName holds the output path of the
recording machine); their names, never their values, are printed. Every other byte stays as
PyTorch wrote it (numbers keep their digits: epoch microseconds with a nanosecond fraction do
not survive a float round trip), except string literals that hold something of the machine:
paths under its roots (its working directory and parents, home, temp, and the usual top-level
folders of a machine's own files) become "/path", its host name and user name become "host"
and "user", IPv4 addresses other than loopback become 0.0.0.0, and a string that looks like an
environment block or a list of variable assignments becomes "[environment removed]".
The result is parsed again and compared with the source: same events, same numbers.
Usage: scrub-kineto.py SRC.json DST.json
"""
import getpass
import json
from decimal import Decimal
import os
import re
import socket
import sys
import tempfile

KEEP = (
    "schemaVersion",
    "deviceProperties",
    "distributedInfo",
    "cuda_runtime_version",
    "cuda_driver_version",
    "cupti_version",
    "displayTimeUnit",
    "baseTimeNanoseconds",
    "traceEvents",
)
MACHINE_DIRS = r"home|root|tmp|work|workspace|opt|mnt|srv|data|scratch|var|run|proc|dev/shm|usr/local"


def machine_roots() -> list:
    here = os.getcwd()
    parts = [p for p in here.split("/") if p]
    roots = {"/" + "/".join(parts[:i]) for i in range(1, len(parts) + 1)}
    roots |= {os.path.expanduser("~"), tempfile.gettempdir()}
    roots.discard("/")
    roots.discard("")
    return sorted(roots, key=len, reverse=True)


def build_rules() -> list:
    seg = r"(?:/[^\s\"'/,;:)]+)*"
    rules = [(re.compile(r"(?<![\w.])" + re.escape(r) + seg), "/path") for r in machine_roots()]
    rules.append((re.compile(r"(?<![\w.])/(?:" + MACHINE_DIRS + r")(?![\w.-])" + seg), "/path"))
    host = socket.gethostname()
    names = {host, host.split(".")[0]} if host else set()
    for n in sorted(names, key=len, reverse=True):
        if len(n) >= 2 and n != "localhost":
            rules.append((re.compile(r"(?<![\w-])" + re.escape(n) + r"(?![\w-])"), "host"))
    user = getpass.getuser()
    if user and user != "root" and len(user) >= 3:
        rules.append((re.compile(r"(?<![\w-])" + re.escape(user) + r"(?![\w-])"), "user"))
    ip = r"(?<![\d.])(?!127\.0\.0\.1(?![\d.]))(?!0\.0\.0\.0(?![\d.]))(?:\d{1,3}\.){3}\d{1,3}(?![\d.])"
    rules.append((re.compile(ip), "0.0.0.0"))
    return rules


ENV_LIKE = re.compile(r"(?:^|[\s\x00;])[A-Z][A-Z0-9_]{2,}=[^\s\x00]*")
RULES = build_rules()


def scrub_str(s: str) -> str:
    if "\x00" in s and "=" in s:
        return "[environment removed]"
    if len(ENV_LIKE.findall(s)) >= 2:
        return "[environment removed]"
    for rx, rep in RULES:
        s = rx.sub(rep, s)
    return s


STRING = re.compile(r'"(?:[^"\\\x00-\x1f]|\\.)*"')


def scrub_literal(m: "re.Match") -> str:
    lit = m.group(0)
    old = json.loads(lit)
    new = scrub_str(old)
    return lit if new == old else json.dumps(new, ensure_ascii=False)


def skip_ws(text: str, i: int) -> int:
    while text[i] in " \t\r\n":
        i += 1
    return i


def value_end(text: str, i: int) -> int:
    """Index just past the JSON value that starts at i (strings skipped, brackets counted)."""
    depth = 0
    while True:
        c = text[i]
        if c == '"':
            i = STRING.match(text, i).end()
            if depth == 0:
                return i
            continue
        if c in "[{":
            depth += 1
        elif c in "]}":
            if depth == 0:
                return i
            depth -= 1
            if depth == 0:
                return i + 1
        elif depth == 0 and c in ",":
            return i
        i += 1


def top_members(text: str) -> tuple:
    """(head, [(key, member text)], tail) of a top-level JSON object, whitespace kept."""
    i = skip_ws(text, 0)
    if text[i] != "{":
        raise SystemExit("scrub-kineto: the trace is not a JSON object at its top level")
    head_end = i + 1
    members = []
    i = head_end
    while True:
        j = skip_ws(text, i)
        if text[j] == "}":
            return text[:head_end], members, text[i:]
        key_m = STRING.match(text, j)
        if key_m is None:
            raise SystemExit(f"scrub-kineto: expected a key at offset {j}")
        k = skip_ws(text, key_m.end())
        end = value_end(text, skip_ws(text, k + 1))
        members.append((json.loads(key_m.group(0)), text[i:end]))
        i = skip_ws(text, end)
        if text[i] == ",":
            i += 1


def strip_values(x):
    """The document with every string replaced by one marker: what scrubbing may not change."""
    if isinstance(x, dict):
        return {k: strip_values(v) for k, v in x.items()}
    if isinstance(x, list):
        return [strip_values(v) for v in x]
    return "s" if isinstance(x, str) else x


def main() -> None:
    src, dst = sys.argv[1], sys.argv[2]
    with open(src, encoding="utf-8") as f:
        text = f.read()
    head, members, tail = top_members(text)
    kept = [m for k, m in members if k in KEEP]
    dropped = sorted(k for k, _ in members if k not in KEEP)
    out = STRING.sub(scrub_literal, head + ",".join(kept) + tail)
    a = json.loads(text, parse_float=Decimal)
    b = json.loads(out, parse_float=Decimal)
    if strip_values({k: v for k, v in a.items() if k in KEEP}) != strip_values(b):
        raise SystemExit(f"scrub-kineto: {dst} differs from {src} beyond its strings")
    with open(dst, "w", encoding="utf-8") as f:
        f.write(out)
    print("scrubbed", dst, len(b["traceEvents"]), "events; dropped top-level keys:", dropped)


main()
