# SPDX-License-Identifier: BSD-3-Clause
"""The compare subcommand: two result folders on the same charts (A solid, B dashed),
a table of B / A at every point both measured, flagged as noise where their spreads
overlap, as compare.csv and a report."""
import csv
import os

from .aggregate import summarize, twin
from .charts import draw_all
from .common import fmt, impl_suffix, size_str, table_head
from .report_html import write_reports


def cmd_compare(args):
    rows_a, rows_b = summarize(args.a), summarize(args.b)
    out = args.out
    os.makedirs(out, exist_ok=True)
    la, lb = "(A)", "(B)"
    charts = draw_all({la: rows_a, lb: rows_b}, os.path.join(out, "charts"))
    md = ["# rpma-fio matrix comparison", "", f"A: `{args.a}`", "", f"B: `{args.b}`", "",
          "Ratios are B / A of the medians. **noise**: the min..max ranges of A and B "
          "overlap, so the difference is within the measured spread.", ""]
    head = table_head(["method", "rw", "bs", "iodepth", "jobs", "IOPS A", "IOPS B", "B/A",
                       "lat A us", "lat B us", "B/A", "verdict"])
    md += head
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
    print("\n".join(md[md.index(head[0]):md.index("## Charts (A solid, B dashed)")]))
    print(os.path.join(out, "report.html"))
