# SPDX-License-Identifier: BSD-3-Clause
"""The polling subcommand: scripts/bench_polling.sh's runs (polling.tsv) as a Markdown
table of the GPSPM server's polling modes side by side, and the adaptive mode against
its targets: latency within 10% of busy polling, server CPU within 10% of sleeping,
both at full speed; and the line of polling.tsv each run adds (the polling-row
subcommand)."""
import statistics

from .common import read_tsv, table_head, write_md
from .runs import append_run, jobs_cpu_pct

COLUMNS = ["round", "rate", "mode", "iops", "lat_mean_us", "lat_p99_us", "server_cpu_pct"]
MODES = [("1", "busy (1)"), ("0", "sleep (0)"), ("adaptive", "adaptive")]
FIGURES = [("iops", "IOPS", 0), ("lat_mean_us", "mean latency us", 1), ("lat_p99_us", "p99 us", 1),
           ("server_cpu_pct", "server CPU %", 1)]
# adaptive / the mode it is held against, at most
TARGET = 1.10


def read_runs(path):
    return read_tsv(path, COLUMNS)


def run_row(write, server_jobs, rnd, rate, mode):
    """polling.tsv's line of a run (ROUND, RATE, MODE) from fio's JSON: the client's
    WRITE figures (IOPS, mean and p99 latency in us) and the server's CPU % (its jobs')."""
    lat = write["lat_ns"]
    return [rnd, rate, mode, f"{write['iops']:.1f}", f"{lat['mean'] / 1000:.1f}",
            f"{lat['percentile']['99.000000'] / 1000:.1f}", f"{jobs_cpu_pct(server_jobs):.1f}"]


def medians(rows):
    """{(rate, mode): {figure: median}} and the rounds of each."""
    groups = {}
    for r in rows:
        groups.setdefault((r["rate"], r["mode"]), []).append(r)
    return {k: dict({f: statistics.median(float(r[f]) for r in v) for f, _, _ in FIGURES},
                    runs=len(v)) for k, v in groups.items()}


def polling_md(rows):
    med = medians(rows)
    rates = sorted({r["rate"] for r in rows}, key=int)
    md = table_head(["rate", "server waits"] + [h for _, h, _ in FIGURES] + ["runs"])
    for rate in rates:
        for mode, label in MODES:
            m = med.get((rate, mode))
            if m is None:
                continue
            md.append("| " + " | ".join(["full speed" if rate == "0" else f"{rate} IOPS", label]
                                        + [f"{m[f]:.{d}f}" for f, _, d in FIGURES] + [str(m["runs"])]) + " |")
    md += [""]
    full = {mode: med.get(("0", mode)) for mode, _ in MODES}
    if all(full.values()):
        lat = full["adaptive"]["lat_mean_us"] / full["1"]["lat_mean_us"]
        cpu = full["adaptive"]["server_cpu_pct"] / full["0"]["server_cpu_pct"]
        md += table_head(["at full speed", "adaptive / it", "target", "verdict"])
        md += [f"| mean latency vs busy polling | {lat:.2f}x | <= {TARGET:.2f}x | "
               f"{'met' if lat <= TARGET else '**missed**'} |",
               f"| server CPU vs sleeping | {cpu:.2f}x | <= {TARGET:.2f}x | "
               f"{'met' if cpu <= TARGET else '**missed**'} |", ""]
    return md


def cmd_polling(args):
    write_md(args.out, polling_md(read_runs(args.tsv)))


def cmd_polling_row(args):
    append_run(args.tsv, COLUMNS, run_row, args.stem, args.round, args.rate, args.mode)
