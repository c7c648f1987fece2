# SPDX-License-Identifier: BSD-3-Clause
"""The decide and settled subcommands: after each pair of interleaved runs, whether ours
vs the peer's IOPS at a point needs one more pair (sequential.py; run_matrix.sh follows
the exit status: 0 stop, 3 one more pair); after a point's first runs, whether they agree closely enough to skip
the rest."""
import statistics
import sys

from .aggregate import paired_figure
from .common import die
from .plan import read_plan
from .runs import point_runs_by_rep
from .sequential import next_step
from .verdicts import verdict_text

# decide's exit status for "one more pair": not 1, which a Python traceback gives, nor 2,
# an error's (die, argparse), so that the runner stops on a failure instead of adding pairs
ONE_MORE_PAIR = 3


def point_of(folder, plan, pid):
    if pid not in plan:
        die(f"{folder}: no point '{pid}' in plan.tsv")
    return dict(plan[pid], by_rep=point_runs_by_rep(folder, plan[pid]))


def cmd_decide(args):
    plan = {pt["id"]: pt for pt in read_plan(args.dir)}
    rows = [point_of(args.dir, plan, pid) for pid in (args.ours, args.peer)]
    interval = paired_figure(rows[0], rows[1], "iops")
    # (without --pairs: the pairs measured, as if none had failed)
    pairs = interval.n if args.pairs is None else args.pairs
    step = next_step(interval, pairs, args.min_pairs, args.max_pairs or pairs, args.margin)
    print(f"IOPS ours/peer {verdict_text(interval, +1)}: {step.why}")
    sys.exit(0 if step.stop else ONE_MORE_PAIR)


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
