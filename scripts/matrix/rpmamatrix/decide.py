# SPDX-License-Identifier: BSD-3-Clause
"""The decide and settled subcommands: after each pair of interleaved runs, whether ours
vs the peer's IOPS at a point is decided (run_matrix.sh stops adding pairs when it is);
after a point's first runs, whether they agree closely enough to skip the rest."""
import statistics
import sys

from .aggregate import paired_figure
from .common import die
from .plan import read_plan
from .runs import point_runs_by_rep
from .verdicts import decided, verdict_text


def point_of(folder, plan, pid):
    if pid not in plan:
        die(f"{folder}: no point '{pid}' in plan.tsv")
    return dict(plan[pid], by_rep=point_runs_by_rep(folder, plan[pid]))


def cmd_decide(args):
    plan = {pt["id"]: pt for pt in read_plan(args.dir)}
    rows = [point_of(args.dir, plan, pid) for pid in (args.ours, args.peer)]
    interval = paired_figure(rows[0], rows[1], "iops")
    print(f"IOPS ours/peer {verdict_text(interval, +1)}")
    sys.exit(0 if decided(interval, args.margin) else 1)


def cmd_settled(args):
    """Exit 0 when the point's runs so far (2 at least) agree within --within percent:
    (max - min) / median of their IOPS."""
    row = point_of(args.dir, {pt["id"]: pt for pt in read_plan(args.dir)}, args.point)
    iops = [r.iops for r in row["by_rep"].values() if r.iops]
    if len(iops) < 2:
        print(f"{len(iops)} measured run(s): not settled")
        sys.exit(1)
    median = statistics.median(iops)
    apart = (max(iops) - min(iops)) / median * 100
    print(f"IOPS {median:.0f} [{min(iops):.0f}..{max(iops):.0f}], {apart:.0f}% apart")
    sys.exit(0 if apart <= args.within else 1)
