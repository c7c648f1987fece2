# SPDX-License-Identifier: BSD-3-Clause
"""The compare subcommand: two result folders on the same charts (A solid, B dashed),
a table of B / A at every point both measured with a confidence interval and a verdict
(verdicts.py: the folders' runs resampled each on its own), as compare.csv and a report."""
import csv
import os

from .aggregate import summarize, twin, unpaired_figure
from .charts import draw_all
from .common import fmt, impl_suffix, size_str, table_head
from .report_html import write_reports
from .verdicts import AHEAD, BEHIND, EQUAL, MIN_SAMPLES, verdict


def compare_verdict(interval):
    """B against A in words: B faster / B slower / equal within +-X% / undecided."""
    word, margin = verdict(interval, +1)
    return {AHEAD: "B faster", BEHIND: "B slower", EQUAL: f"equal within +-{margin}%"}.get(
        word, f"undecided ({interval.n} runs, {MIN_SAMPLES} needed)")


def cmd_compare(args):
    rows_a, rows_b = summarize(args.a), summarize(args.b)
    out = args.out
    os.makedirs(out, exist_ok=True)
    la, lb = "(A)", "(B)"
    charts = draw_all({la: rows_a, lb: rows_b}, os.path.join(out, "charts"))
    md = ["# rpma-fio matrix comparison", "", f"A: `{args.a}`", "", f"B: `{args.b}`", "",
          "IOPS B/A: the ratio of the medians with its 95% bootstrap confidence interval "
          "(each folder's runs resampled on their own; nominal: at 5 to 8 runs a side a "
          "bootstrap of medians covers less than it claims). **B faster** or **B slower** only when "
          "the interval excludes 1.00, else **equal within +-X%**, X the interval's farther "
          "end: a difference inside it is not one. Latency B/A: the medians'.", ""]
    head = table_head(["method", "rw", "bs", "iodepth", "jobs", "IOPS A", "IOPS B", "B/A (95% CI)",
                       "lat A us", "lat B us", "B/A", "verdict"])
    md += head
    csv_rows = []
    for a in rows_a:
        b = twin(rows_b, a, a["impl"])
        if b is None or a["iops_median"] is None or b["iops_median"] is None:
            continue
        interval = unpaired_figure(b, a, "iops")
        ratio, lo, hi = interval.ratio, interval.lo, interval.hi
        ci = f"{ratio:.2f}" + ("" if lo is None else f" ({lo:.2f}..{hi:.2f})")
        lat_ratio = (b["lat_mean_us_median"] / a["lat_mean_us_median"]
                     if a["lat_mean_us_median"] and b["lat_mean_us_median"] else None)
        said = compare_verdict(interval)
        md.append("| " + " | ".join([a["method"] + impl_suffix(a), a["rw"], size_str(a["bs"]), a["iodepth"],
                                     a["numjobs"], f"{a['iops_median']:.0f}",
                                     f"{b['iops_median']:.0f}", ci,
                                     fmt(a["lat_mean_us_median"]), fmt(b["lat_mean_us_median"]),
                                     fmt(lat_ratio, 2), said]) + " |")
        csv_rows.append([a["method"] + impl_suffix(a), a["rw"], a["bs"], a["iodepth"], a["sync"], a["numjobs"],
                         fmt(a["iops_median"], 3), fmt(b["iops_median"], 3), fmt(ratio, 4),
                         fmt(lo, 4), fmt(hi, 4), fmt(lat_ratio, 4), said])
    md += ["", "## Charts (A solid, B dashed)", ""]
    for c in charts:
        md += [f"![chart](charts/{c}.png)", ""]
    with open(os.path.join(out, "compare.csv"), "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["method", "rw", "bs", "iodepth", "sync", "numjobs", "iops_a", "iops_b",
                    "iops_ratio", "iops_ratio_lo", "iops_ratio_hi", "lat_ratio", "verdict"])
        w.writerows(csv_rows)
    write_reports(out, "rpma-fio matrix comparison", md)
    # the report is called report.md there too; print the table for the terminal
    print("\n".join(md[md.index(head[0]):md.index("## Charts (A solid, B dashed)")]))
    print(os.path.join(out, "report.html"))
