# SPDX-License-Identifier: BSD-3-Clause
"""The decide subcommand: after each pair of interleaved runs, whether ours vs the peer's
IOPS at a point is decided (run_matrix.sh stops adding pairs when it is)."""
import sys

from .aggregate import paired_figure
from .common import die
from .plan import read_plan
from .runs import point_runs_by_rep
from .verdicts import decided, verdict_text


def cmd_decide(args):
    plan = {pt["id"]: pt for pt in read_plan(args.dir)}
    rows = []
    for pid in (args.ours, args.peer):
        if pid not in plan:
            die(f"{args.dir}: no point '{pid}' in plan.tsv")
        rows.append(dict(plan[pid], by_rep=point_runs_by_rep(args.dir, plan[pid])))
    interval = paired_figure(rows[0], rows[1], "iops")
    print(f"IOPS ours/peer {verdict_text(interval, +1)}")
    sys.exit(0 if decided(interval, args.margin) else 1)
