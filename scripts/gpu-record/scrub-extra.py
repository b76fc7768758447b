#!/usr/bin/env python3
"""Second scrub pass over nsys exports, after .gpu/scrub-nsys.py: the device's checkout path
and the recorded environment still appear in WorkDir fields, TARGET_INFO_SYSTEM_ENV and
META_DATA_CAPTURE, and the machine's host name in META_DATA_CAPTURE (DEVICE_DISPLAY_NAME) and
META_DATA_EXPORT (EXPORT_HOST). Usage: scrub-extra.py FILE...  (rewrites each .json / .sqlite in place)
"""
import re, socket, sqlite3, sys

PATH = re.compile(r"/(work|home|root|tmp|opt/torch)(/[A-Za-z0-9_.+-]+)*")
HOSTS = {h for h in (socket.gethostname(), socket.gethostname().split(".")[0]) if len(h) >= 2 and h != "localhost"}
HOST = re.compile("|".join(r"(?<![\w-])" + re.escape(h) + r"(?![\w-])" for h in sorted(HOSTS, key=len, reverse=True))) if HOSTS else None


def scrub_text(s):
    s = PATH.sub("/path", s)
    return HOST.sub("host", s) if HOST is not None else s


def scrub_json(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    with open(path, "w", encoding="utf-8") as f:
        f.write(scrub_text(text))


def scrub_sqlite(path):
    db = sqlite3.connect(path)
    tables = {r[0] for r in db.execute("select name from sqlite_master where type='table'")}
    if "TARGET_INFO_SYSTEM_ENV" in tables:
        db.execute("delete from TARGET_INFO_SYSTEM_ENV where name in ('DeviceEnvironment', 'Hostname')")
    if "META_DATA_CAPTURE" in tables:
        db.execute(
            "delete from META_DATA_CAPTURE where name like '%ENVIRONMENT%' or name like '%ARGUMENT%'"
            " or name like '%WORKING_DIR%'"
        )
        db.execute("update META_DATA_CAPTURE set value = 'host' where name = 'DEVICE_DISPLAY_NAME'")
    if "META_DATA_EXPORT" in tables:
        db.execute("update META_DATA_EXPORT set value = 'host' where name = 'EXPORT_HOST'")
    for t in tables:
        cols = [r[1] for r in db.execute(f'pragma table_info("{t}")')]
        for c in cols:
            rows = db.execute(f'select rowid, "{c}" from "{t}" where typeof("{c}") = \'text\'').fetchall()
            for rid, v in rows:
                nv = scrub_text(v)
                if nv != v:
                    db.execute(f'update "{t}" set "{c}" = ? where rowid = ?', (nv, rid))
    db.commit()
    db.execute("vacuum")
    db.close()


for p in sys.argv[1:]:
    (scrub_json if p.endswith(".json") else scrub_sqlite)(p)
    print("scrubbed again", p)
