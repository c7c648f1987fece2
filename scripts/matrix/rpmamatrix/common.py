# SPDX-License-Identifier: BSD-3-Clause
"""What every job of the matrix shares: the methods, the plan's columns, sizes, how a
figure is printed, how a point is named, and the one way to fail or warn."""
import csv
import json
import re
import shlex
import sys

# the name errors and warnings go by (scripts/matrix/matrix)
PROG = "matrix"

# method -> (label, what it is)
METHODS = {
    "apm": "APM: RDMA write + flush emulated by an RDMA read (native_flush=0)",
    "apm-native": "APM: RDMA write + the device's own RDMA FLUSH (native_flush=1; "
                  "run_matrix.sh --native)",
    "gpspm-busy": "GPSPM, server busy-polls",
    "gpspm-sleep": "GPSPM, server sleeps on the completion channel",
    "gpspm-adaptive": "GPSPM, server naps then polls, as its requests' pace says "
                      "(busy_wait_polling=adaptive)",
    "gpspm-hub": "GPSPM, one busy-polling server job (one thread) for all the point's clients "
                 "(clients_per_job=): at the --jobs and --clients points",
    "noflush": "RDMA write with no flush (not durable): the baseline",
    "raw": "perftest raw verbs (ib_write_lat / ib_read_lat / ib_write_bw): the fabric's limit",
}
FIO_METHODS = ["apm", "apm-native", "gpspm-busy", "gpspm-sleep", "gpspm-adaptive", "gpspm-hub",
               "noflush"]
KIB = 1024
# hosts: client hosts running the point at once (run_matrix.sh --clients), each with numjobs;
# load: the server host's CPUs kept busy that percent of the time meanwhile (--server-load)
PLAN_COLUMNS = ["id", "impl", "method", "workload", "rw", "bs", "iodepth", "sync", "numjobs", "hosts",
                "load"]


def die(msg):
    print(f"{PROG}: error: {msg}", file=sys.stderr)
    sys.exit(2)


def warn(msg):
    print(f"{PROG}: warning: {msg}", file=sys.stderr)


def size_str(n):
    n = int(n)
    for unit, div in (("M", KIB * KIB), ("k", KIB)):
        if n >= div and n % div == 0:
            return f"{n // div}{unit}"
    return str(n)


def parse_size(text, option=None):
    m = re.fullmatch(r"([1-9][0-9]*)([kKmM]?)", text.strip())
    if not m:
        die(f"{option + ': ' if option else ''}'{text}' is not a size like 256, 4k or 1m")
    return int(m.group(1)) * {"": 1, "k": KIB, "m": KIB * KIB}[m.group(2).lower()]


def fmt(v, digits=1):
    if v is None or v == "":
        return ""
    if isinstance(v, float):
        return f"{v:.{digits}f}"
    return str(v)


def read_json(path, default):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return default


def impl_suffix(r):
    return " (peer)" if r.get("impl") == "peer" else ""


def point_label(r):
    return (f"{r['method']} {r['rw']} {size_str(r['bs'])} qd{r['iodepth']}"
            + (" sync" if r["sync"] == "1" else "") + (f" x{r['numjobs']} jobs" if r["numjobs"] != "1" else "")
            + (f" x{r['hosts']} hosts" if r["hosts"] != "1" else "")
            + (f" at {r['load']}% server load" if r.get("load", "0") != "0" else ""))


def read_tsv(path, columns=()):
    """The rows of a tab-separated table with a header line; dies when it cannot be
    read, has no rows or lacks one of columns."""
    try:
        with open(path) as f:
            rows = list(csv.DictReader(f, delimiter="\t"))
    except OSError as e:
        die(f"{path}: {e.strerror}")
    if not rows:
        die(f"{path}: no runs")
    missing = [c for c in columns if c not in rows[0]]
    if missing:
        die(f"{path}: no column {', '.join(missing)}")
    return rows


def append_tsv(path, columns, row):
    """ROW (its values in the order of COLUMNS) appended to the table at PATH, the
    header line first when PATH is empty or new: a bench's runs, a line each."""
    with open(path, "a") as f:
        if f.tell() == 0:
            f.write("\t".join(columns) + "\n")
        f.write("\t".join(map(str, row)) + "\n")


def write_md(path, md):
    """Markdown lines into path; prints the path (what a subcommand says it wrote)."""
    with open(path, "w") as f:
        f.write("\n".join(md) + "\n")
    print(path)


def env_items(env):
    """env.json's facts as (name, value) pairs; the server host's (a dict) each as
    'server: NAME'."""
    items = []
    for k, v in env.items():
        items += [(f"server: {sk}", sv) for sk, sv in v.items()] if isinstance(v, dict) else [(k, v)]
    return items


def table_head(head):
    """A Markdown table's heading line and rule."""
    return ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]


def shell_assignments(values):
    """NAME=VALUE lines (a list: NAME=(ITEM...)), each value quoted for a shell's eval:
    settings a runner's bash takes from here."""
    def word(v):
        return "(" + " ".join(map(shlex.quote, v)) + ")" if isinstance(v, list) else shlex.quote(v)
    return "\n".join(f"{name}={word(v)}" for name, v in values.items())
