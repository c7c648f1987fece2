#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""tests/matrix/test_reproduce.py -- matrix benchmarks --previous (run by
tests/matrix/test_matrix.sh): the IOPS verdicts read back from a BENCHMARKS.md, both
its tables (the main one and device DAX's), and the comparison with a later run: the
same class of verdict is 'same' whatever an equal's margin, another class differs, a
point only one run measured is left out, and the committed document agrees with itself."""
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "scripts", "matrix"))
from rpmamatrix.reproduce import iops_verdicts, reproduce_section  # noqa: E402

HEAD = "| point | ours | peer | ours/peer (interval, pairs, coverage) | verdict |"


def doc(date, main, pmem):
    """A BENCHMARKS.md of rows (point, ratio, verdict) in its two IOPS tables."""
    def rows(points):
        return [f"| {p} | 1 (1..1) | 1 (1..1) | {r} | {v} |" for p, r, v in points]
    return (["# rpma-fio vs the peer: benchmarks", "", "## How it was made", "",
             f"- date: {date}", "- git revision: 0123456789abcdef", "",
             "## IOPS", "", HEAD, "|---|---|---|---|---|"] + rows(main) +
            ["", "## Latency", "", HEAD, "|---|---|---|---|---|",
             "| apm write 4k qd1 sync | 1 | 1 | 0.50x (0.4..0.6, n=6, 96.9%) | ahead |", "",
             "## GPSPM on persistent memory (device DAX)", "", "### IOPS", "", HEAD,
             "|---|---|---|---|---|"] + rows(pmem) + [""])


BEFORE = doc("2026-11-28T21:11:32Z",
             [("apm write 4k qd1 sync", "1.01x (0.99..1.05, n=9, 96.1%)", "equal within +-5%"),
              ("apm write 64k qd8", "1.04x (1.00..1.08, n=12, 96.1%)", "ahead"),
              ("apm write 4k qd32", "1.78x (1.65..1.90, n=6, 96.9%)", "ahead")],
             [("gpspm-busy write 4k qd8", "1.16x (1.10..1.20, n=6, 96.9%)", "ahead")])
NOW = doc("2026-11-29T05:00:00Z",
          [("apm write 4k qd1 sync", "1.02x (0.97..1.08, n=12, 96.1%)", "equal within +-8%"),
           ("apm write 64k qd8", "1.02x (0.98..1.06, n=12, 96.1%)", "equal within +-6%"),
           ("apm write 4k qd32", "1.70x (1.60..1.80, n=6, 96.9%)", "ahead"),
           ("apm write 4k qd8", "1.60x (1.50..1.70, n=6, 96.9%)", "ahead")],
          [("gpspm-busy write 4k qd8", "1.10x (0.98..1.20, n=6, 96.9%)", "equal within +-20%")])


class Reproduce(unittest.TestCase):
    def test_reads_both_iops_tables_not_latency(self):
        v = iops_verdicts(BEFORE)
        self.assertEqual(len(v), 4)
        self.assertEqual(v[("main", "apm write 64k qd8")][0], "ahead")
        self.assertIn(("GPSPM on persistent memory (device DAX)", "gpspm-busy write 4k qd8"), v)
        self.assertEqual(v[("main", "apm write 4k qd1 sync")][0], "equal within +-5%")

    def row(self, md, point):
        rows = [l for l in md if l.startswith(f"| {point} ")]
        self.assertEqual(len(rows), 1, point)
        return rows[0]

    def test_same_and_differs(self):
        md = reproduce_section(BEFORE, NOW, 0)
        text = "\n".join(md)
        self.assertIn("**the same verdict at 3 of 4**", text)
        self.assertIn("2026-11-28T21:11:32Z, git revision 0123456", text)
        self.assertIn("judged by this run's rule (margin +-0%)", text)
        dax = self.row(md, "gpspm-busy write 4k qd8 (GPSPM on persistent memory)")
        self.assertTrue(dax.endswith("| **differs** |"), dax)
        eq = self.row(md, "apm write 4k qd1 sync")
        self.assertTrue(eq.endswith("| same |"), eq)  # equal both times, margins apart
        self.assertFalse(any(l.startswith("| apm write 4k qd8 ") for l in md))  # new point

    def test_a_verdict_of_another_rule_is_judged_again(self):
        # printed "ahead" with a low end of 1.00x (an older rule's rounding): equal at +-0%
        row = self.row(reproduce_section(BEFORE, NOW, 0), "apm write 64k qd8")
        self.assertIn("| equal within +-8%: 1.04x (1.00..1.08, n=12, 96.1%) (printed: ahead) |", row)
        self.assertTrue(row.endswith("| same |"), row)

    def test_the_margin_judges_both_runs(self):
        md = reproduce_section(BEFORE, NOW, 15)
        self.assertIn("**the same verdict at 4 of 4**", "\n".join(md))
        dax = self.row(md, "gpspm-busy write 4k qd8 (GPSPM on persistent memory)")
        self.assertIn("| equal within +-20%: 1.16x (1.10..1.20, n=6, 96.9%) (printed: ahead) |", dax)
        self.assertIn("| ahead: 1.70x", self.row(md, "apm write 4k qd32"))

    def test_no_previous_tables_no_section(self):
        self.assertEqual(reproduce_section(["# nothing"], NOW, 5), [])

    def test_committed_document_agrees_with_itself(self):
        with open(os.path.join(HERE, "..", "..", "docs", "BENCHMARKS.md")) as f:
            lines = f.read().split("\n")
        v = iops_verdicts(lines)
        self.assertGreaterEqual(len(v), 12)
        for margin in (0, 15):
            text = "\n".join(reproduce_section(lines, lines, margin))
            self.assertIn(f"**the same verdict at {len(v)} of {len(v)}**", text)


if __name__ == "__main__":
    unittest.main()
