#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""tests/matrix/test_verdicts.py -- the verdicts of ours vs the peer and of compare (run by
tests/matrix/test_matrix.sh): intervals over pairs and over unpaired runs, what each
verdict says, when more pairs are wanted, and compare's table on folders made here."""
import json
import os
import shutil
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "scripts", "matrix"))
from rpmamatrix import verdicts  # noqa: E402
from rpmamatrix.compare import cmd_compare  # noqa: E402
from rpmamatrix.common import PLAN_COLUMNS  # noqa: E402
from test_costs import fio_doc  # noqa: E402

# the host's speed from one pair to the next: both runs of a pair alike
DRIFT = [1.0, 0.6, 1.3, 0.8, 1.1, 0.5, 1.2, 0.9]


class Intervals(unittest.TestCase):
    def test_pairs_decide_where_ranges_overlap(self):
        peer = [1000 * d for d in DRIFT]
        ours = [p * r for p, r in zip(peer, [1.08, 1.10, 1.09, 1.11, 1.10, 1.09, 1.10, 1.11])]
        self.assertLess(min(ours), max(peer))  # min..max would say "within spread"
        ratio, lo, hi, n = verdicts.paired_interval(ours, peer)
        self.assertEqual(n, 8)
        self.assertAlmostEqual(ratio, 1.10, places=3)  # the median pair
        self.assertGreaterEqual(lo, 1.08)
        self.assertLessEqual(hi, 1.11 + 1e-9)
        self.assertEqual(verdicts.verdict((ratio, lo, hi, n), +1), (verdicts.AHEAD, None))
        # the same interval of a latency (lower is better) is behind
        self.assertEqual(verdicts.verdict((ratio, lo, hi, n), -1), (verdicts.BEHIND, None))
        self.assertTrue(verdicts.decided((ratio, lo, hi, n), 5))

    def test_one_hiccup_does_not_sway_it(self):
        # the host stalled during one run of ours: that pair's ratio is 0.5
        peer = [1000 * d for d in DRIFT]
        ours = [p * r for p, r in zip(peer, [1.10, 1.09, 1.11, 0.5, 1.10, 1.10, 1.09, 1.11])]
        iv = verdicts.paired_interval(ours, peer)
        self.assertAlmostEqual(iv[0], 1.10, places=3)
        self.assertEqual(verdicts.verdict(iv, +1)[0], verdicts.AHEAD)

    def test_disagreeing_pairs_are_equal_within_a_margin(self):
        peer = [1000 * d for d in DRIFT]
        ours = [p * r for p, r in zip(peer, [1.2, 0.85] * 4)]
        iv = verdicts.paired_interval(ours, peer)
        word, margin = verdicts.verdict(iv, +1)
        self.assertEqual(word, verdicts.EQUAL)
        self.assertEqual(margin, verdicts.equal_margin_pct(iv[1], iv[2]))
        self.assertGreater(margin, 5)
        self.assertFalse(verdicts.decided(iv, 5))
        self.assertTrue(verdicts.decided(iv, margin))
        self.assertRegex(verdicts.verdict_text(iv, +1), rf"^equal within \+-{margin}%: 1\.01x \(0\.\d\d\.\.1\.\d\d, n=8\)$")

    def test_behind(self):
        iv = verdicts.paired_interval([900, 910, 905, 890, 899], [1000, 1000, 1000, 1000, 1000])
        self.assertEqual(verdicts.verdict(iv, +1)[0], verdicts.BEHIND)
        self.assertTrue(verdicts.verdict_text(iv, +1).startswith("behind: 0.90x"))

    def test_too_few_pairs_decide_nothing(self):
        iv = verdicts.paired_interval([2000] * 4, [1000] * 4)
        self.assertEqual(iv, (2.0, None, None, 4))
        self.assertEqual(verdicts.verdict(iv, +1), (verdicts.UNDECIDED, None))
        self.assertFalse(verdicts.decided(iv, 50))
        self.assertEqual(verdicts.verdict_text(iv, +1), "undecided (4 of the 5 pairs an interval needs)")
        self.assertEqual(verdicts.paired_interval([], []), (None, None, None, 0))

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
