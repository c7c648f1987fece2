#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""tests/matrix/test_verdicts.py -- the verdicts of ours vs the peer and of compare (run by
tests/matrix/test_matrix.sh): the sign test's coverages against binomial sums worked by
hand, intervals over pairs and over unpaired runs, what each verdict says (and that the
old bootstrap's overconfident ones are gone), when more pairs are wanted, and compare's
table on folders made here."""
import json
import os
import shutil
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "scripts", "matrix"))
from rpmamatrix import sequential, signtest, verdicts  # noqa: E402
from rpmamatrix.compare import cmd_compare  # noqa: E402
from rpmamatrix.common import PLAN_COLUMNS  # noqa: E402
from test_costs import fio_doc  # noqa: E402

# the host's speed from one pair to the next: both runs of a pair alike
DRIFT = [1.0, 0.6, 1.3, 0.8, 1.1, 0.5, 1.2, 0.9, 0.7]


def pairs_of(ratios):
    """(ours, peer) IOPS of pairs whose ratios are RATIOS, the host drifting."""
    peer = [1000 * d for d in DRIFT[:len(ratios)]]
    return [p * r for p, r in zip(peer, ratios)], peer


class SignTestCoverage(unittest.TestCase):
    """The coverages the intervals claim, against binomial sums worked by hand: the
    interval [x_(k), x_(n+1-k)] covers the median with 1 - 2 * sum_{j<k} C(n,j) / 2^n."""
    # n: (k, coverage as a fraction), each the narrowest at 95%, and the next k's below it
    HAND = {
        5: (1, 1 - 2 * 1 / 32, None),                     # 30/32, no k=2 at all below 95%
        6: (1, 1 - 2 * 1 / 64, 1 - 2 * (1 + 6) / 64),    # 62/64; k=2: 50/64
        7: (1, 1 - 2 * 1 / 128, 1 - 2 * (1 + 7) / 128),  # 126/128; k=2: 112/128
        8: (1, 1 - 2 * 1 / 256, 1 - 2 * (1 + 8) / 256),  # 254/256; k=2: 238/256 = 92.97%
        9: (2, 1 - 2 * (1 + 9) / 512, 1 - 2 * (1 + 9 + 36) / 512),           # 492/512
        10: (2, 1 - 2 * (1 + 10) / 1024, 1 - 2 * (1 + 10 + 45) / 1024),      # 1002/1024
        11: (2, 1 - 2 * (1 + 11) / 2048, 1 - 2 * (1 + 11 + 55) / 2048),      # 2024/2048
        12: (3, 1 - 2 * (1 + 12 + 66) / 4096, 1 - 2 * (1 + 12 + 66 + 220) / 4096),  # 3938/4096
    }

    def test_coverage_n5_to_12(self):
        for n, (k, cov, next_cov) in self.HAND.items():
            with self.subTest(n=n):
                self.assertAlmostEqual(signtest.coverage(n, k), cov, places=12)
                self.assertEqual(signtest.order_for(n, 0.95), (k, signtest.coverage(n, k)))
                if k > 1 or n >= 6:
                    self.assertGreaterEqual(cov, 0.95)
                if next_cov is not None:
                    self.assertAlmostEqual(signtest.coverage(n, k + 1), next_cov, places=12)
                    self.assertLess(next_cov, 0.95)  # so k is the narrowest at 95%

    def test_five_pairs_claim_93_75_not_95(self):
        self.assertEqual(signtest.order_for(5, 0.95), (1, 0.9375))
        self.assertEqual(signtest.fewest_draws(0.95), 6)
        self.assertEqual(verdicts.MIN_PAIRS, 6)
        iv = verdicts.paired_interval(*pairs_of([1.30, 1.11, 1.74, 1.25, 1.45]))
        self.assertEqual(iv.n, 5)
        self.assertEqual(iv.coverage, 0.9375)
        self.assertAlmostEqual(iv.lo, 1.11)  # [min, max]: the widest there is
        self.assertAlmostEqual(iv.hi, 1.74)
        self.assertIn("n=5, 93.8%)", verdicts.verdict_text(iv, +1))
        self.assertNotIn("95", verdicts.interval_text(iv))

    def test_interval_of_a_known_set(self):
        # 9 pairs: k = 2, the 2nd and 8th smallest ratios, 96.1%
        ratios = [1.12, 0.97, 1.30, 1.05, 1.21, 1.08, 1.50, 1.15, 1.02]
        iv = verdicts.paired_interval(*pairs_of(ratios))
        self.assertEqual((iv.n, round(iv.coverage, 6)), (9, round(492 / 512, 6)))
        self.assertAlmostEqual(iv.ratio, 1.12)   # the median ratio
        self.assertAlmostEqual(iv.lo, 1.02)      # 2nd smallest
        self.assertAlmostEqual(iv.hi, 1.30)      # 8th smallest
        self.assertEqual(verdicts.verdict_text(iv, +1), "ahead: 1.12x (1.02..1.30, n=9, 96.1%)")

    def test_coverage_shown_below_95_is_never_95(self):
        self.assertEqual(verdicts.coverage_pct(0.9375), 93.8)
        self.assertEqual(verdicts.coverage_pct(0.9499), 94.9)
        self.assertEqual(verdicts.coverage_pct(0.96875), 96.9)

    def test_looks_together(self):
        # a look at 7 or 8 pairs (k = 1) misses only when all fall on one side, which the
        # look at 6 already did: 62/64 together
        self.assertAlmostEqual(signtest.looks_coverage(6, 8, 0.95), 62 / 64, places=12)
        # the look at 9 (k = 2) misses too after one of the first 6 below the median and
        # the next 3 above (or the mirror): 62/64 - 2 * (6/64) / 8
        self.assertAlmostEqual(signtest.looks_coverage(6, 9, 0.95), 62 / 64 - 2 * 6 / 512, places=12)
        self.assertLess(signtest.looks_coverage(6, 12, 0.95), 0.95)  # stated in BENCHMARKS.md


class BootstrapWasOverconfident(unittest.TestCase):
    """Noisy pairs that the old 95% bootstrap of the median called ahead: the order
    statistics it landed on cover less than it claimed (5 pairs: [min, max], 93.75%;
    7 pairs: [x_(2), x_(6)], 87.5%). Against the bootstrap (verdicts.py before the sign
    test) both tests fail: it says ahead."""

    def test_five_noisy_pairs_are_undecided(self):
        iv = verdicts.paired_interval(*pairs_of([1.30, 1.11, 1.74, 1.04, 1.45]))
        self.assertEqual(verdicts.verdict(iv, +1), (verdicts.UNDECIDED, None))
        self.assertFalse(verdicts.decided(iv, 50))
        self.assertEqual(verdicts.verdict_text(iv, +1),
                         "undecided: 1.30x (1.04..1.74, n=5, 93.8%); a 95% interval needs 6 pairs")

    def test_seven_noisy_pairs_are_equal_within(self):
        # one pair of the seven below 1.00x: the bootstrap's interval started at the 2nd
        iv = verdicts.paired_interval(*pairs_of([1.30, 1.11, 1.74, 0.96, 1.45, 1.20, 1.62]))
        self.assertEqual(verdicts.verdict(iv, +1), (verdicts.EQUAL, 74))
        self.assertFalse(verdicts.decided(iv, 5))
        self.assertEqual(verdicts.verdict_text(iv, +1),
                         "equal within +-74%: 1.30x (0.96..1.74, n=7, 98.4%)")


class PairsUntilDecided(unittest.TestCase):
    """sequential.next_step: what run_matrix.sh does after each pair."""
    AHEAD_8 = verdicts.paired_interval(*pairs_of([1.1] * 8))
    NOISY_8 = verdicts.paired_interval(*pairs_of([1.2, 0.85] * 4))

    def test_decided_stops(self):
        self.assertEqual(sequential.next_step(self.AHEAD_8, 8, 5, 12, 5), (True, "decided"))

    def test_the_plans_pairs_first(self):
        self.assertEqual(sequential.next_step(self.AHEAD_8, 8, 9, 12, 5).stop, False)

    def test_undecided_adds_a_pair_until_the_cap(self):
        self.assertEqual(sequential.next_step(self.NOISY_8, 8, 5, 12, 5), (False, "one more pair"))
        self.assertEqual(sequential.next_step(self.NOISY_8, 12, 5, 12, 5), (True, "--max-repeats reached"))
        self.assertEqual(sequential.next_step(self.NOISY_8, 13, 5, 12, 5).stop, True)

    def test_five_pairs_never_decide(self):
        five = verdicts.paired_interval(*pairs_of([1.5] * 5))
        self.assertEqual(sequential.next_step(five, 5, 5, 12, 50), (False, "one more pair"))
        self.assertEqual(sequential.next_step(five, 5, 5, 5, 50), (True, "--max-repeats reached"))

    def test_verdicts_coverage(self):
        self.assertAlmostEqual(sequential.verdicts_coverage(5, 8), 62 / 64)
        self.assertEqual(sequential.verdicts_coverage(3, 5), None)  # no look can decide


class Margin(unittest.TestCase):
    """Ahead or behind only beyond +-margin of 1.00x; the verdicts of make bench's two
    days (docs/BENCHMARKS.md of 2026-11-28 and of 2026-11-29, under the rule at 1.00x)."""

    def iv(self, lo, hi, ratio=None, n=12, cov=0.961):
        return verdicts.Interval(ratio or (lo + hi) / 2, lo, hi, n, cov)

    def test_a_small_lead_is_equal_within_the_margin(self):
        small = self.iv(1.03, 1.08)
        self.assertEqual(verdicts.verdict(small, +1), (verdicts.AHEAD, None))  # at 1.00x
        self.assertEqual(verdicts.verdict(small, +1, 10), (verdicts.EQUAL, 8))
        self.assertTrue(verdicts.decided(small, 10))

    def test_beyond_the_margin_is_ahead_or_behind(self):
        self.assertEqual(verdicts.verdict(self.iv(1.12, 1.20), +1, 10), (verdicts.AHEAD, None))
        self.assertEqual(verdicts.verdict(self.iv(0.70, 0.85), +1, 10), (verdicts.BEHIND, None))
        # a latency (lower is better) below the margin is ahead
        self.assertEqual(verdicts.verdict(self.iv(0.80, 0.85), -1, 10), (verdicts.AHEAD, None))
        self.assertEqual(verdicts.verdict(self.iv(0.93, 0.97), -1, 10), (verdicts.EQUAL, 7))

    def test_across_the_margins_edge_needs_more_pairs(self):
        edge = self.iv(1.02, 1.20)
        self.assertEqual(verdicts.verdict(edge, +1, 10), (verdicts.EQUAL, 20))
        self.assertFalse(verdicts.decided(edge, 10))
        self.assertEqual(sequential.next_step(edge, 8, 6, 12, 10), (False, "one more pair"))
        self.assertIn("equal within +-20%", verdicts.verdict_text(edge, +1, 10))

    # the points whose verdict at 1.00x differed between the two days: (day 1, day 2)
    FLIPPED = {"gpspm-busy 4k qd1": ((0.98, 1.13, 12), (1.00 + 1e-3, 1.08, 12)),
               "gpspm-sleep 4k qd1": ((1.02, 1.16, 9), (1.00 - 1e-3, 1.09, 12)),
               "gpspm-busy 64k qd8 on device DAX": ((1.04, 1.18, 6), (1.00 - 1e-3, 1.07, 12))}

    def test_the_flipped_points_agree_at_a_margin_as_wide_as_the_drift(self):
        for name, days in self.FLIPPED.items():
            at = {m: [verdicts.verdict(self.iv(lo, hi, n=n, cov=0.96), +1, m)[0] for lo, hi, n in days]
                  for m in (0, 15)}
            self.assertNotEqual(at[0][0], at[0][1], name)  # the control: at 1.00x they flip
            self.assertEqual(at[15], [verdicts.EQUAL, verdicts.EQUAL], name)

    def test_margin_of_a_runs_options(self):
        self.assertEqual(verdicts.margin_of({"margin_pct": "15"}), 15)
        self.assertEqual(verdicts.margin_of({}), verdicts.DEFAULT_MARGIN_PCT)
        self.assertEqual(verdicts.margin_of({"margin_pct": "x"}), verdicts.DEFAULT_MARGIN_PCT)


class Intervals(unittest.TestCase):
    def test_pairs_decide_where_ranges_overlap(self):
        ours, peer = pairs_of([1.08, 1.10, 1.09, 1.11, 1.10, 1.09, 1.10, 1.11])
        self.assertLess(min(ours), max(peer))  # min..max would say "within spread"
        iv = verdicts.paired_interval(ours, peer)
        self.assertEqual(iv.n, 8)
        self.assertAlmostEqual(iv.ratio, 1.10, places=3)  # the median pair
        self.assertGreaterEqual(iv.lo, 1.08 - 1e-9)
        self.assertLessEqual(iv.hi, 1.11 + 1e-9)
        self.assertEqual(verdicts.verdict(iv, +1), (verdicts.AHEAD, None))
        # the same interval of a latency (lower is better) is behind
        self.assertEqual(verdicts.verdict(iv, -1), (verdicts.BEHIND, None))
        self.assertTrue(verdicts.decided(iv, 5))

    def test_one_hiccup_does_not_sway_nine_pairs(self):
        # the host stalled during one run of ours: that pair's ratio is 0.5. From 9 pairs
        # the interval drops the farthest ratio of each side (k = 2)
        iv = verdicts.paired_interval(*pairs_of([1.10, 1.09, 1.11, 0.5, 1.10, 1.10, 1.09, 1.11, 1.10]))
        self.assertAlmostEqual(iv.ratio, 1.10, places=3)
        self.assertEqual(verdicts.verdict(iv, +1)[0], verdicts.AHEAD)

    def test_one_hiccup_in_eight_pairs_leaves_it_equal(self):
        # at 8 pairs the narrowest 95% interval is [min, max] (k = 2 covers 92.97%): the
        # stalled pair's 0.5 is in it, and the runner adds a pair
        iv = verdicts.paired_interval(*pairs_of([1.10, 1.09, 1.11, 0.5, 1.10, 1.10, 1.09, 1.11]))
        self.assertEqual(verdicts.verdict(iv, +1), (verdicts.EQUAL, 50))

    def test_disagreeing_pairs_are_equal_within_a_margin(self):
        iv = verdicts.paired_interval(*pairs_of([1.2, 0.85] * 4))
        word, margin = verdicts.verdict(iv, +1)
        self.assertEqual(word, verdicts.EQUAL)
        self.assertEqual(margin, verdicts.equal_margin_pct(iv.lo, iv.hi))
        self.assertGreater(margin, 5)
        self.assertFalse(verdicts.decided(iv, 5))
        self.assertTrue(verdicts.decided(iv, margin))
        self.assertEqual(verdicts.verdict_text(iv, +1), f"equal within +-{margin}%: 1.01x (0.85..1.20, n=8, 99.2%)")

    def test_behind(self):
        iv = verdicts.paired_interval([900, 910, 905, 890, 899, 902], [1000] * 6)
        self.assertEqual(verdicts.verdict(iv, +1)[0], verdicts.BEHIND)
        self.assertTrue(verdicts.verdict_text(iv, +1).startswith("behind: 0.90x (0.89..0.91, n=6, 96.9%)"))

    def test_too_few_pairs_decide_nothing(self):
        iv = verdicts.paired_interval([2000] * 4, [1000] * 4)
        self.assertEqual(iv, (2.0, 2.0, 2.0, 4, 0.875))
        self.assertEqual(verdicts.verdict(iv, +1), (verdicts.UNDECIDED, None))
        self.assertFalse(verdicts.decided(iv, 50))
        self.assertEqual(verdicts.verdict_text(iv, +1),
                         "undecided: 2.00x (2.00..2.00, n=4, 87.5%); a 95% interval needs 6 pairs")
        self.assertEqual(verdicts.paired_interval([], []), (None, None, None, 0, None))
        self.assertEqual(verdicts.verdict_text(verdicts.paired_interval([], []), +1), "undecided: no pair")

    def test_same_runs_same_verdict(self):
        xs, ys = [1000, 1200, 900, 1100, 1050, 980], [1010, 1150, 950, 1000, 1100, 1000]
        self.assertEqual(verdicts.paired_interval(xs, ys), verdicts.paired_interval(xs, ys))
        self.assertEqual(verdicts.unpaired_interval(xs, ys), verdicts.unpaired_interval(xs, ys))

    def test_unpaired_drift_is_not_a_difference(self):
        # two folders on hosts of the same speed, runs in another order: equal
        a = [1000 * d for d in DRIFT]
        b = list(reversed(a))
        iv = verdicts.unpaired_interval(b, a)
        self.assertAlmostEqual(iv[0], 1.0)
        self.assertEqual(verdicts.verdict(iv, +1)[0], verdicts.EQUAL)


class Compare(unittest.TestCase):
    """compare A B: B faster where every run of B beats A's, equal within a margin where
    the runs mix, undecided with too few runs."""
    def folder(self, name, runs):
        d = os.path.join(self.dir, name)
        os.makedirs(os.path.join(d, "runs"))
        rows = [["p001", "ours", "apm", "lat", "write", "4096", "1", "1", "1", "1"],
                ["p002", "ours", "apm", "qd", "write", "4096", "8", "0", "1", "1"],
                ["p003", "ours", "noflush", "lat", "write", "4096", "1", "1", "1", "1"]]
        with open(os.path.join(d, "plan.tsv"), "w") as f:
            f.write("\t".join(PLAN_COLUMNS) + "\n" + "".join("\t".join(r) + "\n" for r in rows))
        for pid, values in runs.items():
            for r, iops in enumerate(values, 1):
                with open(os.path.join(d, "runs", f"{pid}-r{r}.json"), "w") as f:
                    json.dump(fio_doc(int(iops), iops, 1e6 / iops), f)
        return d

    def setUp(self):
        self.dir = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.dir)

    def test_table(self):
        a = self.folder("a", {"p001": [1000, 1100, 900, 1050, 950], "p002": [5000, 5200, 4800, 5100, 4900],
                              "p003": [2000, 2100, 1900]})
        b = self.folder("b", {"p001": [1300, 1400, 1250, 1350, 1320], "p002": [4900, 5300, 5000, 4850, 5150],
                              "p003": [2500, 2600, 2400]})
        out = os.path.join(self.dir, "cmp")

        class Args:
            pass
        args = Args()
        args.a, args.b, args.out = a, b, out
        with open(os.devnull, "w") as null:
            saved, sys.stdout = sys.stdout, null
            try:
                cmd_compare(args)
            finally:
                sys.stdout = saved
        with open(os.path.join(out, "compare.csv")) as f:
            lines = {tuple(ln.split(",")[0:4:3]): ln.strip() for ln in f}
        self.assertRegex(lines["apm", "1"], r"^apm,write,4096,1,1,1,1000\.000,1320\.000,1\.3200,1\.1905,1\.4737,0\.7576,B faster$")
        self.assertRegex(lines["apm", "8"], r"^apm,write,4096,8,0,1,5000\.000,5000\.000,1\.00\d\d,0\.9\d+,1\.0\d+,1\.0\d+,equal within \+-[1-9]%$")
        with open(os.path.join(out, "report.md")) as f:
            md = f.read()
        self.assertRegex(md, r"\| noflush \| write \| 4k \| 1 \| 1 \| 2000 \| 2500 \| 1\.25 \| .* \| undecided \(3 runs, 5 needed\) \|")


if __name__ == "__main__":
    unittest.main()
