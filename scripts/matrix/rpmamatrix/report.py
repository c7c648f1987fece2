# SPDX-License-Identifier: BSD-3-Clause
"""The build subcommand: a result folder's results.csv, charts, report.md and
report.html, its tables (summary, ours vs the peer, per-I/O costs, environment)."""
import os
import shlex

from .aggregate import paired_figure, peer_pairs, summarize, write_csv
from .charts import draw_all, draw_bars
from .common import METHODS, env_items, fmt, impl_suffix, point_label, read_json, size_str, table_head
from .findings import findings
from .report_html import write_reports
from .verdicts import margin_of, verdict_text

# the per-I/O cost columns of the report: (column, heading, digits)
COST_TABLE = [("client_posts_per_io", "client posts", 2), ("client_send_wrs_per_io", "client WRs", 2),
              ("client_completions_per_io", "client CQEs", 2), ("server_posts_per_io", "server posts", 2),
              ("server_recv_wrs_per_io", "server recv WRs", 2),
              ("server_completions_per_io", "server CQEs", 2), ("packets_per_io", "packets", 2),
              ("client_cpu_us_per_io", "client CPU us", 1), ("server_cpu_us_per_io", "server CPU us", 1),
              ("client_instructions_per_io", "client instr", 0),
              ("server_instructions_per_io", "server instr", 0),
              ("persisted_per_byte_written", "persisted per byte written", 2)]
# ours vs the peer: (figure, heading, better: +1 higher, -1 lower)
VERSUS = [("iops_median", "IOPS", +1), ("lat_mean_us_median", "mean lat", -1),
          ("lat_p99_us_median", "p99 lat", -1), ("client_posts_per_io", "client posts", -1),
          ("server_posts_per_io", "server posts", -1), ("packets_per_io", "packets", -1),
          ("client_cpu_us_per_io", "client CPU", -1), ("server_cpu_us_per_io", "server CPU", -1),
          ("client_instructions_per_io", "client instr", -1),
          ("server_instructions_per_io", "server instr", -1)]


def read_status(folder):
    try:
        with open(os.path.join(folder, "status")) as f:
            return f.read().strip() or "partial"
    except OSError:
        return "partial"


def summary_table(rows):
    # (the server load's column only in a plan with --server-load)
    loads = any(r["load"] != "0" for r in rows)
    head = ["point", "method", "rw", "bs", "iodepth", "jobs", "hosts"] + ["server load"] * loads + \
        ["runs", "IOPS median [min..max]", "MiB/s", "lat mean us [min..max]", "p99 us", "IOPS vs no-flush",
         "of raw", "server CPU %"]
    lines = table_head(head)
    for r in rows:
        if r["iops_median"] is None:
            figs = ["**missing**"] + [""] * 6
        else:
            lat = "" if r["lat_mean_us_median"] is None else \
                f"{r['lat_mean_us_median']:.1f} [{r['lat_mean_us_min']:.1f}..{r['lat_mean_us_max']:.1f}]"
            figs = [f"{r['iops_median']:.0f} [{r['iops_min']:.0f}..{r['iops_max']:.0f}]",
                    fmt(r["bw_mib_s_median"]), lat, fmt(r["lat_p99_us_median"]),
                    "" if r["iops_vs_noflush_pct"] is None else f"{r['iops_vs_noflush_pct']:+.0f}%",
                    fmt(r["fraction_of_raw"], 2),
                    fmt(r["server_cpu_pct_median"])]
        lines.append("| " + " | ".join([r["id"], r["method"] + impl_suffix(r), r["rw"], size_str(r["bs"]),
                                        r["iodepth"] + ("" if r["sync"] == "0" else " (sync)"),
                                        r["numjobs"], r["hosts"]] + [f"{r['load']}%"] * loads
                                       + [str(r["runs"])] + figs) + " |")
    return lines


def cost_table(rows):
    """One line per point that has a cost run: what one I/O costs."""
    costed = [r for r in rows if r.get("cost_ios") is not None]
    if not costed:
        return []
    head = ["point", "method", "rw", "bs", "iodepth", "I/Os"] + [h for _, h, _ in COST_TABLE]
    lines = table_head(head)
    for r in costed:
        lines.append("| " + " | ".join(
            [r["id"], r["method"] + impl_suffix(r), r["rw"], size_str(r["bs"]),
             r["iodepth"] + ("" if r["sync"] == "0" else " (sync)"), str(r["cost_ios"])]
            + [fmt(r[c], d) for c, _, d in COST_TABLE]) + " |")
    return lines


def ratio(a, b):
    if a is None or b is None or b == 0:
        return None
    return a / b


def versus_table(rows, margin_pct):
    """ours / peer at every point both measured, one column a figure; the IOPS verdict
    ahead or behind beyond +-MARGIN_PCT."""
    pairs = peer_pairs(rows)
    if not pairs:
        return []
    head = ["point"] + [h for _, h, _ in VERSUS] + ["IOPS verdict (interval, pairs, coverage)"]
    lines = table_head(head)
    for o, p in pairs:
        cells = []
        for col, _, _ in VERSUS:
            x = ratio(o.get(col), p.get(col))
            cells.append("" if x is None else f"{x:.2f}x")
        cells.append(verdict_text(paired_figure(o, p, "iops"), +1, margin_pct))
        lines.append("| " + " | ".join([point_label(o)] + cells) + " |")
    return lines


def env_lines(env, options):
    """The environment's facts, one a line; the server host's (a dict) each as 'server: ...'."""
    lines = table_head(["what", "value"])
    for k, v in env_items(env) + [("option " + k, v) for k, v in options.items()]:
        if isinstance(v, list):  # options.json's args: as a shell would take them
            v = " ".join(shlex.quote(str(a)) for a in v)
        lines.append(f"| {k} | {str(v).replace('|', '/')} |")
    return lines


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
    findings_md, overview = findings(rows, env, options)
    md += ["## Findings", ""] + findings_md + [""]
    md += [f"![chart](charts/{c}.png)" for c in draw_bars(
        "overview", "what persistence costs: IOPS against no-flush", "IOPS vs no-flush [%]",
        overview, os.path.join(folder, "charts"))]
    md += ["", "## Points and methods", "",
           f"Points: {len(rows)} ({done} measured). Each figure is the median of the runs "
           "(min..max in brackets). `IOPS vs no-flush`: the method's IOPS against no-flush's at "
           "the same point (what persistence costs); `of raw`: the method's IOPS / perftest's.",
           "", "Methods:", ""]
    ran = {r["method"] for r in rows}
    md += [f"- `{m}`: {d}" for m, d in METHODS.items() if m in ran]
    if any(r["impl"] == "peer" for r in rows):
        md += ["- `(peer)`: the same method with the peer's engines (fio 3.33's in-tree "
               "librpma engines over upstream librpma 1.2.0, `build/peer/fio`), dashed on the charts"]
    md += ["", "## Summary", ""] + summary_table(rows)
    margin = margin_of(options)
    versus = versus_table(rows, margin)
    if versus:
        md += ["", "## Ours vs the peer", "",
               "ours / peer at each point both measured: above 1.00x for IOPS, below for "
               "everything else, means ours is better. Latency figures are medians of the "
               "measured runs; costs come from the cost runs (next section). The runs of ours "
               "and the peer alternate (pairs); the IOPS ratio is the median of the pairs' "
               "with the sign test's interval (order statistics of the pairs' ratios, n and "
               "the interval's exact coverage given); the verdict is ahead or behind only when "
               f"an interval covering 95% or more lies beyond +-{margin:g}% of 1.00x "
               "(`--margin`), else equal within the interval's farther end (6 pairs at least: "
               "5 pairs' [min..max] covers 93.75%).", ""] + versus
    costs = cost_table(rows)
    if costs:
        md += ["", "## Per-I/O costs", "",
               "One cost run a point: a fixed number of I/Os per job (the `I/Os` column), no "
               "ramp, the client sleeping on its completions (`busy_wait_polling=0`; the peer's "
               "client always busy-polls). Counted by `tests/tools/verbs_count.c` preloaded "
               "into both sides' fio: post calls (each a doorbell; on Soft-RoCE a system call), "
               "work requests and completions (CQEs) per I/O; `packets`: the RDMA devices' "
               "`sent_pkts` over the run / I/Os; CPU: fio's usr+sys time / I/Os. The "
               "connection's own requests and packets are included (a rounding error). "
               "`persisted per byte written`: the bytes the GPSPM server persisted (on DRAM: "
               "was asked to), or the bytes APM's flushes named, over the bytes written -- ours "
               "by our engines' own counts in the first measured run, the peer's by "
               "`verbs_count.c` in its cost run (the lengths its server gave libpmem's "
               "`pmem_persist()`, its client gave `rpma_flush()`); 1.00 is exact (no-flush: "
               "0.00, it asks for none).", ""] + costs
    # where the figures come from (the VM's accelerator above all) before the charts
    md += ["", "## Environment", ""] + env_lines(env, options)
    md += ["", "## Charts", "",
           "Latency percentiles come from fio's (p50..p99.99; perftest gives p50, p99 and "
           "p99.9); the CDF is drawn through every percentile fio reports.", ""]
    for c in charts:
        md += [f"![chart](charts/{c}.png)", ""]
    md += ["Files: `results.csv` (one row per point), `runs/` (raw fio JSON and perftest "
           "output of every run), `charts/` (PNG, SVG, gnuplot scripts and data).", ""]
    write_reports(folder, "rpma-fio matrix report", md)
    print(os.path.join(folder, "report.html"))
