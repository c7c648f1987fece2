# SPDX-License-Identifier: BSD-3-Clause
"""The charts of one or more result folders' rows: which charts (one host's, then the
scaling ones of --clients), their series, and the PNG and SVG gnuplot draws of each."""
import concurrent.futures
import math
import os
import subprocess

from .aggregate import CHART_PERCENTILES
from .common import KIB, die, impl_suffix
from .findings import pick_regimes, regime_title

# a chart whose figures span this ratio (highest / lowest) gets a logarithmic y axis
LOG_Y_SPAN = 30

# one colour per method on every chart (the raw verbs' limit in black)
COLORS = {"apm": "#9400d3", "apm-native": "#d55e00", "gpspm-busy": "#009e73", "gpspm-sleep": "#56b4e9",
          "gpspm-adaptive": "#0072b2", "gpspm-hub": "#cc79a7", "noflush": "#e69f00", "raw": "#000000"}


def chart_fixed(rows, col, preferred):
    """What the charts vs block size (COL iodepth) and vs depth (COL bs) hold fixed:
    PREFERRED if a queued (sync=0) point has it, else the largest (a sweep of any shape)."""
    vals = {r[col] for r in rows if r["sync"] == "0"}
    return preferred if preferred in vals or not vals else max(vals, key=int)


# a chart: (name, title, x column, x label, y figure, y label, filter)
def chart_specs(rows):
    """The charts of one host's points, then (--clients) the scaling charts, then
    (--server-load) IOPS and latency vs the server's CPU load; the first two of points
    measured on an idle server."""
    one_host = [narrowed(spec, lambda r: r["hosts"] == "1") for spec in one_host_specs(rows)]
    idle = [narrowed(spec, lambda r: r["load"] == "0") for spec in one_host + scaling_specs(rows)]
    return idle + load_specs(rows)


def narrowed(spec, cond):
    """A chart's spec whose filter also wants COND of a row."""
    name, title, xcol, xlabel, fig, ylabel, flt = spec
    return name, title, xcol, xlabel, fig, ylabel, lambda r: cond(r) and flt(r)


def load_specs(rows):
    """--server-load: IOPS and mean latency of the 4 KiB writes (depth 1 sync, and the
    batched depth) as the server host's CPUs are kept busier; load 0 is the plan's own point."""
    loaded = [r for r in rows if r["load"] != "0"]
    specs = []
    for sync in ("1", "0"):
        depths = {r["iodepth"] for r in loaded if r["sync"] == sync}
        if not depths:
            continue
        qd = depths.pop()
        where = f"4 KiB, iodepth {qd}" + (", sync" if sync == "1" else "")

        def flt(r, qd=qd, sync=sync):
            return (r["rw"] == "write" and r["bs"] == "4096" and r["iodepth"] == qd and r["sync"] == sync
                    and r["numjobs"] == "1" and r["hosts"] == "1" and r["method"] != "raw")
        tag = "sync" if sync == "1" else "qd"
        specs.append((f"iops_vs_load_{tag}", f"write: IOPS vs the server's CPU load ({where})", "load",
                      "server host's CPUs busy [%]", "iops", "IOPS", flt))
        specs.append((f"lat_vs_load_{tag}", f"write: mean latency vs the server's CPU load ({where})",
                      "load", "server host's CPUs busy [%]", "lat_mean_us", "mean latency [us]", flt))
    return specs


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
            return (r["rw"] == "write" and r["bs"] == bs and r["iodepth"] == qd and r["sync"] == sync
                    and r["load"] == "0")
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
    specs.append(("iops_vs_noflush", "write: what persistence costs: IOPS against no-flush "
                  "(iodepth 1, sync)", "bs", "block size [bytes]", "iops_vs_noflush_pct",
                  "IOPS vs no-flush [%]",
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


def y_axis(datasets):
    """gnuplot's y axis for the points: logarithmic when they span decades, else from 0
    (or free, when a figure can be negative)."""
    ys = [v for _, pts, _, _ in datasets for p in pts for v in p[1:]]
    if min(ys) < 0:
        return "set yrange [*:*]"
    if min(ys) > 0 and max(ys) / min(ys) >= LOG_Y_SPAN:
        return "set logscale y 10"
    return "set yrange [0:*]"


def plot_script(term, out, title, xlabel, ylabel, setup, plots):
    return "\n".join([
        f"set terminal {term}", f"set output {gp_str(out)}", f"set title {gp_str(title)}",
        f"set xlabel {gp_str(xlabel)}", f"set ylabel {gp_str(ylabel)}", "set grid",
        "set key outside right top"] + list(setup) + ["plot " + ", \\\n  ".join(plots), ""])


def gnuplot_job(name, outdir, script_for):
    """(one gnuplot script drawing NAME.png and NAME.svg, their paths) from script_for(terminal,
    output path); the scripts are kept beside the data, one a format."""
    scripts, outs = [], []
    for term, ext in (("pngcairo size 900,540 noenhanced", "png"),
                      ("svg size 900,540 dynamic noenhanced", "svg")):
        out = os.path.join(outdir, f"{name}.{ext}")
        script = script_for(term, out)
        with open(os.path.join(outdir, "data", f"{name}.{ext}.gp"), "w") as f:
            f.write(script)
        # (each format's script from a clean state)
        scripts.append("reset\n" + script + "unset output\n")
        outs.append(out)
    return "".join(scripts), outs


def run_gnuplot(job):
    script, outs = job
    res = subprocess.run(["gnuplot"], input=script, text=True, capture_output=True)
    for out in outs:
        if res.returncode != 0 or not os.path.exists(out) or not os.path.getsize(out):
            die(f"gnuplot failed on {os.path.basename(out)}: {res.stderr.strip()}")


def render(name, outdir, script_for, jobs=None):
    """NAME.png and NAME.svg by one gnuplot (a start-up costs more than a chart under the
    VM's TCG): now, or appended to JOBS to be drawn with the others (draw_jobs)."""
    job = gnuplot_job(name, outdir, script_for)
    if jobs is None:
        run_gnuplot(job)
    else:
        jobs.append(job)
    return [name]


def draw_jobs(jobs):
    """The charts' gnuplot runs, one a CPU at a time."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        list(pool.map(run_gnuplot, jobs))


def draw(name, title, xlabel, ylabel, logx, datasets, outdir, setup=(), jobs=None):
    """datasets: [(label, points, color, dashed)]. Writes NAME.png and NAME.svg (or adds
    their job to JOBS); returns [NAME], or [] when there is nothing to draw. SETUP: more
    gnuplot settings."""
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
    axes = [y_axis(datasets), logx if isinstance(logx, str) else
            "set logscale x 2" if logx else "set xrange [*:*]"] + list(setup)
    return render(name, outdir, lambda term, out: plot_script(term, out, title, xlabel, ylabel, axes, plots),
                  jobs)


def draw_bars(name, title, ylabel, groups, outdir):
    """A clustered bar chart: groups {group label: {method: value}}, one bar a method."""
    methods = [m for m in COLORS if any(m in g for g in groups.values())]
    if not methods:
        return []
    data_dir = os.path.join(outdir, "data")
    os.makedirs(data_dir, exist_ok=True)
    dat = os.path.join(data_dir, f"{name}.dat")
    with open(dat, "w") as f:
        f.write("# group " + " ".join(methods) + "\n")
        for label, values in groups.items():
            f.write(f'"{label}" ' + " ".join(f"{values[m]:g}" if m in values else "?" for m in methods) + "\n")
    plots = [f"{gp_str(dat) if i == 0 else gp_str('')} using {i + 2}{':xtic(1)' if i == 0 else ''} "
             f"lc rgb '{COLORS[m]}' title {gp_str(m)}" for i, m in enumerate(methods)]
    values = [v for g in groups.values() for v in g.values()]
    # 0 (no cost) always on the chart, a little room beyond the longest bar
    low, high = min(values + [0]) * 1.1, max(values + [0]) * 1.1
    setup = ["set style data histograms", "set style histogram clustered gap 1",
             "set style fill solid 0.85 border -1", "set datafile missing '?'", "set xzeroaxis lw 2",
             f"set yrange [{low:g}:{high:g}]", "set grid noxtics ytics", "set ytics format '%+g%%'",
             "set bmargin 5"]
    return render(name, outdir, lambda term, out: plot_script(term, out, title, "", ylabel, setup, plots))


def point_rows(rows, g):
    """The rows of one client connection at a regime's point (findings.py), all methods."""
    return [r for r in rows if r["hosts"] == "1" and r["numjobs"] == "1"
            and (r["rw"], r["bs"], r["iodepth"], r["sync"]) == (g.rw, g.bs, g.iodepth, g.sync)]


def nines(p):
    """A percentile's place on the percentile charts' x axis: p90 at 1, p99 at 2, p99.9 at 3."""
    return -math.log10(1 - p / 100)


def percentile_datasets(rows_by_label, g, cdf):
    """Per method: the latency percentiles at the regime's point: (nines, us) for the
    percentile chart, (us, percentile) for the CDF (every percentile fio reports)."""
    datasets = []
    for n, (label, rows) in enumerate(rows_by_label.items()):
        for r in point_rows(rows, g):
            pcts = r.get("percentiles") or {}
            if cdf:
                pts = [(med, p, p, p) for p, (med, _, _) in sorted(pcts.items())]
            else:
                pts = [(nines(p),) + pcts[p] for p in CHART_PERCENTILES if p in pcts]
            name = r["method"] + impl_suffix(r)
            datasets.append((f"{name}{' ' + label if label else ''}", pts, COLORS[r["method"]],
                             n > 0 or r["impl"] == "peer"))
    return datasets


def draw_percentiles(rows_by_label, outdir, jobs):
    """A chart of p50..p99.99 per regime, and the CDF of the first regime's point."""
    first = next(iter(rows_by_label.values()))
    regimes = pick_regimes(first)
    ticks = "set xtics (" + ", ".join(f"'p{p:g}' {nines(p):g}" for p in CHART_PERCENTILES) + ")"
    drawn = []
    for g in regimes:
        drawn += draw(f"lat_percentiles_{g.name.replace(' ', '_')}",
                      f"latency percentiles: {regime_title(g)}", "percentile", "latency [us]",
                      "set xrange [0:4.2]", percentile_datasets(rows_by_label, g, False), outdir,
                      [ticks, "set logscale y 10", "set yrange [*:*]"], jobs)
    if regimes:
        g = regimes[0]
        drawn += draw("lat_cdf", f"latency CDF: {regime_title(g)} (fio's percentiles)",
                      "latency [us]", "share of I/Os completed [%]", "set logscale x 10",
                      percentile_datasets(rows_by_label, g, True), outdir,
                      ["unset logscale y", "set yrange [0:100]"], jobs)
    return drawn


def draw_all(rows_by_label, outdir):
    """Every chart with every labelled folder's rows on it (second folder dashed)."""
    first = next(iter(rows_by_label.values()))
    drawn, jobs = [], []
    for name, title, xcol, xlabel, fig, ylabel, flt in chart_specs(first):
        datasets = []
        for n, (label, rows) in enumerate(rows_by_label.items()):
            for (method, impl), pts in series(rows, flt, xcol, fig).items():
                name_ = method + (" (peer)" if impl == "peer" else "")
                datasets.append((f"{name_}{' ' + label if label else ''}", pts, COLORS[method],
                                 n > 0 or impl == "peer"))
        drawn += draw(name, title, xlabel, ylabel, xcol in ("bs", "iodepth"), datasets, outdir, (), jobs)
    drawn += draw_percentiles(rows_by_label, outdir, jobs)
    draw_jobs(jobs)
    return drawn
