# SPDX-License-Identifier: BSD-3-Clause
"""A result folder as one row per point of its plan: the runs' median and spread, the
per-I/O costs, the ratios to no-flush and to the raw verbs; results.csv of the rows."""
import csv
import statistics

from .common import PLAN_COLUMNS, fmt
from .costs import COST_COLUMNS, point_costs
from .plan import raw_tool, read_plan
from .runs import point_runs_by_rep
from .verdicts import paired_interval, unpaired_interval

CSV_COLUMNS = PLAN_COLUMNS + [
    "tool", "runs", "iops_median", "iops_min", "iops_max", "bw_mib_s_median", "bw_mib_s_min",
    "bw_mib_s_max", "lat_mean_us_median", "lat_mean_us_min", "lat_mean_us_max",
    "lat_p50_us_median", "lat_p99_us_median", "lat_p99.9_us_median", "lat_p99.99_us_median",
    "server_cpu_pct_median", "overhead_vs_noflush", "iops_vs_noflush_pct", "fraction_of_raw"] + \
    COST_COLUMNS
# the latency percentiles of the charts and results.csv (fio reports these among others)
CHART_PERCENTILES = [50.0, 90.0, 99.0, 99.9, 99.99]
CSV_PERCENTILES = {50.0: "lat_p50_us_median", 99.9: "lat_p99.9_us_median", 99.99: "lat_p99.99_us_median"}


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
        by_rep = point_runs_by_rep(folder, pt)
        runs = list(by_rep.values())
        row = dict(pt)
        row["by_rep"] = by_rep
        row["tool"] = raw_tool(pt["rw"], int(pt["sync"])) if pt["method"] == "raw" else "fio"
        row["connections"] = int(pt["numjobs"]) * int(pt["hosts"])
        row["runs"] = len(runs)
        for i, name in enumerate(["iops", "bw_mib_s", "lat_mean_us"]):
            row[name + "_median"], row[name + "_min"], row[name + "_max"] = \
                spread([r[i] for r in runs])
        row["lat_p99_us_median"] = spread([r.lat_p99_us for r in runs])[0]
        row["server_cpu_pct_median"] = spread([r.server_cpu_pct for r in runs])[0]
        row["percentiles"] = percentile_spreads(runs)
        for pct, col in CSV_PERCENTILES.items():
            row[col] = row["percentiles"].get(pct, (None,))[0]
        costs = point_costs(folder, pt)
        for c in COST_COLUMNS:
            row[c] = costs.get(c)
        rows.append(row)
    add_ratios(rows)
    return rows


def percentile_spreads(runs):
    """{percentile: (median, min, max) over the runs} of the percentiles every run has."""
    tables = [r.percentiles for r in runs if r.percentiles]
    if not tables:
        return {}
    common = sorted(set.intersection(*(set(t) for t in tables)))
    return {p: spread([t[p] for t in tables]) for p in common}


# a run's figures (runs.py) by name: (index in the run's tuple, +1 when higher is better)
RUN_FIGURES = {"iops": (0, +1), "bw_mib_s": (1, +1), "lat_mean_us": (2, -1), "lat_p99_us": (3, -1)}


def run_values(row, name, reps=None):
    """The figure NAME of a row's runs (of the runs REPS only), positive ones only."""
    idx = RUN_FIGURES[name][0]
    by_rep = row.get("by_rep", {})
    return [by_rep[r][idx] for r in (reps if reps is not None else sorted(by_rep))
            if by_rep[r][idx]]


def paired_figure(o, p, name):
    """(ratio, lo, hi, pairs) of a figure, row o over its twin p, over the runs both made
    and measured (run r of each: a pair)."""
    idx = RUN_FIGURES[name][0]
    reps = [r for r in sorted(set(o.get("by_rep", {})) & set(p.get("by_rep", {})))
            if o["by_rep"][r][idx] and p["by_rep"][r][idx]]
    return paired_interval(run_values(o, name, reps), run_values(p, name, reps))


def unpaired_figure(b, a, name):
    """(ratio, lo, hi, n) of a figure, row b over row a of another folder."""
    return unpaired_interval(run_values(b, name), run_values(a, name))


def same_point(a, b):
    return all(a[k] == b[k] for k in ("rw", "bs", "iodepth", "sync", "numjobs", "hosts", "load"))


def twin(rows, r, impl):
    """The row of the same method and point measured with IMPL's engines, or None."""
    return next((o for o in rows if o["impl"] == impl and o["method"] == r["method"]
                 and same_point(r, o)), None)


def peer_pairs(rows):
    """(ours, the peer's) rows of every point both measured."""
    pairs = [(r, twin(rows, r, "peer")) for r in rows if r["impl"] == "ours"]
    return [(o, p) for o, p in pairs if p is not None]


def add_ratios(rows):
    """Persistence overhead (latency / no-flush latency, or no-flush IOPS / IOPS) and
    the fraction of the raw verbs' IOPS each point reaches."""
    for r in rows:
        r["overhead_vs_noflush"] = r["iops_vs_noflush_pct"] = r["fraction_of_raw"] = None
        if r["method"] in ("noflush", "raw") or r["iops_median"] is None:
            continue
        for other in rows:
            if not same_point(r, other) or other["iops_median"] is None:
                continue
            if other["method"] == "noflush":
                r["overhead_vs_noflush"] = other["iops_median"] / r["iops_median"]
                r["iops_vs_noflush_pct"] = (r["iops_median"] / other["iops_median"] - 1) * 100
            elif other["method"] == "raw":
                r["fraction_of_raw"] = r["iops_median"] / other["iops_median"]


def write_csv(rows, path):
    with open(path, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(CSV_COLUMNS)
        for r in rows:
            w.writerow([fmt(r[c], 3) for c in CSV_COLUMNS])
