# SPDX-License-Identifier: BSD-3-Clause
"""Verdicts that decide: one figure of two implementations (or two result folders) as a
ratio with an interval, and a verdict that says "ahead" or "behind" only when the
interval lies beyond a margin of 1.0 (+-0% unless told), else "equal within +-X%".

The margin is what makes a verdict reproduce. An interval covers the noise of one run,
not the drift of a point from one day to the next (under TCG, two days' medians of the
same point differed by up to 13%): where ours leads by 3% to 8%, an interval's low end
falls on either side of 1.00x from one day to the next, and "ahead" one day is "equal"
the next. With a margin as wide as that drift, "ahead" means ahead by more than it.

Runs of ours and the peer are interleaved (run_matrix.sh --impl ours,peer), so run r of
each is a pair that met the same state of the host: the interval is over the pairs'
ratios (paired). The statistic is the median of the pairs' ratios: a hiccup of the host
that hits one run of a pair makes one ratio wild, and a mean would follow it (under TCG,
one pair in six or so). Its interval is the sign test's (signtest.py): order statistics
of the pairs' ratios whose coverage of the true median is exact at any n, stated with
every verdict ("1.10x (1.08..1.11, n=8, 99.2%)"). The 95% bootstrap of the median used
before landed on [min, max] of 5 pairs (covering 93.75%) and on the 2nd smallest to the
2nd largest of 7 or 8 (87.5%, 93.0%): two runs of make bench the same day disagreed.

The rule: a verdict (ahead, behind or equal within) only from an interval whose coverage
reaches LEVEL; with fewer pairs (5 or fewer at 95%: [min, max] of 5 covers 93.75%) the
interval is given with its coverage and the verdict is undecided.

Two result folders were measured apart (compare): their runs are resampled each on its
own (unpaired), a 95% bootstrap of the ratio of the medians -- nominal, not exact at
small n (coverage None). Ratios are taken as logarithms (a ratio's inverse is its
inverse); the resampling is seeded: the same runs give the same verdict."""
import math
import random
import statistics
from collections import namedtuple

from .signtest import fewest_draws, median_interval

RESAMPLES = 4000
LEVEL = 0.95
# the fewest pairs whose interval can reach LEVEL: 6 at 95% (signtest.py)
MIN_PAIRS = fewest_draws(LEVEL)
# fewer than this many runs a side give compare's bootstrap no interval: with fewer the
# resampling has too few distinct draws and its interval is too narrow to trust
MIN_SAMPLES = 5
# the default margin within which "equal" settles a point (run_matrix.sh --margin)
DEFAULT_MARGIN_PCT = 5

AHEAD, BEHIND, EQUAL, UNDECIDED = "ahead", "behind", "equal", "undecided"

# ratio: of the medians (or the median ratio); lo..hi: its interval, None without one;
# n: pairs (unpaired: the smaller side's runs); coverage: the interval's exact
# probability of covering the true ratio, None for a bootstrap's nominal 95%
Interval = namedtuple("Interval", "ratio lo hi n coverage")
NO_INTERVAL = Interval(None, None, None, 0, None)


def _logs(values):
    return [math.log(v) for v in values]


def _percentiles(stats):
    stats = sorted(stats)
    tail = (1 - LEVEL) / 2
    lo = stats[int(tail * (len(stats) - 1))]
    hi = stats[int(math.ceil((1 - tail) * (len(stats) - 1)))]
    return math.exp(lo), math.exp(hi)


def paired_interval(xs, ys):
    """The Interval of x / y over pairs (xs[i], ys[i]) of positive figures: the median of
    the pairs' ratios and the sign test's interval of it, with its coverage (below LEVEL
    with fewer than MIN_PAIRS pairs; no interval of one pair)."""
    d = [a - b for a, b in zip(_logs(xs), _logs(ys))]
    if not d:
        return NO_INTERVAL
    if len(d) == 1:  # (its [min, max] would be the one ratio, covering 0%)
        return Interval(math.exp(d[0]), None, None, 1, None)
    lo, hi, cov = median_interval(d, LEVEL)
    return Interval(math.exp(statistics.median(d)), math.exp(lo), math.exp(hi), len(d), cov)


def unpaired_interval(xs, ys):
    """(ratio, lo, hi, n) of x / y with the runs of each side resampled on their own;
    n is the smaller side's count."""
    lx, ly = _logs(xs), _logs(ys)
    n = min(len(lx), len(ly))
    if n == 0:
        return NO_INTERVAL
    ratio = math.exp(statistics.median(lx) - statistics.median(ly))
    if n < MIN_SAMPLES:
        return Interval(ratio, None, None, n, None)
    rng = random.Random(1)
    boot = [statistics.median(rng.choices(lx, k=len(lx))) - statistics.median(rng.choices(ly, k=len(ly)))
            for _ in range(RESAMPLES)]
    lo, hi = _percentiles(boot)
    return Interval(ratio, lo, hi, n, None)


def margin_of(options):
    """The margin of a run's options.json (run_matrix.sh --margin), as a number."""
    try:
        return float(options.get("margin_pct", DEFAULT_MARGIN_PCT))
    except (TypeError, ValueError):
        return float(DEFAULT_MARGIN_PCT)


def equal_margin_pct(lo, hi):
    """The margin (whole percent, rounded up) an interval around 1.0 spans."""
    return int(math.ceil(max(hi - 1, 1 - lo) * 100 - 1e-9))


def verdict(interval, better, margin_pct=0):
    """(AHEAD|BEHIND|EQUAL|UNDECIDED, margin %) of an interval of ours / theirs; better
    +1 when a higher figure is better (IOPS), -1 when lower is (latency). Ahead or behind
    when the whole interval lies beyond +-MARGIN_PCT of 1.0, else equal within the
    interval's farther end. Undecided without an interval or with one that covers less
    than LEVEL (too few pairs)."""
    lo, hi, cov = interval.lo, interval.hi, interval.coverage
    if lo is None or (cov is not None and cov < LEVEL):
        return UNDECIDED, None
    if lo > 1 + margin_pct / 100:
        return (AHEAD if better > 0 else BEHIND), None
    if hi < 1 - margin_pct / 100:
        return (BEHIND if better > 0 else AHEAD), None
    return EQUAL, equal_margin_pct(lo, hi)


def decided(interval, margin_pct):
    """Whether more pairs would not change the answer: the interval lies beyond the
    margin (ahead or behind), or within it (equal)."""
    word, margin = verdict(interval, +1, margin_pct)
    return word in (AHEAD, BEHIND) or (word == EQUAL and margin <= margin_pct)


def interval_verdict(interval, better, margin_pct):
    """The verdict of a measured figure in the words of BENCHMARKS.md's tables."""
    word, margin = verdict(interval, better, margin_pct)
    return {AHEAD: "ahead", BEHIND: "**behind**", EQUAL: f"equal within +-{margin}%"}.get(
        word, f"undecided ({interval.n} of the {MIN_PAIRS} pairs a verdict needs)")


def coverage_pct(cov):
    """A coverage in percent to one decimal (93.75% shows as 93.8%); one below LEVEL
    never rounded up to it (94.96% shows as 94.9%, not 95.0%)."""
    shown = round(cov * 100, 1)
    return math.floor(cov * 1000) / 10 if cov < LEVEL and shown >= LEVEL * 100 else shown


def interval_text(interval):
    """The ratio with its interval, the pairs and the interval's coverage:
    '1.10x (1.08..1.11, n=8, 99.2%)'; a bootstrap's '(..., n=5, 95% bootstrap)'."""
    ratio, lo, hi, n, cov = interval
    if ratio is None:
        return ""
    if lo is None:
        return f"{ratio:.2f}x (n={n})"
    how = "95% bootstrap" if cov is None else f"{coverage_pct(cov):.1f}%"
    return f"{ratio:.2f}x ({lo:.2f}..{hi:.2f}, n={n}, {how})"


def verdict_text(interval, better, margin_pct=0, ahead="ahead", behind="behind"):
    """The verdict in words with its interval: 'ahead: 1.10x (1.08..1.11, n=8, 99.2%)'."""
    word, margin = verdict(interval, better, margin_pct)
    if interval.ratio is None:
        return "undecided: no pair"
    if word == UNDECIDED:
        return (f"undecided: {interval_text(interval)}; a {LEVEL:.0%} interval needs "
                f"{MIN_PAIRS} pairs")
    if word == EQUAL:
        return f"equal within +-{margin}%: {interval_text(interval)}"
    return f"{ahead if word == AHEAD else behind}: {interval_text(interval)}"
