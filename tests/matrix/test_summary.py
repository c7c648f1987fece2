#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""tests/matrix/test_summary.py -- what run_matrix.sh prints and reads back about a result
folder (run by tests/matrix/test_matrix.sh): the summary subcommand (the findings without
their charts, the summary table, the status, where the report is) and --resume's stored
run (complete or not, the arguments as given, the folders it refuses)."""
import contextlib
import io
import json
import os
import sys
import tempfile
import unittest

from benchrun import MATRIX

sys.path.insert(0, os.path.dirname(MATRIX))
from rpmamatrix import resume, summary  # noqa: E402

REPORT = """# rpma-fio matrix report

## Findings

Costs per regime.
![chart](charts/overview.svg)
- APM -40% IOPS

## Points and methods

p001 apm

## Summary

| id | method |
| p001 | apm |

## Environment

host x
"""


def write(folder, name, text):
    with open(os.path.join(folder, name), "w") as f:
        f.write(text)


class Summary(unittest.TestCase):
    def test_findings_table_status(self):
        with tempfile.TemporaryDirectory() as d:
            write(d, "report.md", REPORT)
            write(d, "status", "partial (1 of 4 runs failed)\n")
            self.assertEqual(summary.summary_text(d).split("\n"), [
                "", "", "Costs per regime.", "- APM -40% IOPS", "", "", "| id | method |",
                "| p001 | apm |", "", "status: partial (1 of 4 runs failed)",
                f"report: {d}/report.html (and report.md, results.csv, charts/, runs/)"])


class StoredRun(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name
        write(self.dir, "plan.tsv", "id\n")

    def tearDown(self):
        self.tmp.cleanup()

    def refused(self, why):
        err = io.StringIO()
        with self.assertRaises(SystemExit), contextlib.redirect_stderr(err):
            resume.stored_run(self.dir)
        self.assertIn(why, err.getvalue())

    def test_args_as_given(self):
        args = ["--qd", "1,8", "--out", "a b\n'c'"]
        write(self.dir, "options.json", json.dumps({"args": args}))
        write(self.dir, "status", "partial (interrupted)\n")
        self.assertEqual(resume.stored_run(self.dir), (False, args))

    def test_complete_needs_no_args(self):
        write(self.dir, "options.json", "{}")
        write(self.dir, "status", "complete\n")
        self.assertEqual(resume.stored_run(self.dir), (True, []))

    def test_refusals(self):
        self.refused("has no options.json: not a result folder")
        write(self.dir, "options.json", json.dumps({"command": "run_matrix.sh --quick"}))
        self.refused('options.json holds no "args" (a run from before --resume)')
        os.remove(os.path.join(self.dir, "plan.tsv"))
        self.refused("has no plan.tsv")


if __name__ == "__main__":
    unittest.main()
