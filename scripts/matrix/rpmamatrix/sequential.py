# SPDX-License-Identifier: BSD-3-Clause
"""Pairs until the verdict decides: after each pair of interleaved runs of ours and the
peer's at a point, one more pair or stop (run_matrix.sh asks through `matrix decide`,
whose exit status it follows: the rule lives here, the loop there).

Stop when the IOPS interval decides -- it lies beyond +-margin of 1.00x (ahead or behind)
or within it (equal) -- or when the cap of pairs is reached; never before the pairs the
plan asked for. Below MIN_PAIRS no interval reaches LEVEL, so nothing decides there.

Looking after every pair and stopping at the first interval that decides is a sequence
of tests: the final interval misses the true ratio only if one of the looks' intervals
did, so the chance that all looks cover it (signtest.looks_coverage: exact, 92.9% for
6 to 12 pairs at 95% each) bounds the chance that a verdict is wrong, and is stated
beside the verdicts."""
from collections import namedtuple

from .signtest import looks_coverage
from .verdicts import LEVEL, MIN_PAIRS, decided

# stop: no more pairs; why: the words the runner's progress line ends with
Step = namedtuple("Step", "stop why")


def next_step(interval, pairs, min_pairs, max_pairs, margin_pct):
    """One more pair or stop, after PAIRS pairs run (some may have failed: the interval
    counts the measured ones) of MIN_PAIRS..MAX_PAIRS."""
    if pairs < min_pairs:
        return Step(False, f"one more pair ({min_pairs} planned)")
    if decided(interval, margin_pct):
        return Step(True, "decided")
    if pairs >= max_pairs:
        return Step(True, "--max-repeats reached")
    return Step(False, "one more pair")


def verdicts_coverage(min_pairs, max_pairs):
    """The chance that every interval from the first look that can decide to the cap
    covers the true ratio (None when no look can decide): at least the chance that a
    point's verdict, taken at whichever look stopped, is right."""
    first = max(min_pairs, MIN_PAIRS)
    return None if first > max_pairs else looks_coverage(first, max_pairs, LEVEL)
