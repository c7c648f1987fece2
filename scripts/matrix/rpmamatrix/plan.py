# SPDX-License-Identifier: BSD-3-Clause
"""The plan: the points a preset and the options ask for (the plan subcommand, which
run_matrix.sh writes to plan.tsv), and a result folder's plan.tsv read back."""
import csv
import os
import re

from .common import FIO_METHODS, METHODS, PLAN_COLUMNS, die, parse_size

# apm-native needs the native build (run_matrix.sh --native): in the default list only then
NATIVE_ONLY = ["apm-native"]
# the GPSPM server's third polling mode and its one-thread server: measured when named
ASKED_ONLY = ["gpspm-adaptive", "gpspm-hub"]
# methods measured only where several clients run at once: the --jobs points (and with
# --clients, each with 1..N hosts), not where one client alone would show nothing new
CLIENTS_ONLY = ["gpspm-hub"]
PRESETS = {
    # tiny: a smoke test of every method and chart (make test-matrix-vm)
    "quick": dict(repeats=1, settle=0, runtime=1, ramp=0, lat_bs=[4096, 65536], bw_bs=[4096, 65536],
                  bw_qd=16, qd=[16], rws=["write", "read"], read_bs=[4096], mix=False, jobs=[1]),
    # (settle: a point's third run only when its first two differ by more than 10%: the
    # time it saves buys the latency sweep's 1 KiB and 16 KiB points)
    "default": dict(repeats=3, settle=10, runtime=2, ramp=1, lat_bs=[256, 1024, 4096, 16384, 65536],
                    bw_bs=[4096, 65536], bw_qd=16, qd=[1, 16], rws=["write", "read"],
                    read_bs=[4096], mix=False, jobs=[1]),
    "full": dict(repeats=3, settle=10, runtime=10, ramp=2,
                 lat_bs=[256 << i for i in range(11)], bw_bs=[256 << i for i in range(11)],
                 bw_qd=16, qd=[1 << i for i in range(8)], rws=["write", "read"],
                 read_bs=[256 << i for i in range(11)], mix=True, jobs=[1, 2, 4]),
}
# whose engines: ours, or the peer (fio 3.33's in-tree engines over upstream librpma)
IMPLS = ["ours", "peer"]
# the methods the peer has (no no_flush option, no native FLUSH, no raw verbs of its own)
PEER_METHODS = ["apm", "gpspm-busy", "gpspm-sleep"]


def raw_tool(rw, sync):
    """The perftest program measuring the same thing, or None."""
    if sync == 1:
        return {"write": "ib_write_lat", "read": "ib_read_lat"}.get(rw)
    return "ib_write_bw" if rw == "write" else None


def make_plan(p, methods, impls=("ours",), hosts=1):
    """Points of the plan: deduplicated by what is measured; the first workload names it.
    With the peer, its twin of each point follows ours (measured close in time).
    With HOSTS client hosts, each fio point runs with 1, 2 .. HOSTS of them (perftest
    has one client: its points run once, from one host)."""
    points = []
    for pt in make_points(p, methods) + load_points(p, methods):
        for impl in impls:
            if impl == "peer" and (pt["method"] not in PEER_METHODS or
                                   (pt["method"].startswith("gpspm") and pt["rw"] != "write")):
                continue  # the peer's GPSPM client cannot read
            for h in range(1, (1 if pt["method"] == "raw" else hosts) + 1):
                if pt["method"] in CLIENTS_ONLY and h * pt["numjobs"] == 1:
                    continue  # one client: gpspm-busy's point
                points.append(dict(pt, impl=impl, hosts=h))
    for i, pt in enumerate(points, 1):
        pt["id"] = f"p{i:03d}"
    return points


def make_points(p, methods):
    points, seen = [], set()

    def add(method, workload, rw, bs, qd, sync, numjobs=1):
        if method == "noflush" and rw != "write":
            return  # no_flush changes writes only
        if method in ("gpspm-sleep", "gpspm-adaptive") and rw == "read":
            return  # reads never reach the GPSPM server: its polling mode plays no part
        if method == "raw" and (raw_tool(rw, sync) is None or numjobs != 1):
            return
        key = (method, rw, bs, qd, sync, numjobs)
        if key in seen:
            return
        seen.add(key)
        points.append(dict(method=method, workload=workload, rw=rw, bs=bs, iodepth=qd,
                           sync=sync, numjobs=numjobs, load=0))

    for m in methods:
        if m in CLIENTS_ONLY:
            for nj in p["jobs"]:
                add(m, "jobs", "write", 4096, p["bw_qd"], 0, nj)
            continue
        for rw in p["rws"]:
            for bs in (p["lat_bs"] if rw == "write" else p["read_bs"]):
                add(m, "lat", rw, bs, 1, 1)
            for bs in (p["bw_bs"] if rw == "write" else p["read_bs"]):
                add(m, "bw", rw, bs, p["bw_qd"], 0)
            for qd in p["qd"]:
                add(m, "qd", rw, 4096, qd, 0)
        if p["mix"]:
            add(m, "mix", "rw", 4096, p["bw_qd"], 0)
        for nj in p["jobs"]:
            if nj > 1:
                add(m, "jobs", "write", 4096, p["bw_qd"], 0, nj)
    return points


def load_points(p, methods):
    """--server-load: each fio method's 4 KiB write at depth 1 (sync) and at the bandwidth
    sweep's depth, once per load level; the plan's own points are at load 0."""
    return [dict(method=m, workload="load", rw="write", bs=4096, iodepth=qd, sync=sync, numjobs=1,
                 load=load)
            for load in p.get("loads", []) if load > 0 for m in methods
            if m != "raw" and m not in CLIENTS_ONLY
            for qd, sync in ((1, 1), (p["bw_qd"], 0))]


def whole_numbers(option, text, least=1):
    """A comma-separated list of whole numbers >= least, or a clear error naming the option."""
    out = []
    for item in text.split(","):
        if not re.fullmatch(r"[0-9]+", item.strip()) or int(item) < least:
            die(f"{option}: '{item}' is not a whole number of at least {least}")
        out.append(int(item))
    return out


def add_plan_options(p):
    """The plan's options (the plan subcommand's; run_matrix.sh's PLAN_ARGS are these)."""
    p.add_argument("--preset", choices=sorted(PRESETS), default="default")
    p.add_argument("--methods")
    p.add_argument("--rws")
    p.add_argument("--lat-bs", dest="lat_bs")
    p.add_argument("--bw-bs", dest="bw_bs")
    p.add_argument("--read-bs", dest="read_bs")
    p.add_argument("--qd")
    p.add_argument("--bw-qd", dest="bw_qd")
    p.add_argument("--mix", action="store_true")
    p.add_argument("--jobs")
    p.add_argument("--server-load", dest="server_load",
                   help="percents of the server host's CPUs kept busy: load points at each")
    p.add_argument("--impls", help="ours,peer (default ours)")
    p.add_argument("--hosts", type=int, default=1,
                   help="client hosts (run_matrix.sh --clients): each fio point with 1..N of them")
    p.add_argument("--native", action="store_true",
                   help="the native build: apm-native is allowed and in the default list")


def settings(args):
    """The preset with the options' changes, the methods and the implementations, each
    checked (a clear error naming the option otherwise)."""
    p = dict(PRESETS[args.preset])
    for name in ("lat_bs", "bw_bs", "read_bs"):
        val = getattr(args, name)
        if val == "none":
            p[name] = []
        elif val:
            p[name] = [parse_size(s, "--" + name.replace("_", "-")) for s in val.split(",")]
    if args.qd:
        p["qd"] = whole_numbers("--qd", args.qd)
    if args.bw_qd is not None:
        p["bw_qd"] = whole_numbers("--bw-qd", args.bw_qd)[0]
    if args.rws:
        p["rws"] = args.rws.split(",")
    if args.mix:
        p["mix"] = True
    if args.jobs:
        p["jobs"] = whole_numbers("--jobs", args.jobs)
    if args.server_load:
        p["loads"] = whole_numbers("--server-load", args.server_load, least=0)
        if max(p["loads"]) > 100:
            die(f"--server-load: {max(p['loads'])} is not a percent in 0..100")
    if args.methods:
        methods = args.methods.split(",")
    else:
        methods = [m for m in FIO_METHODS if (args.native or m not in NATIVE_ONLY)
                   and m not in ASKED_ONLY] + ["raw"]
    for m in methods:
        if m not in METHODS:
            die(f"--methods: unknown method '{m}' (known: {', '.join(METHODS)})")
        if m in NATIVE_ONLY and not args.native:
            die(f"--methods: {m} needs the build with native RDMA FLUSH: add --native "
                "(make native first)")
    for rw in p["rws"]:
        if rw not in ("write", "read"):
            die(f"--rw: '{rw}' is neither write nor read")
    impls = (args.impls or "ours").split(",")
    for impl in impls:
        if impl not in IMPLS:
            die(f"--impl: unknown implementation '{impl}' (known: {', '.join(IMPLS)})")
    if len(set(impls)) != len(impls):
        die(f"--impl: '{args.impls}' names an implementation twice")
    if args.hosts < 1:
        die(f"--hosts: {args.hosts} is not a number of client hosts")
    return p, methods, impls


def checked_plan(args):
    """The points the options ask for; a method that gets none is an error."""
    p, methods, impls = settings(args)
    plan = make_plan(p, methods, impls, args.hosts)
    for m in set(methods) & set(CLIENTS_ONLY):
        if not any(pt["method"] == m for pt in plan):
            die(f"--methods: {m} serves several clients from one server thread: it runs at "
                "the --jobs points above 1 (e.g. --jobs 1,2,4) or with --clients")
    return plan


def plan_tsv(plan):
    """The plan as plan.tsv holds it: a header, then a point a line."""
    lines = ["\t".join(PLAN_COLUMNS)] + ["\t".join(str(pt[c]) for c in PLAN_COLUMNS) for pt in plan]
    return "\n".join(lines) + "\n"


def cmd_plan(args):
    if args.defaults:
        p = settings(args)[0]
        print(" ".join(f"{k}={p[k]}" for k in ("repeats", "settle", "runtime", "ramp")))
        return
    print(plan_tsv(checked_plan(args)), end="")


def read_plan(folder):
    path = os.path.join(folder, "plan.tsv")
    if not os.path.exists(path):
        die(f"{folder}: no plan.tsv: not a matrix result folder")
    with open(path) as f:
        plan = list(csv.DictReader(f, delimiter="\t"))
    for pt in plan:
        pt.setdefault("impl", "ours")  # folders from before the peer was a column
        pt["hosts"] = pt.get("hosts") or "1"  # ... and before --clients
        pt["load"] = pt.get("load") or "0"  # ... and before --server-load
    return plan
