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
from .verdicts import DEFAULT_MARGIN_PCT, verdict_text

# decide's exit status for "one more pair": not 1, which a Python traceback gives, nor 2,
# an error's (die, argparse), so that the runner stops on a failure instead of adding pairs
ONE_MORE_PAIR = 3


def point_of(folder, plan, pid):
    if pid not in plan:
        die(f"{folder}: no point '{pid}' in plan.tsv")
    return dict(plan[pid], by_rep=point_runs_by_rep(folder, plan[pid]))


def decide(folder, ours, peer, pairs=None, min_pairs=1, max_pairs=None, margin=DEFAULT_MARGIN_PCT):
    """After pair PAIRS of MIN_PAIRS..MAX_PAIRS: (the verdict and why, stop?) of the IOPS of
    point OURS vs its interleaved twin PEER."""
    plan = {pt["id"]: pt for pt in read_plan(folder)}
    rows = [point_of(folder, plan, pid) for pid in (ours, peer)]
    interval = paired_figure(rows[0], rows[1], "iops")
    # (without PAIRS: the pairs measured, as if none had failed)
    pairs = interval.n if pairs is None else pairs
    step = next_step(interval, pairs, min_pairs, max_pairs or pairs, margin)
    return f"IOPS ours/peer {verdict_text(interval, +1, margin)}: {step.why}", step.stop


def settled(folder, point, within):
    """(what the runs of POINT so far say, do 2 or more agree within WITHIN percent?):
    (max - min) / median of their IOPS."""
    row = point_of(folder, {pt["id"]: pt for pt in read_plan(folder)}, point)
    iops = [r.iops for r in row["by_rep"].values() if r.iops]
    if len(iops) < 2:
        return f"{len(iops)} measured run(s): not settled", False
    median = statistics.median(iops)
    apart = (max(iops) - min(iops)) / median * 100
    return f"IOPS {median:.0f} [{min(iops):.0f}..{max(iops):.0f}], {apart:.0f}% apart", apart <= within


def cmd_decide(args):
    text, stop = decide(args.dir, args.ours, args.peer, args.pairs, args.min_pairs, args.max_pairs,
                        args.margin)
    print(text)
    sys.exit(0 if stop else ONE_MORE_PAIR)


def cmd_settled(args):
    """Exit 0 when the point's runs so far (2 at least) agree within --within percent."""
    text, ok = settled(args.dir, args.point, args.within)
    print(text)
    sys.exit(0 if ok else 1)
