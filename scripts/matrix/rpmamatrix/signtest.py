# SPDX-License-Identifier: BSD-3-Clause
"""The sign-test interval of a median: which order statistics bound it and how often
such an interval covers the true median, exactly, at any n.

Of n independent draws of a continuous distribution, each falls below the median with
probability 1/2, so the count below it is binomial(n, 1/2) whatever the distribution.
The interval [x_(k), x_(n+1-k)] of the sorted draws misses the median only when fewer
than k fall on one side of it: it covers the median with probability
1 - 2 * P(binomial(n, 1/2) <= k - 1). Only n + 1 coverages exist for each n; at n = 5
the widest, [min, max], covers 1 - 2/32 = 93.75%: no 95% interval of a median from 5
draws exists, whatever method claims one.

Why this and not Wilcoxon's signed-rank interval (narrower): that one assumes the
pairs' log-ratios are symmetric about their centre, and ours are not -- a stall of the
host slows one run of a pair, so wild ratios fall on the side of whichever run met it.
The sign test assumes only independent pairs, and its point estimate is the median of
the pairs' ratios the reports already give. Pure stdlib (math.comb)."""
import math


def coverage(n, k):
    """The probability that [x_(k), x_(n+1-k)] of n draws covers their median
    (1 <= k <= (n + 1) // 2), exactly: 1 - 2 * P(binomial(n, 1/2) <= k - 1)."""
    if not 1 <= k <= (n + 1) // 2:
        raise ValueError(f"order statistic {k} of {n} draws bounds no interval")
    below = sum(math.comb(n, j) for j in range(k))
    return 1 - 2 * below / 2 ** n


def order_for(n, target):
    """(k, coverage) of the narrowest sign-test interval of n draws (the largest k) whose
    coverage reaches TARGET; when even [min, max] (k = 1) does not, (1, its coverage):
    the caller must see that the coverage is below the target."""
    best = 1
    for k in range(2, (n + 1) // 2 + 1):
        if coverage(n, k) < target:
            break
        best = k
    return best, coverage(n, best)


def fewest_draws(target):
    """The smallest n whose [min, max] covers the median with TARGET's probability:
    1 - 2 / 2^n >= target (6 for 95%)."""
    n = 1
    while coverage(n, 1) < target:
        n += 1
    return n


def median_interval(values, target):
    """(lo, hi, coverage) of the sign-test interval of the median of VALUES (n >= 1)."""
    xs = sorted(values)
    k, cov = order_for(len(xs), target)
    return xs[k - 1], xs[len(xs) - k], cov


def looks_coverage(first, last, target):
    """The probability that the interval covers the median at EVERY n from FIRST to LAST
    (each interval as order_for gives it) -- what a rule that stops at the first n whose
    interval decides can rely on, whatever decides it. Exact: a draw below the median
    is a fair coin, and the interval at n covers the median iff at least k of the n draws
    fall on each side, so a walk over the count below it, pruned where a look misses,
    gives the probability of missing none."""
    paths = {0: 1.0}  # count of draws below the median so far -> probability
    for n in range(1, last + 1):
        step = {}
        for below, p in paths.items():
            step[below] = step.get(below, 0.0) + p / 2
            step[below + 1] = step.get(below + 1, 0.0) + p / 2
        if n >= first:
            k, _ = order_for(n, target)
            step = {b: p for b, p in step.items() if b >= k and n - b >= k}
        paths = step
    return sum(paths.values())
