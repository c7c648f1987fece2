# SPDX-License-Identifier: BSD-3-Clause
"""Verdicts that decide: one figure of two implementations (or two result folders) as a
ratio with a 95% bootstrap confidence interval, and a verdict that says "ahead" or
"behind" only when the interval excludes 1.0, else "equal within +-X%".

Runs of ours and the peer are interleaved (run_matrix.sh --impl ours,peer), so run r of
each is a pair that met the same state of the host: the interval is over the pairs'
ratios (paired). Two result folders were measured apart: their runs are resampled each
on its own (unpaired). The statistic is the median of the pairs' ratios (unpaired: the
ratio of the medians): a hiccup of the host that hits one run of a pair makes one ratio
wild, and a mean would follow it (under TCG, one pair in six or so). Ratios are taken as
logarithms (a ratio's inverse is its inverse); the resampling is seeded: the same runs
give the same verdict."""
import math
import random
import statistics

RESAMPLES = 4000
LEVEL = 0.95
# fewer than this many pairs (or runs a side) give no interval: with fewer the
# resampling has too few distinct draws and its interval is too narrow to trust
MIN_SAMPLES = 5
# the default margin within which "equal" settles a point (run_matrix.sh --margin)
DEFAULT_MARGIN_PCT = 5

AHEAD, BEHIND, EQUAL, UNDECIDED = "ahead", "behind", "equal", "undecided"


def _logs(values):
    return [math.log(v) for v in values]


def _percentiles(stats):
    stats = sorted(stats)
    tail = (1 - LEVEL) / 2
    lo = stats[int(tail * (len(stats) - 1))]
    hi = stats[int(math.ceil((1 - tail) * (len(stats) - 1)))]
    return math.exp(lo), math.exp(hi)


def paired_interval(xs, ys):
    """(ratio, lo, hi, n) of x / y over pairs (xs[i], ys[i]) of positive figures; lo and
    hi None with fewer than MIN_SAMPLES pairs."""
    d = [a - b for a, b in zip(_logs(xs), _logs(ys))]
    n = len(d)
    if n == 0:
        return None, None, None, 0
    ratio = math.exp(statistics.median(d))
    if n < MIN_SAMPLES:
        return ratio, None, None, n
    rng = random.Random(1)
    boot = [statistics.median(rng.choices(d, k=n)) for _ in range(RESAMPLES)]
    lo, hi = _percentiles(boot)
    return ratio, lo, hi, n


def unpaired_interval(xs, ys):
    """(ratio, lo, hi, n) of x / y with the runs of each side resampled on their own;
    n is the smaller side's count."""
    lx, ly = _logs(xs), _logs(ys)
    n = min(len(lx), len(ly))
    if n == 0:
        return None, None, None, 0
    ratio = math.exp(statistics.median(lx) - statistics.median(ly))
    if n < MIN_SAMPLES:
        return ratio, None, None, n
    rng = random.Random(1)
    boot = [statistics.median(rng.choices(lx, k=len(lx))) - statistics.median(rng.choices(ly, k=len(ly)))
            for _ in range(RESAMPLES)]
    lo, hi = _percentiles(boot)
    return ratio, lo, hi, n


def equal_margin_pct(lo, hi):
    """The margin (whole percent, rounded up) an interval around 1.0 spans."""
    return int(math.ceil(max(hi - 1, 1 - lo) * 100 - 1e-9))


def verdict(interval, better):
    """(AHEAD|BEHIND|EQUAL|UNDECIDED, margin %) of an interval of ours / theirs; better
    +1 when a higher figure is better (IOPS), -1 when lower is (latency)."""
    _, lo, hi, _ = interval
    if lo is None:
        return UNDECIDED, None
    if lo > 1:
        return (AHEAD if better > 0 else BEHIND), None
    if hi < 1:
        return (BEHIND if better > 0 else AHEAD), None
    return EQUAL, equal_margin_pct(lo, hi)


def decided(interval, margin_pct):
    """Whether more pairs would not change the answer: the interval excludes 1.0, or it
    is within the margin."""
    word, margin = verdict(interval, +1)
    return word in (AHEAD, BEHIND) or (word == EQUAL and margin <= margin_pct)


def verdict_text(interval, better, ahead="ahead", behind="behind"):
    """The verdict in words with its interval: 'ahead: 1.12x (1.05..1.19, 8 pairs)'."""
    ratio, lo, hi, n = interval
    word, margin = verdict(interval, better)
    if word == UNDECIDED:
        return f"undecided ({n} of the {MIN_SAMPLES} pairs an interval needs)" if ratio is not None \
            else "undecided: no pair"
    ci = f"{ratio:.2f}x ({lo:.2f}..{hi:.2f}, n={n})"
    if word == EQUAL:
        return f"equal within +-{margin}%: {ci}"
    return f"{ahead if word == AHEAD else behind}: {ci}"
