#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""matrix.py -- the matrix runner's planner, report builder and comparer.

  matrix.py plan  --preset quick|default|full [--methods LIST] [--rws LIST] ...
                  print the plan: one point per line (TSV with a header)
  matrix.py build DIR      results.csv, charts (gnuplot), report.md and report.html of DIR
  matrix.py compare A B OUT    both folders on the same charts, plus a table of ratios
  matrix.py report --out DIR [METHOD=]FIO_JSON...
                  a result folder DIR (then built) from the client's fio JSON of the
                  sweep job files (jobs/sweep.fio): one point per section; a server's
                  JSON next to NAME.json as NAME.server.json gives the server's CPU

DIR holds plan.tsv, options.json, env.json, status and runs/ (raw fio JSON,
perftest output), as scripts/run_matrix.sh writes them. Python 3 stdlib only.
"""
import argparse
import csv
import json
import os
import re
import statistics
import subprocess
import sys

# method -> (label, what it is)
METHODS = {
    "apm": "APM: RDMA write + flush emulated by an RDMA read (native_flush=0)",
    "apm-native": "APM: RDMA write + the device's own RDMA FLUSH (native_flush=1; "
                  "run_matrix.sh --native)",
    "gpspm-busy": "GPSPM, server busy-polls",
    "gpspm-sleep": "GPSPM, server sleeps on the completion channel",
    "noflush": "RDMA write with no flush (not durable): the baseline",
    "raw": "perftest raw verbs (ib_write_lat / ib_read_lat / ib_write_bw): the fabric's limit",
}
FIO_METHODS = ["apm", "apm-native", "gpspm-busy", "gpspm-sleep", "noflush"]
# apm-native needs the native build (run_matrix.sh --native): in the default list only then
NATIVE_ONLY = ["apm-native"]
# one colour per method on every chart (the raw verbs' limit in black)
COLORS = {"apm": "#9400d3", "apm-native": "#d55e00", "gpspm-busy": "#009e73", "gpspm-sleep": "#56b4e9",
          "noflush": "#e69f00", "raw": "#000000"}
KIB = 1024

PRESETS = {
    # tiny: a smoke test of every method and chart (make test-matrix-vm)
    "quick": dict(repeats=1, runtime=1, ramp=0, lat_bs=[4096, 65536], bw_bs=[4096, 65536],
                  bw_qd=16, qd=[16], rws=["write", "read"], read_bs=[4096], mix=False, jobs=[1]),
    "default": dict(repeats=3, runtime=2, ramp=1, lat_bs=[256, 4096, 65536],
                    bw_bs=[4096, 65536], bw_qd=16, qd=[1, 16], rws=["write", "read"],
                    read_bs=[4096], mix=False, jobs=[1]),
    "full": dict(repeats=3, runtime=10, ramp=2,
                 lat_bs=[256 << i for i in range(11)], bw_bs=[256 << i for i in range(11)],
                 bw_qd=16, qd=[1 << i for i in range(8)], rws=["write", "read"],
                 read_bs=[256 << i for i in range(11)], mix=True, jobs=[1, 2, 4]),
}
# hosts: client hosts running the point at once (run_matrix.sh --clients), each with numjobs
PLAN_COLUMNS = ["id", "impl", "method", "workload", "rw", "bs", "iodepth", "sync", "numjobs", "hosts"]
# whose engines: ours, or the peer (fio 3.33's in-tree engines over upstream librpma)
IMPLS = ["ours", "peer"]
# the methods the peer has (no no_flush option, no native FLUSH, no raw verbs of its own)
PEER_METHODS = ["apm", "gpspm-busy", "gpspm-sleep"]
# per-I/O costs of a point's cost run (tests/tools/verbs_count.c, hw_counters, fio's CPU)
COST_COLUMNS = [
    "cost_ios", "client_posts_per_io", "client_send_wrs_per_io", "client_recv_wrs_per_io",
    "client_completions_per_io", "server_posts_per_io", "server_send_wrs_per_io",
    "server_recv_wrs_per_io", "server_completions_per_io", "packets_per_io",
    "client_cpu_us_per_io", "server_cpu_us_per_io",
    "client_instructions_per_io", "server_instructions_per_io"]
CSV_COLUMNS = PLAN_COLUMNS + [
    "tool", "runs", "iops_median", "iops_min", "iops_max", "bw_mib_s_median", "bw_mib_s_min",
    "bw_mib_s_max", "lat_mean_us_median", "lat_mean_us_min", "lat_mean_us_max",
    "lat_p99_us_median", "server_cpu_pct_median", "overhead_vs_noflush", "fraction_of_raw"] + \
    COST_COLUMNS


def die(msg):
    print("matrix.py: error: " + msg, file=sys.stderr)
    sys.exit(2)


def size_str(n):
    n = int(n)
    for unit, div in (("M", KIB * KIB), ("k", KIB)):
        if n >= div and n % div == 0:
            return f"{n // div}{unit}"
    return str(n)


def parse_size(text):
    m = re.fullmatch(r"([1-9][0-9]*)([kKmM]?)", text.strip())
    if not m:
        die(f"'{text}' is not a size like 256, 4k or 1m")
    return int(m.group(1)) * {"": 1, "k": KIB, "m": KIB * KIB}[m.group(2).lower()]


# ---------------------------------------------------------------- plan

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
    for pt in make_points(p, methods):
        for impl in impls:
            if impl == "peer" and (pt["method"] not in PEER_METHODS or
                                   (pt["method"].startswith("gpspm") and pt["rw"] != "write")):
                continue  # the peer's GPSPM client cannot read
            for h in range(1, (1 if pt["method"] == "raw" else hosts) + 1):
                points.append(dict(pt, impl=impl, hosts=h))
    for i, pt in enumerate(points, 1):
        pt["id"] = f"p{i:03d}"
    return points


def make_points(p, methods):
    points, seen = [], set()

    def add(method, workload, rw, bs, qd, sync, numjobs=1):
        if method == "noflush" and rw != "write":
            return  # no_flush changes writes only
        if method == "gpspm-sleep" and rw == "read":
            return  # reads never reach the GPSPM server: its polling mode plays no part
        if method == "raw" and (raw_tool(rw, sync) is None or numjobs != 1):
            return
        key = (method, rw, bs, qd, sync, numjobs)
        if key in seen:
            return
        seen.add(key)
        points.append(dict(method=method, workload=workload, rw=rw, bs=bs, iodepth=qd,
                           sync=sync, numjobs=numjobs))

    for m in methods:
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


def cmd_plan(args):
    p = dict(PRESETS[args.preset])
    for name in ("lat_bs", "bw_bs", "read_bs"):
        val = getattr(args, name)
        if val:
            p[name] = [parse_size(s) for s in val.split(",")]
    if args.qd:
        p["qd"] = [int(q) for q in args.qd.split(",")]
    if args.bw_qd:
        p["bw_qd"] = args.bw_qd
    if args.rws:
        p["rws"] = args.rws.split(",")
    if args.mix:
        p["mix"] = True
    if args.jobs:
        p["jobs"] = [int(j) for j in args.jobs.split(",")]
    if args.methods:
        methods = args.methods.split(",")
    else:
        methods = [m for m in FIO_METHODS if args.native or m not in NATIVE_ONLY] + ["raw"]
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
    if args.defaults:
        print(" ".join(f"{k}={p[k]}" for k in ("repeats", "runtime", "ramp")))
        return
    print("\t".join(PLAN_COLUMNS))
    for pt in make_plan(p, methods, impls, args.hosts):
        print("\t".join(str(pt[c]) for c in PLAN_COLUMNS))


# ---------------------------------------------------------------- reading runs

def read_plan(folder):
    path = os.path.join(folder, "plan.tsv")
    if not os.path.exists(path):
        die(f"{folder}: no plan.tsv: not a matrix result folder")
    with open(path) as f:
        plan = list(csv.DictReader(f, delimiter="\t"))
    for pt in plan:
        pt.setdefault("impl", "ours")  # folders from before the peer was a column
        pt["hosts"] = pt.get("hosts") or "1"  # ... and before --clients
    return plan


def load_fio_json(path):
    """fio's JSON document in PATH: fio may print notes (errors) before it."""
    with open(path) as f:
        text = f.read()
    return json.loads(text[text.index("{"):])


def fio_result(doc):
    """The group-reported result of a client's fio JSON: its job's, or with fio's
    client/server mode (--client=HOST ...) the one of all the client hosts (fio's
    'All clients'; with one host, that host's)."""
    if "client_stats" not in doc:
        return doc["jobs"][0]
    stats = doc["client_stats"]
    return next((s for s in stats if s.get("jobname") == "All clients"), stats[-1])


def fio_figures(path, rw):
    """(iops, bw MiB/s, mean latency us, p99 us) of a client's fio JSON."""
    job = fio_result(load_fio_json(path))
    dirs = ["read", "write"] if rw == "rw" else [rw]
    iops = sum(job[d]["iops"] for d in dirs)
    bw = sum(job[d]["bw_bytes"] for d in dirs) / (KIB * KIB)
    ios = sum(job[d]["total_ios"] for d in dirs) or 1
    lat = sum(job[d]["lat_ns"]["mean"] * job[d]["total_ios"] for d in dirs) / ios / 1000
    # total latency's percentiles (lat_percentiles=1) where fio has them, else completion's
    p99s = [(job[d]["lat_ns"].get("percentile") or job[d]["clat_ns"].get("percentile") or {})
            .get("99.000000") for d in dirs]
    # (fio's 'All clients' of the client/server mode has no percentiles)
    p99 = max(p99s) / 1000 if None not in p99s else None
    return float(iops), float(bw), float(lat), p99


def server_cpu(path):
    """usr + sys CPU % of the server's jobs (GPSPM servers do the flushing)."""
    if not os.path.exists(path):
        return None
    try:
        jobs = load_fio_json(path)["jobs"]
    except (ValueError, KeyError):
        return None
    return sum(j["usr_cpu"] + j["sys_cpu"] for j in jobs)


def perftest_figures(path, bs, tool):
    """(iops, bw MiB/s, mean latency us, p99 us) from perftest's result line."""
    with open(path) as f:
        for line in f:
            cols = line.split()
            if len(cols) >= 5 and cols[0] == str(bs) and re.fullmatch(r"[0-9.]+", cols[2]):
                vals = [float(c) for c in cols]
                if tool.endswith("_lat"):  # bytes iters min max typical avg stdev p99 p99.9
                    lat = vals[5]
                    return 1e6 / lat, bs * 1e6 / lat / (KIB * KIB), lat, vals[7]
                # bytes iters peak avg[MB/s] msgrate[Mpps]
                return vals[4] * 1e6, vals[3], None, None
    raise ValueError(f"{path}: no result line for {bs} bytes")


def point_runs(folder, pt):
    """Figures of every successful run of a point."""
    runs = []
    base = os.path.join(folder, "runs", pt["id"])
    rep = 1
    while True:
        stem = f"{base}-r{rep}"
        if pt["method"] == "raw":
            path = stem + ".perftest.txt"
        else:
            path = stem + ".json"
        if not os.path.exists(path) and not os.path.exists(stem + ".failed"):
            break
        if os.path.exists(path) and not os.path.exists(stem + ".failed"):
            try:
                if pt["method"] == "raw":
                    fig = perftest_figures(path, int(pt["bs"]), raw_tool(pt["rw"], int(pt["sync"])))
                    cpu = None
                else:
                    fig = fio_figures(path, pt["rw"])
                    cpu = server_cpu(stem + ".server.json")
                runs.append(fig + (cpu,))
            except (ValueError, KeyError, IndexError) as e:
                print(f"matrix.py: warning: {path}: unreadable ({e})", file=sys.stderr)
        rep += 1
    return runs


def read_verbs_counts(path):
    """The counts of tests/tools/verbs_count.c in PATH, summed over the processes that
    wrote a line (one fio process a side; its helper processes write zeros)."""
    total = {}
    with open(path) as f:
        for line in f:
            if not line.strip():
                continue
            rec = json.loads(line)
            if rec.get("mixed_providers"):
                raise ValueError(f"{path}: two RDMA providers in one process: not counted")
            for k, v in rec.items():
                if k not in ("pid", "mixed_providers"):
                    total[k] = total.get(k, 0) + int(v)
    return total


def fio_ios_and_cpu(path):
    """(I/Os, CPU seconds usr+sys) of all the jobs in a fio JSON document."""
    ios, cpu_s = 0, 0.0
    for job in load_fio_json(path)["jobs"]:
        ios += sum(job[d]["total_ios"] for d in ("read", "write"))
        cpu_s += (job["usr_cpu"] + job["sys_cpu"]) / 100 * job["job_runtime"] / 1000
    return ios, cpu_s


def cost_figures(folder, pt):
    """The per-I/O costs of a point's cost run (runs/<id>-cost.*), or {} when it did not
    run or failed. Divided by the client's I/Os: the connection's own work requests and
    packets are in the totals, a rounding error at 2000 I/Os."""
    stem = os.path.join(folder, "runs", pt["id"] + "-cost")
    if not os.path.exists(stem + ".json") or os.path.exists(stem + ".failed"):
        return {}
    try:
        ios, client_cpu = fio_ios_and_cpu(stem + ".json")
        if not ios:
            return {}
        fig = {"cost_ios": ios, "client_cpu_us_per_io": client_cpu / ios * 1e6}
        for side in ("client", "server"):
            path = f"{stem}.{side}.verbs.json"
            if not os.path.exists(path):
                continue
            c = read_verbs_counts(path)
            fig[side + "_posts_per_io"] = c["post_send_calls"] / ios
            fig[side + "_send_wrs_per_io"] = c["send_wrs"] / ios
            fig[side + "_recv_wrs_per_io"] = c["recv_wrs"] / ios
            fig[side + "_completions_per_io"] = c["completions"] / ios
        if os.path.exists(stem + ".server.json"):
            fig["server_cpu_us_per_io"] = fio_ios_and_cpu(stem + ".server.json")[1] / ios * 1e6
        if os.path.exists(stem + ".packets"):
            with open(stem + ".packets") as f:
                fig["packets_per_io"] = int(f.read().split()[0]) / ios
    except (ValueError, KeyError, IndexError, OSError) as e:
        print(f"matrix.py: warning: {stem}: cost run unreadable ({e})", file=sys.stderr)
        return {}
    return fig


def callgrind_total(path):
    """The instructions a callgrind output file counted (its totals: or summary: line)."""
    with open(path) as f:
        for line in f:
            m = re.match(r"(?:totals|summary):\s+(\d+)", line)
            if m:
                return int(m.group(1))
    raise ValueError(f"{path}: no totals line")


def instruction_figures(folder, pt):
    """Instructions per I/O of the engine's callbacks (runs/<id>-instr.*, run_matrix.sh
    --instructions), client and, where it was measured, server; {} when not run."""
    stem = os.path.join(folder, "runs", pt["id"] + "-instr")
    if not os.path.exists(stem + ".json") or os.path.exists(stem + ".failed"):
        return {}
    try:
        ios = fio_ios_and_cpu(stem + ".json")[0]
        if not ios:
            return {}
        fig = {}
        for side in ("client", "server"):
            path = f"{stem}.{side}.callgrind"
            if os.path.exists(path):
                fig[side + "_instructions_per_io"] = callgrind_total(path) / ios
    except (ValueError, KeyError, IndexError, OSError) as e:
        print(f"matrix.py: warning: {stem}: instructions run unreadable ({e})", file=sys.stderr)
        return {}
    return fig


def spread(values):
    vals = [v for v in values if v is not None]
    if not vals:
        return None, None, None
    return statistics.median(vals), min(vals), max(vals)


def summarize(folder):
    """One row per point of the plan (figures empty where no run succeeded)."""
    plan = read_plan(folder)
    rows = []
    for pt in plan:
        runs = point_runs(folder, pt)
        row = dict(pt)
        row["tool"] = raw_tool(pt["rw"], int(pt["sync"])) if pt["method"] == "raw" else "fio"
        row["connections"] = int(pt["numjobs"]) * int(pt["hosts"])
        row["runs"] = len(runs)
        for i, name in enumerate(["iops", "bw_mib_s", "lat_mean_us"]):
            row[name + "_median"], row[name + "_min"], row[name + "_max"] = \
                spread([r[i] for r in runs])
        row["lat_p99_us_median"] = spread([r[3] for r in runs])[0]
        row["server_cpu_pct_median"] = spread([r[4] for r in runs])[0]
        costs = cost_figures(folder, pt) if pt["method"] != "raw" else {}
        costs.update(instruction_figures(folder, pt) if pt["method"] != "raw" else {})
        for c in COST_COLUMNS:
            row[c] = costs.get(c)
        rows.append(row)
    add_ratios(rows)
    return rows


def same_point(a, b):
    return all(a[k] == b[k] for k in ("rw", "bs", "iodepth", "sync", "numjobs", "hosts"))


def twin(rows, r, impl):
    """The row of the same method and point measured with IMPL's engines, or None."""
    return next((o for o in rows if o["impl"] == impl and o["method"] == r["method"]
                 and same_point(r, o)), None)


def add_ratios(rows):
    """Persistence overhead (latency / no-flush latency, or no-flush IOPS / IOPS) and
    the fraction of the raw verbs' IOPS each point reaches."""
    for r in rows:
        r["overhead_vs_noflush"] = r["fraction_of_raw"] = None
        if r["method"] in ("noflush", "raw") or r["iops_median"] is None:
            continue
        for other in rows:
            if not same_point(r, other) or other["iops_median"] is None:
                continue
            if other["method"] == "noflush":
                r["overhead_vs_noflush"] = other["iops_median"] / r["iops_median"]
            elif other["method"] == "raw":
                r["fraction_of_raw"] = r["iops_median"] / other["iops_median"]


def fmt(v, digits=1):
    if v is None or v == "":
        return ""
    if isinstance(v, float):
        return f"{v:.{digits}f}"
    return str(v)


def write_csv(rows, path):
    with open(path, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(CSV_COLUMNS)
        for r in rows:
            w.writerow([fmt(r[c], 3) for c in CSV_COLUMNS])


# ---------------------------------------------------------------- charts

# chart name -> (title, x column, x label, y figure, y label, filter, log x)
def chart_fixed(rows, col, preferred):
    """What the charts vs block size (COL iodepth) and vs depth (COL bs) hold fixed:
    PREFERRED if a queued (sync=0) point has it, else the largest (a sweep of any shape)."""
    vals = {r[col] for r in rows if r["sync"] == "0"}
    return preferred if preferred in vals or not vals else max(vals, key=int)


def chart_specs(rows):
    """The charts of one host's points, then (--clients) the scaling charts."""
    one_host = [(name, title, xcol, xlabel, fig, ylabel, lambda r, f=flt: r["hosts"] == "1" and f(r))
                for name, title, xcol, xlabel, fig, ylabel, flt in one_host_specs(rows)]
    return one_host + scaling_specs(rows)


def scaling_specs(rows):
    """--clients: IOPS and mean latency as client hosts x jobs grow, at the depth-1 (sync)
    and the queued 4 KiB write points that ran on more than one host."""
    many = [r for r in rows if r["hosts"] != "1" and r["rw"] == "write"]
    specs = []
    for sync, what in (("1", "iodepth 1, sync"), ("0", "queued")):
        pts = {(r["bs"], r["iodepth"]) for r in many if r["sync"] == sync}
        if not pts:
            continue
        bs, qd = min(pts, key=lambda p: (p[0] != "4096", -int(p[1])))
        bs_label = f"{int(bs) // KIB} KiB" if int(bs) % KIB == 0 else f"{bs} B"
        where = f"{bs_label}, iodepth {qd}" + (" sync" if sync == "1" else "")

        def at(r, bs=bs, qd=qd, sync=sync):
            return r["rw"] == "write" and r["bs"] == bs and r["iodepth"] == qd and r["sync"] == sync
        # one point per number of connections: the one spread over the most hosts (2 hosts x
        # 1 job rather than 1 host x 2 jobs), so a line grows hosts first, then jobs
        best = {}
        for r in rows:
            if at(r):
                key = (r["method"], r["impl"], int(r["hosts"]) * int(r["numjobs"]))
                if key not in best or int(r["hosts"]) > int(best[key]["hosts"]):
                    best[key] = r
        keep = {r["id"] for r in best.values()}

        def flt(r, keep=keep):
            return r["id"] in keep
        tag = "sync" if sync == "1" else "qd"
        specs.append((f"iops_vs_clients_{tag}", f"write: IOPS of all clients vs client hosts x jobs "
                      f"({where})", "connections", "client hosts x jobs", "iops", "IOPS", flt))
        specs.append((f"lat_vs_clients_{tag}", f"write: mean latency vs client hosts x jobs "
                      f"({where}, {what})", "connections", "client hosts x jobs", "lat_mean_us",
                      "mean latency [us]", flt))
    return specs


def one_host_specs(rows):
    bw_qd = next((r["iodepth"] for r in rows if r["workload"] == "bw"), None) or \
        chart_fixed(rows, "iodepth", "16")
    qd_bs = chart_fixed(rows, "bs", "4096")
    qd_bs_label = f"{int(qd_bs) // KIB} KiB" if int(qd_bs) % KIB == 0 else f"{qd_bs} B"
    specs = []
    for rw in ("write", "read"):
        specs += [
            (f"lat_vs_bs_{rw}", f"{rw}: mean latency vs block size (iodepth 1, sync)", "bs",
             "block size [bytes]", "lat_mean_us", "mean latency [us]",
             lambda r, rw=rw: r["rw"] == rw and r["sync"] == "1"),
            (f"iops_vs_bs_{rw}", f"{rw}: IOPS vs block size (iodepth {bw_qd})", "bs",
             "block size [bytes]", "iops", "IOPS",
             lambda r, rw=rw: r["rw"] == rw and r["sync"] == "0" and r["iodepth"] == bw_qd
             and r["numjobs"] == "1"),
            (f"bw_vs_bs_{rw}", f"{rw}: bandwidth vs block size (iodepth {bw_qd})", "bs",
             "block size [bytes]", "bw_mib_s", "bandwidth [MiB/s]",
             lambda r, rw=rw: r["rw"] == rw and r["sync"] == "0" and r["iodepth"] == bw_qd
             and r["numjobs"] == "1"),
            (f"iops_vs_qd_{rw}", f"{rw}: IOPS vs queue depth ({qd_bs_label})", "iodepth",
             "iodepth", "iops", "IOPS",
             lambda r, rw=rw: r["rw"] == rw and r["sync"] == "0" and r["bs"] == qd_bs
             and r["numjobs"] == "1"),
        ]
    specs.append(("overhead_vs_noflush", "write: persistence overhead (no-flush IOPS / IOPS, "
                  "iodepth 1)", "bs", "block size [bytes]", "overhead_vs_noflush",
                  "x slower than no flush",
                  lambda r: r["rw"] == "write" and r["sync"] == "1"))
    specs.append(("fraction_of_raw", "write: share of the raw verbs' IOPS (iodepth 1)", "bs",
                  "block size [bytes]", "fraction_of_raw", "IOPS / raw verbs IOPS",
                  lambda r: r["rw"] == "write" and r["sync"] == "1"))
    # per-I/O costs (the cost runs): what each I/O asks of the device and the wire
    specs.append(("cost_posts_vs_qd", f"write: client post calls (doorbells) per I/O vs queue "
                  f"depth ({qd_bs_label})", "iodepth", "iodepth", "client_posts_per_io",
                  "post calls per I/O",
                  lambda r: r["rw"] == "write" and r["bs"] == qd_bs and r["numjobs"] == "1"))
    specs.append(("cost_packets_vs_qd", f"write: packets on the wire per I/O vs queue depth "
                  f"({qd_bs_label})", "iodepth", "iodepth", "packets_per_io", "packets per I/O",
                  lambda r: r["rw"] == "write" and r["bs"] == qd_bs and r["numjobs"] == "1"))
    specs.append(("cost_packets_vs_bs", "write: packets on the wire per I/O vs block size "
                  "(iodepth 1, sync)", "bs", "block size [bytes]", "packets_per_io",
                  "packets per I/O", lambda r: r["rw"] == "write" and r["sync"] == "1"))
    return specs


def series(rows, flt, xcol, fig):
    """(method, impl) -> sorted [(x, median, min, max)] of the rows passing flt."""
    out = {}
    for r in rows:
        if not flt(r):
            continue
        if fig + "_median" in r:
            med, lo, hi = r[fig + "_median"], r.get(fig + "_min"), r.get(fig + "_max")
        else:
            med = lo = hi = r.get(fig)
        if med is None:
            continue
        key = (r["method"], r.get("impl", "ours"))
        out.setdefault(key, []).append((int(r[xcol]), med, lo if lo is not None else med,
                                        hi if hi is not None else med))
    for v in out.values():
        v.sort()
    return out


def gp_str(text):
    """A gnuplot single-quoted string ('' stands for a quote inside)."""
    return "'" + text.replace("'", "''") + "'"


def draw(name, title, xlabel, ylabel, logx, datasets, outdir):
    """datasets: [(label, points, color, dashed)]. Writes NAME.png and NAME.svg;
    returns [NAME], or [] when there is nothing to draw."""
    datasets = [d for d in datasets if d[1]]
    if not datasets:
        return []
    data_dir = os.path.join(outdir, "data")
    os.makedirs(data_dir, exist_ok=True)
    plots = []
    for i, (label, pts, color, dashed) in enumerate(datasets):
        dat = os.path.join(data_dir, f"{name}.{i}.dat")
        with open(dat, "w") as f:
            f.write("# x median min max\n")
            for p in pts:
                f.write(" ".join(f"{v:g}" for v in p) + "\n")
        style = f"lc rgb '{color}' lw 2 dt {2 if dashed else 1} pt {6 if dashed else 7}"
        plots.append(f"{gp_str(dat)} using 1:2:3:4 with yerrorlines {style} title {gp_str(label)}")
    files = []
    for term, ext in (("pngcairo size 900,540 noenhanced", "png"),
                      ("svg size 900,540 dynamic noenhanced", "svg")):
        out = os.path.join(outdir, f"{name}.{ext}")
        script = "\n".join([
            f"set terminal {term}", f"set output {gp_str(out)}", f"set title {gp_str(title)}",
            f"set xlabel {gp_str(xlabel)}", f"set ylabel {gp_str(ylabel)}", "set grid",
            "set key outside right top", "set yrange [0:*]",
            "set logscale x 2" if logx else "set xrange [*:*]",
            "plot " + ", \\\n  ".join(plots), ""])
        with open(os.path.join(data_dir, f"{name}.{ext}.gp"), "w") as f:
            f.write(script)
        res = subprocess.run(["gnuplot"], input=script, text=True, capture_output=True)
        if res.returncode != 0 or not os.path.getsize(out):
            die(f"gnuplot failed on {name}.{ext}: {res.stderr.strip()}")
        files.append(out)
    return [name]


def draw_all(rows_by_label, outdir):
    """Every chart with every labelled folder's rows on it (second folder dashed)."""
    first = next(iter(rows_by_label.values()))
    drawn = []
    for name, title, xcol, xlabel, fig, ylabel, flt in chart_specs(first):
        datasets = []
        for n, (label, rows) in enumerate(rows_by_label.items()):
            for (method, impl), pts in series(rows, flt, xcol, fig).items():
                name_ = method + (" (peer)" if impl == "peer" else "")
                datasets.append((f"{name_}{' ' + label if label else ''}", pts, COLORS[method],
                                 n > 0 or impl == "peer"))
        drawn += draw(name, title, xlabel, ylabel, xcol == "bs" or xcol == "iodepth",
                      datasets, outdir)
    return drawn


# ---------------------------------------------------------------- report

def read_json(path, default):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return default


def read_status(folder):
    try:
        with open(os.path.join(folder, "status")) as f:
            return f.read().strip() or "partial"
    except OSError:
        return "partial"


def summary_table(rows):
    head = ["point", "method", "rw", "bs", "iodepth", "jobs", "hosts", "runs", "IOPS median [min..max]",
            "MiB/s", "lat mean us [min..max]", "p99 us", "x no-flush", "of raw", "server CPU %"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        if r["iops_median"] is None:
            figs = ["**missing**"] + [""] * 6
        else:
            lat = "" if r["lat_mean_us_median"] is None else \
                f"{r['lat_mean_us_median']:.1f} [{r['lat_mean_us_min']:.1f}..{r['lat_mean_us_max']:.1f}]"
            figs = [f"{r['iops_median']:.0f} [{r['iops_min']:.0f}..{r['iops_max']:.0f}]",
                    fmt(r["bw_mib_s_median"]), lat, fmt(r["lat_p99_us_median"]),
                    fmt(r["overhead_vs_noflush"], 2), fmt(r["fraction_of_raw"], 2),
                    fmt(r["server_cpu_pct_median"])]
        lines.append("| " + " | ".join([r["id"], r["method"] + impl_suffix(r), r["rw"], size_str(r["bs"]),
                                        r["iodepth"] + ("" if r["sync"] == "0" else " (sync)"),
                                        r["numjobs"], r["hosts"], str(r["runs"])] + figs) + " |")
    return lines


def impl_suffix(r):
    return " (peer)" if r.get("impl") == "peer" else ""


def point_label(r):
    return (f"{r['method']} {r['rw']} {size_str(r['bs'])} qd{r['iodepth']}"
            + (" sync" if r["sync"] == "1" else "") + (f" x{r['numjobs']} jobs" if r["numjobs"] != "1" else "")
            + (f" x{r['hosts']} hosts" if r["hosts"] != "1" else ""))


# the per-I/O cost columns of the report: (column, heading, digits)
COST_TABLE = [("client_posts_per_io", "client posts", 2), ("client_send_wrs_per_io", "client WRs", 2),
              ("client_completions_per_io", "client CQEs", 2), ("server_posts_per_io", "server posts", 2),
              ("server_recv_wrs_per_io", "server recv WRs", 2),
              ("server_completions_per_io", "server CQEs", 2), ("packets_per_io", "packets", 2),
              ("client_cpu_us_per_io", "client CPU us", 1), ("server_cpu_us_per_io", "server CPU us", 1),
              ("client_instructions_per_io", "client instr", 0),
              ("server_instructions_per_io", "server instr", 0)]


def cost_table(rows):
    """One line per point that has a cost run: what one I/O costs."""
    costed = [r for r in rows if r.get("cost_ios") is not None]
    if not costed:
        return []
    head = ["point", "method", "rw", "bs", "iodepth", "I/Os"] + [h for _, h, _ in COST_TABLE]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in costed:
        lines.append("| " + " | ".join(
            [r["id"], r["method"] + impl_suffix(r), r["rw"], size_str(r["bs"]),
             r["iodepth"] + ("" if r["sync"] == "0" else " (sync)"), str(r["cost_ios"])]
            + [fmt(r[c], d) for c, _, d in COST_TABLE]) + " |")
    return lines


# ours vs the peer: (figure, heading, better: +1 higher, -1 lower)
VERSUS = [("iops_median", "IOPS", +1), ("lat_mean_us_median", "mean lat", -1),
          ("lat_p99_us_median", "p99 lat", -1), ("client_posts_per_io", "client posts", -1),
          ("server_posts_per_io", "server posts", -1), ("packets_per_io", "packets", -1),
          ("client_cpu_us_per_io", "client CPU", -1), ("server_cpu_us_per_io", "server CPU", -1),
          ("client_instructions_per_io", "client instr", -1),
          ("server_instructions_per_io", "server instr", -1)]


def ratio(a, b):
    if a is None or b is None or b == 0:
        return None
    return a / b


def versus_table(rows):
    """ours / peer at every point both measured, one column a figure."""
    pairs = [(r, twin(rows, r, "peer")) for r in rows if r["impl"] == "ours"]
    pairs = [(o, p) for o, p in pairs if p is not None]
    if not pairs:
        return []
    head = ["point"] + [h for _, h, _ in VERSUS]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for o, p in pairs:
        cells = []
        for col, _, _ in VERSUS:
            x = ratio(o.get(col), p.get(col))
            cells.append("" if x is None else f"{x:.2f}x")
        lines.append("| " + " | ".join([point_label(o)] + cells) + " |")
    return lines


def env_lines(env, options):
    lines = ["| what | value |", "|---|---|"]
    for k, v in list(env.items()) + [("option " + k, v) for k, v in options.items()]:
        lines.append(f"| {k} | {str(v).replace('|', '/')} |")
    return lines


def md_to_html(md_lines, charts, folder, title):
    """The report's Markdown as HTML: tables and headings converted, charts inlined as SVG."""
    out = [f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{title}</title>",
           "<style>body{font-family:sans-serif;max-width:1200px;margin:auto}"
           "table{border-collapse:collapse;font-size:90%}td,th{border:1px solid #aaa;"
           "padding:2px 6px;text-align:right}.partial{color:#b00;font-weight:bold}</style>",
           "</head><body>"]
    open_block = None  # "table" or "ul": the block the previous lines opened
    for line in md_lines:
        esc = line.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        esc = re.sub(r"\*\*(.+?)\*\*", r"<b>\1</b>", esc)
        esc = re.sub(r"`(.+?)`", r"<code>\1</code>", esc)
        block = "table" if line.startswith("|") else "ul" if line.startswith("- ") else None
        if open_block and block != open_block:
            out.append(f"</{open_block}>")
            open_block = None
        if block == "table":
            if set(line) <= set("|-"):
                continue
            cells = [c.strip() for c in esc.strip("|").split("|")]
            tag = "th" if not open_block else "td"
            if not open_block:
                out.append("<table>")
                open_block = "table"
            out.append("<tr>" + "".join(f"<{tag}>{c}</{tag}>" for c in cells) + "</tr>")
            continue
        if block == "ul":
            if not open_block:
                out.append("<ul>")
                open_block = "ul"
            out.append(f"<li>{esc[2:]}</li>")
            continue
        m = re.match(r"(#+) (.*)", line)
        if m:
            n = len(m.group(1))
            out.append(f"<h{n}>{esc[n + 1:]}</h{n}>")
        elif line.startswith("![chart]("):
            name = line[len("![chart]("):-len(".png)")]
            with open(os.path.join(folder, name + ".svg")) as f:
                svg = f.read()
            svg = svg[svg.index("<svg"):]
            out.append(f"<div>{svg}</div>")
        elif line.strip():
            cls = " class='partial'" if "PARTIAL" in line else ""
            out.append(f"<p{cls}>{esc}</p>")
    if open_block:
        out.append(f"</{open_block}>")
    out.append("</body></html>")
    return "\n".join(out)


def write_reports(folder, title, md):
    charts = [line[len("![chart]("):-len(".png)")] for line in md if line.startswith("![chart](")]
    with open(os.path.join(folder, "report.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    with open(os.path.join(folder, "report.html"), "w") as f:
        f.write(md_to_html(md, charts, folder, title))


def cmd_build(args):
    build(args.dir)


def build(folder):
    rows = summarize(folder)
    write_csv(rows, os.path.join(folder, "results.csv"))
    charts = draw_all({"": rows}, os.path.join(folder, "charts"))
    env = read_json(os.path.join(folder, "env.json"), {})
    options = read_json(os.path.join(folder, "options.json"), {})
    status = read_status(folder)
    done = sum(1 for r in rows if r["runs"])
    md = ["# rpma-fio matrix report", ""]
    if status != "complete":
        md += [f"**PARTIAL**: the run was stopped ({status}); {done} of {len(rows)} points "
               "have figures, the rest are marked missing.", ""]
    md += [f"Points: {len(rows)} ({done} measured). Each figure is the median of the runs "
           "(min..max in brackets). `x no-flush`: no-flush IOPS / the method's IOPS at the "
           "same point (what persistence costs); `of raw`: the method's IOPS / perftest's.",
           "", "Methods:", ""]
    ran = {r["method"] for r in rows}
    md += [f"- `{m}`: {d}" for m, d in METHODS.items() if m in ran]
    if any(r["impl"] == "peer" for r in rows):
        md += ["- `(peer)`: the same method with the peer's engines (fio 3.33's in-tree "
               "librpma engines over upstream librpma 1.2.0, `build/peer/fio`), dashed on the charts"]
    md += ["", "## Summary", ""] + summary_table(rows)
    versus = versus_table(rows)
    if versus:
        md += ["", "## Ours vs the peer", "",
               "ours / peer at each point both measured: above 1.00x for IOPS, below for "
               "everything else, means ours is better. Latency figures are medians of the "
               "measured runs; costs come from the cost runs (next section).", ""] + versus
    costs = cost_table(rows)
    if costs:
        md += ["", "## Per-I/O costs", "",
               "One cost run a point: a fixed number of I/Os per job (the `I/Os` column), no "
               "ramp, the client sleeping on its completions (`busy_wait_polling=0`; the peer's "
               "client always busy-polls). Counted by `tests/tools/verbs_count.c` preloaded "
               "into both sides' fio: post calls (each a doorbell; on Soft-RoCE a system call), "
               "work requests and completions (CQEs) per I/O; `packets`: the RDMA devices' "
               "`sent_pkts` over the run / I/Os; CPU: fio's usr+sys time / I/Os. The "
               "connection's own requests and packets are included (a rounding error).", ""] + costs
    # where the figures come from (the VM's accelerator above all) before the charts
    md += ["", "## Environment", ""] + env_lines(env, options)
    md += ["", "## Charts", ""]
    for c in charts:
        md += [f"![chart](charts/{c}.png)", ""]
    md += ["Files: `results.csv` (one row per point), `runs/` (raw fio JSON and perftest "
           "output of every run), `charts/` (PNG, SVG, gnuplot scripts and data).", ""]
    write_reports(folder, "rpma-fio matrix report", md)
    print(os.path.join(folder, "report.html"))


# ---------------------------------------------------------------- the sweep job files' JSON

# the sections of jobs/sweep.fio (scripts/gen-sweep-jobs.py): write-bs4k-qd16
SWEEP_SECTION = re.compile(r"(write|read)-bs([1-9][0-9]*[kKmM]?)-qd([1-9][0-9]*)")
SWEEP_FIO_RW = {"write": ("randwrite", "write"), "read": ("randread", "read")}


def read_sweep_json(path, side):
    """fio's JSON output of one side ("client" or "server") of the sweep."""
    not_fio = (f"{path}: not fio's JSON output (run the {side} with --output-format=json "
               "--output=FILE)")
    try:
        doc = load_fio_json(path)
    except OSError as e:
        die(f"{path}: {e.strerror}")
    except ValueError:
        die(not_fio)
    if not isinstance(doc, dict) or "fio version" not in doc or \
            not isinstance(doc.get("jobs"), list):
        die(not_fio)
    if not doc["jobs"]:
        die(f"{path}: fio ran no job")
    if ((doc.get("global options") or {}).get("mode") == "server") != (side == "server"):
        die(f"{path}: not the JSON of a {side} side: give the client's JSON (fio --ioengine=... "
            "jobs/sweep.fio --output-format=json --output=NAME.json); the server's may sit "
            "next to it as NAME.server.json")
    return doc


def sweep_method(path, opts, server_opts):
    """The method of a client job from its engine, no_flush and its server's polling."""
    engine = os.path.basename(opts.get("ioengine", ""))
    if engine.startswith("librpma_apm"):
        if opts.get("no_flush") == "1":
            return "noflush"
        return "apm-native" if opts.get("native_flush") == "1" else "apm"
    if engine.startswith("librpma_gpspm"):
        # the sweep's GPSPM server polls unless told otherwise (SERVER_BUSY_WAIT=1)
        return "gpspm-sleep" if server_opts.get("busy_wait_polling") == "0" else "gpspm-busy"
    die(f"{path}: ioengine '{opts.get('ioengine', '')}' is not an rpma-fio engine "
        f"(build/librpma_apm.so, build/librpma_gpspm.so): name the method, e.g. apm={path}")


def sweep_jobs(arg):
    """One [METHOD=]FIO_JSON of the sweep's client (and NAME.server.json next to it, if
    any): its document, its server's (or None) and (method, point key, job, server
    jobs) of each of its jobs."""
    method, sep, path = arg.partition("=")
    if not sep or method not in FIO_METHODS:
        method, path = None, arg
    doc = read_sweep_json(path, "client")
    server_path = re.sub(r"\.json$", ".server.json", path)
    server = None
    if server_path != path and os.path.exists(server_path):
        server = read_sweep_json(server_path, "server")
    server_opts = (server or {}).get("global options") or {}
    server_jobs = {}
    for job in (server or {}).get("jobs", []):
        server_jobs.setdefault(job.get("jobname"), []).append(job)
    out, seen = [], set()
    for job in doc["jobs"]:
        name = job.get("jobname", "")
        m = SWEEP_SECTION.fullmatch(name)
        if not m:
            die(f"{path}: job '{name}' is not a section of the sweep (jobs/sweep.fio names "
                "them like write-bs4k-qd16): give the JSON of jobs/sweep.fio")
        if name in seen:
            die(f"{path}: job '{name}' appears twice: run the client with group_reporting=1 "
                "(jobs/client.inc sets it)")
        seen.add(name)
        opts = dict(doc.get("global options") or {})
        opts.update(job.get("job options") or {})
        rw, bs, qd = m.group(1), parse_size(m.group(2)), int(m.group(3))
        for opt, ok in (("rw", SWEEP_FIO_RW[rw]), ("bs", (m.group(2), str(bs))),
                        ("iodepth", (str(qd),))):
            if opt in opts and opts[opt] not in ok:
                die(f"{path}: job '{name}' ran with {opt}={opts[opt]}, not what its name says")
        sync = 1 if opts.get("sync", "1" if qd == 1 else "0") in ("1", "sync") else 0
        key = (rw, bs, qd, sync, int(opts.get("numjobs", "1")))
        out.append((method or sweep_method(path, opts, server_opts), key, job,
                    server_jobs.get(name)))
    return doc, server, out


def fio_doc(doc, jobs, source):
    """A fio JSON document holding some of DOC's jobs, as the matrix runner keeps one run."""
    one = {k: doc[k] for k in ("fio version", "timestamp", "time", "global options") if k in doc}
    one.update({"rpma-fio source": source, "jobs": jobs})
    return one


def cmd_report(args):
    """A result folder from fio JSON of the sweep: one point per (method, section); the
    same point in several files makes several runs of it. Then built like any other."""
    folder = args.out
    if os.path.exists(os.path.join(folder, "plan.tsv")):
        die(f"{folder} already holds results: give a new folder")
    runs, docs, servers = {}, {}, {}
    for arg in args.files:
        if arg in docs:
            die(f"{arg} is given twice")
        docs[arg], servers[arg], jobs = sweep_jobs(arg)
        for method, key, job, server_jobs in jobs:
            runs.setdefault((method,) + key, []).append((arg, job, server_jobs))
    order = {m: i for i, m in enumerate(FIO_METHODS)}
    points = sorted(runs, key=lambda k: (order[k[0]], k[1] != "write") + k[2:])
    os.makedirs(os.path.join(folder, "runs"), exist_ok=True)
    failed = []
    with open(os.path.join(folder, "plan.tsv"), "w") as f:
        f.write("\t".join(PLAN_COLUMNS) + "\n")
        for i, point in enumerate(points, 1):
            pid = f"p{i:03d}"
            method, rw, bs, qd, sync, numjobs = point
            f.write("\t".join(map(str, [pid, "ours", method, "sweep", rw, bs, qd, sync, numjobs, 1]))
                    + "\n")
            for rep, (arg, job, server_jobs) in enumerate(runs[point], 1):
                stem = os.path.join(folder, "runs", f"{pid}-r{rep}")
                with open(stem + ".json", "w") as out:
                    json.dump(fio_doc(docs[arg], [job], arg), out, indent=1)
                if server_jobs:
                    with open(stem + ".server.json", "w") as out:
                        json.dump(fio_doc(servers[arg], server_jobs, arg), out, indent=1)
                if job.get("error"):
                    failed.append(f"{job['jobname']} of {arg}")
                    with open(stem + ".failed", "w") as out:
                        out.write(f"fio job {job['jobname']} of {arg} failed: error "
                                  f"{job['error']}\n")
    total = sum(len(r) for r in runs.values())
    with open(os.path.join(folder, "status"), "w") as f:
        f.write(f"partial ({len(failed)} of {total} sections failed: {', '.join(failed)})\n"
                if failed else "complete\n")
    first = docs[args.files[0]]
    with open(os.path.join(folder, "env.json"), "w") as f:
        json.dump({"date": first.get("time", "?"), "fio": first.get("fio version", "?"),
                   "measured by": "the sweep job files (jobs/sweep.fio); platform not "
                   "recorded"}, f, indent=1)
    options = {"command": args.command or "matrix.py report " + " ".join(args.files),
               "source": "fio JSON of jobs/sweep.fio, one run per section"}
    for arg, doc in docs.items():
        g = doc.get("global options") or {}
        sg = (servers[arg] or {}).get("global options") or {}
        options[arg] = ", ".join(
            [f"{k}={g[k]}" for k in ("ioengine", "no_flush", "serverip", "runtime", "ramp_time",
                                     "numjobs") if k in g] +
            [f"server {k}={sg[k]}" for k in ("filename", "size", "busy_wait_polling",
                                             "direct_write_to_pmem") if k in sg] +
            ([] if servers[arg] else ["no server JSON"]))
    with open(os.path.join(folder, "options.json"), "w") as f:
        json.dump(options, f, indent=1)
    build(folder)


# ---------------------------------------------------------------- benchmarks

# docs/BENCHMARKS.md: (figure, title, better (+1 higher, -1 lower), digits, target)
BENCH_FIGURES = [
    ("iops_median", "IOPS", +1, 0, "iops"),
    ("lat_mean_us_median", "mean latency, us", -1, 1, "le1"),
    ("lat_p99_us_median", "p99 latency, us", -1, 1, "le1"),
    ("client_posts_per_io", "client post calls (doorbells) per I/O", -1, 2, "le1"),
    ("client_send_wrs_per_io", "client work requests per I/O", -1, 2, None),
    ("client_completions_per_io", "client completions per I/O", -1, 2, None),
    ("server_posts_per_io", "server post calls per I/O", -1, 2, None),
    ("server_recv_wrs_per_io", "server receive work requests per I/O", -1, 2, None),
    ("packets_per_io", "packets on the wire per I/O", -1, 2, "packets"),
    ("client_cpu_us_per_io", "client CPU per I/O (cost run: ours sleeps on its completions, "
     "the peer's client busy-polls), us", -1, 1, None),
    ("server_cpu_us_per_io", "server CPU per I/O (cost run), us", -1, 1, None),
    ("client_instructions_per_io", "client instructions per I/O (engine + library, callgrind; "
     "ours sleeps on its completions, the peer's client busy-polls: its loop counts)", -1, 0,
     "instr"),
    ("server_instructions_per_io", "GPSPM server instructions per I/O (engine + library, "
     "callgrind, both servers sleeping)", -1, 0, "instr"),
]


def batched_4k_randwrite(r):
    return r["rw"] == "write" and r["bs"] == "4096" and r["sync"] == "0" and int(r["iodepth"]) >= 8


def bench_target(kind, r):
    """(ratio ours/peer must reach, text) of a figure at point r, or (None, "")."""
    if kind == "iops":
        return 1.0, ">= 1.00x"
    if kind == "le1":
        return 1.0, "<= 1.00x"
    if kind == "instr":
        return 0.8, "<= 0.80x"
    if kind == "packets":
        return (0.8, "<= 0.80x") if batched_4k_randwrite(r) else (1.0, "<= 1.00x")
    return None, ""


def bench_verdict(better, target, o, p, o_lo, o_hi, p_lo, p_hi):
    x = o / p
    if (better > 0 and x >= target) or (better < 0 and x <= target):
        return "met"
    # the spreads (when the figure has them) overlap once the peer's is scaled
    if None not in (o_lo, o_hi, p_lo, p_hi) and o_lo <= p_hi * target and o_hi >= p_lo * target:
        return "within spread"
    return "**missed**"


def host_command(options):
    """The command line as typed on the host (the VM's re-run adds --in-vm --out DIR)."""
    cmd = str(options.get("command", "scripts/run_matrix.sh"))
    cmd = re.sub(r" --in-vm| --out \S+", "", cmd)
    return cmd.replace("run_matrix.sh", "scripts/run_matrix.sh", 1) if cmd.startswith("run_matrix.sh") else cmd


def benchmarks_md(folder, rows):
    env = read_json(os.path.join(folder, "env.json"), {})
    options = read_json(os.path.join(folder, "options.json"), {})
    pairs = [(r, twin(rows, r, "peer")) for r in rows if r["impl"] == "ours"]
    pairs = [(o, p) for o, p in pairs if p is not None]
    if not pairs:
        die(f"{folder}: no point measured with both ours and the peer (run_matrix.sh --impl ours,peer)")
    md = ["# rpma-fio vs the peer: benchmarks", "",
          "rpma-fio's engines (\"ours\") against fio 3.33's in-tree `librpma_*` engines over "
          "upstream librpma 1.2.0 (\"peer\", `build/peer/fio`, see docs/interop.md), the same "
          "methods at the same points, measured by one pipeline: `scripts/run_matrix.sh --impl "
          "ours,peer`. Generated by `make bench` (`matrix.py benchmarks`); do not edit by hand.", "",
          "**Under TCG (the VM's accelerator below) the IOPS and latencies compare two "
          "implementations on the same emulated device; they do not predict hardware. The "
          "per-I/O counts (post calls, work requests, completions, packets) are exact on any "
          "machine.**", "", "## How it was made", "",
          "```sh", "make bench", "# which runs:", host_command(options), "```", ""]
    for k in ("date", "git revision", "in Soft-RoCE VM", "kernel", "cpu", "cpus", "fio",
              "server memory"):
        if k in env:
            md.append(f"- {k}: {env[k]}")
    md += [f"- runs: {options.get('repeats', '?')} a point and implementation (median, min..max), "
           f"{options.get('runtime', '?')} s measured after {options.get('ramp', '?')} s of warm-up; "
           "ours' runs of a point, then the peer's; clients and GPSPM servers busy-poll",
           "- one cost run a point and implementation: 2000 I/Os a job (8 MiB for larger "
           "blocks), counted by `tests/tools/verbs_count.c` preloaded into both sides' fio and "
           "by the RDMA device's `sent_pkts` (docs/matrix.md, Per-I/O costs)",
           "- writes are random writes (`jobs/randwrite.fio` for ours, `--rw=randwrite` for the "
           "peer); batched points post `iodepth` I/Os at a time and reap them all before the next "
           "batch (`iodepth_batch_submit = iodepth_batch_complete_min = iodepth`), `sync=0`", ""]
    for col, title, better, digits, kind in BENCH_FIGURES:
        lines = []
        for o, p in pairs:
            ov, pv = o.get(col), p.get(col)
            if ov is None or pv is None:
                continue
            o_lo, o_hi = o.get(col.replace("_median", "_min")), o.get(col.replace("_median", "_max"))
            p_lo, p_hi = p.get(col.replace("_median", "_min")), p.get(col.replace("_median", "_max"))
            if not col.endswith("_median"):
                o_lo = o_hi = p_lo = p_hi = None
            if not col.endswith("_median"):
                # counts per I/O as shown: what is below the last digit is the
                # connection's own requests and packets, not the I/O's
                ov, pv = round(ov, digits), round(pv, digits)
            target, text = bench_target(kind, o)
            x = "" if not pv else f"{ov / pv:.2f}x"
            verdict = "" if target is None or not pv else \
                bench_verdict(better, target, ov, pv, o_lo, o_hi, p_lo, p_hi)

            def cell(v, lo, hi):
                return fmt(v, digits) + ("" if lo is None else f" ({fmt(lo, digits)}..{fmt(hi, digits)})")
            lines.append(f"| {point_label(o)} | {cell(ov, o_lo, o_hi)} | {cell(pv, p_lo, p_hi)} | "
                         f"{x} | {text} | {verdict} |")
        if lines:
            md += [f"## {title}", "", "| point | ours | peer | ours/peer | target | verdict |",
                   "|---|---|---|---|---|---|"] + lines + [""]
    if not any(o.get("client_instructions_per_io") is not None for o, _ in pairs):
        md += ["## Not measured", "",
               "- user-space instructions per I/O (run_matrix.sh --instructions): not in "
               "this run.", ""]
    return md


def cmd_benchmarks(args):
    rows = summarize(args.dir)
    md = benchmarks_md(args.dir, rows)
    if args.notes:
        with open(args.notes) as f:
            md += ["## What the figures say", ""] + f.read().rstrip("\n").split("\n") + [""]
    with open(args.out, "w") as f:
        f.write("\n".join(md))
    print(args.out)


# ---------------------------------------------------------------- compare

def cmd_compare(args):
    rows_a, rows_b = summarize(args.a), summarize(args.b)
    out = args.out
    os.makedirs(out, exist_ok=True)
    la, lb = "(A)", "(B)"
    charts = draw_all({la: rows_a, lb: rows_b}, os.path.join(out, "charts"))
    md = ["# rpma-fio matrix comparison", "", f"A: `{args.a}`", "", f"B: `{args.b}`", "",
          "Ratios are B / A of the medians. **noise**: the min..max ranges of A and B "
          "overlap, so the difference is within the measured spread.", ""]
    head = ["method", "rw", "bs", "iodepth", "jobs", "IOPS A", "IOPS B", "B/A", "lat A us",
            "lat B us", "B/A", "verdict"]
    md += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    csv_rows = []
    for a in rows_a:
        b = twin(rows_b, a, a["impl"])
        if b is None or a["iops_median"] is None or b["iops_median"] is None:
            continue
        ratio = b["iops_median"] / a["iops_median"]
        lat_ratio = (b["lat_mean_us_median"] / a["lat_mean_us_median"]
                     if a["lat_mean_us_median"] and b["lat_mean_us_median"] else None)
        noise = a["iops_min"] <= b["iops_max"] and b["iops_min"] <= a["iops_max"]
        verdict = "noise" if noise else ("B faster" if ratio > 1 else "B slower")
        md.append("| " + " | ".join([a["method"] + impl_suffix(a), a["rw"], size_str(a["bs"]), a["iodepth"],
                                     a["numjobs"], f"{a['iops_median']:.0f}",
                                     f"{b['iops_median']:.0f}", f"{ratio:.2f}",
                                     fmt(a["lat_mean_us_median"]), fmt(b["lat_mean_us_median"]),
                                     fmt(lat_ratio, 2), verdict]) + " |")
        csv_rows.append([a["method"] + impl_suffix(a), a["rw"], a["bs"], a["iodepth"], a["sync"], a["numjobs"],
                         fmt(a["iops_median"], 3), fmt(b["iops_median"], 3), fmt(ratio, 4),
                         fmt(lat_ratio, 4), "1" if noise else "0"])
    md += ["", "## Charts (A solid, B dashed)", ""]
    for c in charts:
        md += [f"![chart](charts/{c}.png)", ""]
    with open(os.path.join(out, "compare.csv"), "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["method", "rw", "bs", "iodepth", "sync", "numjobs", "iops_a", "iops_b",
                    "iops_ratio", "lat_ratio", "noise"])
        w.writerows(csv_rows)
    write_reports(out, "rpma-fio matrix comparison", md)
    # the report is called report.md there too; print the table for the terminal
    print("\n".join(md[md.index("| " + " | ".join(head) + " |"):md.index("## Charts (A solid, B dashed)")]))
    print(os.path.join(out, "report.html"))


# ---------------------------------------------------------------- client job files

JOB_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


def expand_job(path, values, seen=()):
    """The lines of fio job file PATH with its includes inlined and every ${VAR} replaced
    from VALUES: what a client host of fio's client/server mode is sent (it cannot be
    given an environment of its own)."""
    if path in seen:
        die(f"{path}: includes itself")
    try:
        with open(path) as f:
            text = f.read()
    except OSError as e:
        die(f"{path}: {e.strerror}")
    out = []
    for line in text.splitlines():
        words = line.split(None, 1)
        if not words or words[0][0] in "#;":
            continue  # fio's comments (they may name ${VARIABLES})
        if words[0] == "include" and len(words) == 2:
            out += expand_job(os.path.join(os.path.dirname(path), words[1].strip()), values,
                              seen + (path,))
            continue

        def value(m):
            if m.group(1) not in values:
                die(f"{path}: ${{{m.group(1)}}} has no value (give {m.group(1)}=VALUE)")
            return values[m.group(1)]
        out.append(JOB_VAR.sub(value, line))
    return out


def cmd_expand_job(args):
    values = {}
    for kv in args.vars:
        name, eq, val = kv.partition("=")
        if not eq or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
            die(f"expand-job: '{kv}' is not VAR=VALUE")
        values[name] = val
    lines = expand_job(args.job, values)
    at = next((i + 1 for i, l in enumerate(lines) if l.strip() == "[global]"), None)
    extra = [f"{o}" for o in args.set or []]
    if at is None:
        lines = ["[global]"] + extra + lines
    else:
        lines[at:at] = extra
    with open(args.out, "w") as f:
        f.write("\n".join(lines) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("plan", help="print the plan (TSV)")
    p.add_argument("--preset", choices=sorted(PRESETS), default="default")
    p.add_argument("--methods")
    p.add_argument("--rws")
    p.add_argument("--lat-bs", dest="lat_bs")
    p.add_argument("--bw-bs", dest="bw_bs")
    p.add_argument("--read-bs", dest="read_bs")
    p.add_argument("--qd")
    p.add_argument("--bw-qd", dest="bw_qd", type=int)
    p.add_argument("--mix", action="store_true")
    p.add_argument("--jobs")
    p.add_argument("--impls", help="ours,peer (default ours)")
    p.add_argument("--hosts", type=int, default=1,
                   help="client hosts (run_matrix.sh --clients): each fio point with 1..N of them")
    p.add_argument("--native", action="store_true",
                   help="the native build: apm-native is allowed and in the default list")
    p.add_argument("--defaults", action="store_true", help="print the preset's repeats/runtime/ramp")
    p.set_defaults(fn=cmd_plan)
    b = sub.add_parser("build", help="results.csv, charts and reports of a result folder")
    b.add_argument("dir")
    b.set_defaults(fn=cmd_build)
    c = sub.add_parser("compare", help="two result folders on the same charts")
    c.add_argument("a")
    c.add_argument("b")
    c.add_argument("out")
    c.set_defaults(fn=cmd_compare)
    bm = sub.add_parser("benchmarks", help="docs/BENCHMARKS.md from a folder of --impl ours,peer")
    bm.add_argument("dir")
    bm.add_argument("--out", required=True)
    bm.add_argument("--notes", help="a Markdown file of findings appended as they are")
    bm.set_defaults(fn=cmd_benchmarks)
    r = sub.add_parser("report", help="a result folder from fio JSON of the sweep job files")
    r.add_argument("--out", required=True, help="the result folder to write")
    r.add_argument("--command", help="the command line to record in options.json")
    r.add_argument("files", nargs="+", metavar="[METHOD=]FIO_JSON")
    r.set_defaults(fn=cmd_report)
    e = sub.add_parser("expand-job", help="a job file for a client host: includes and ${VAR} expanded")
    e.add_argument("--out", required=True)
    e.add_argument("--set", action="append", metavar="OPTION=VALUE", help="added to [global]")
    e.add_argument("job")
    e.add_argument("vars", nargs="*", metavar="VAR=VALUE")
    e.set_defaults(fn=cmd_expand_job)
    args = ap.parse_args()
    args.fn(args)


if __name__ == "__main__":
    main()
