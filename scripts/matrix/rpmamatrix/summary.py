# SPDX-License-Identifier: BSD-3-Clause
"""The summary subcommand: what run_matrix.sh prints once a folder's report is built: the
report's findings (without their charts) and its summary table, the status, and where
the report is."""
import os
import re


def between(lines, first, last):
    """The lines after the first heading FIRST up to the heading LAST after it (the end
    of the file if none: its last line left out too)."""
    start = next((i for i, line in enumerate(lines) if line.startswith(first)), None)
    if start is None:
        return []
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith(last)), len(lines) - 1)
    return lines[start + 1:end]


def summary_text(folder):
    with open(os.path.join(folder, "report.md")) as f:
        lines = f.read().splitlines()
    findings = [line for line in between(lines, "## Findings", "## Points and methods")
                if not re.match(r"!\[chart\]", line)]
    table = between(lines, "## Summary", "## Environment")
    with open(os.path.join(folder, "status")) as f:
        status = f.read().rstrip("\n")
    return "\n".join([""] + findings + table + [
        f"status: {status}", f"report: {folder}/report.html (and report.md, results.csv, charts/, runs/)"])


def cmd_summary(args):
    print(summary_text(args.dir))
