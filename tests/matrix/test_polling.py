#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""tests/matrix/test_polling.py -- the polling subcommand (run by tests/matrix/test_matrix.sh):
scripts/bench_polling.sh's runs as medians per rate and mode, and the adaptive mode held
against busy polling's latency and sleeping's CPU; the section make bench appends; and
the polling-row subcommand: a run's line of polling.tsv from its fio JSON."""
import os
import sys
import tempfile
import unittest

from benchrun import MATRIX, BenchRun

sys.path.insert(0, os.path.dirname(MATRIX))
from rpmamatrix import benchmarks, polling  # noqa: E402

HEAD = "round\trate\tmode\tiops\tlat_mean_us\tlat_p99_us\tserver_cpu_pct\n"
# a client's write figures and a server's jobs, as fio's JSON has them
WRITE = {"iops": 7012.34, "lat_ns": {"mean": 140260.0, "percentile": {"99.000000": 900096}}}
SERVER_JOBS = [{"usr_cpu": 60.04, "sys_cpu": 35.0}]


def tsv(lines):
    f = tempfile.NamedTemporaryFile("w", suffix=".tsv", delete=False)
    f.write(HEAD + "".join("\t".join(map(str, ln)) + "\n" for ln in lines))
    f.close()
    return f.name


class Polling(unittest.TestCase):
    def setUp(self):
        runs = []
        for rnd, drift in ((1, 1.0), (2, 0.8), (3, 1.1)):
            runs += [(rnd, 0, "1", 7000 * drift, 140 / drift, 900, 95),
                     (rnd, 0, "0", 3000 * drift, 320 / drift, 1200, 40 + rnd),
                     (rnd, 0, "adaptive", 6800 * drift, 150 / drift, 950, 80),
                     (rnd, 200, "1", 200, 800, 2000, 99),
                     (rnd, 200, "0", 200, 1300, 3000, 13),
                     (rnd, 200, "adaptive", 200, 1200, 2900, 20)]
        self.path = tsv(runs)

    def tearDown(self):
        os.unlink(self.path)

    def test_medians_and_targets(self):
        md = "\n".join(polling.polling_md(polling.read_runs(self.path)))
        self.assertIn("| full speed | busy (1) | 7000 | 140.0 | 900.0 | 95.0 | 3 |", md)
        self.assertIn("| full speed | sleep (0) | 3000 | 320.0 | 1200.0 | 42.0 | 3 |", md)
        self.assertIn("| 200 IOPS | adaptive | 200 | 1200.0 | 2900.0 | 20.0 | 3 |", md)
        # 150 / 140 = 1.07x of busy's latency: met; 80 / 42 = 1.90x of sleeping's CPU: missed
        self.assertIn("| mean latency vs busy polling | 1.07x | <= 1.10x | met |", md)
        self.assertIn("| server CPU vs sleeping | 1.90x | <= 1.10x | **missed** |", md)

    def test_section_in_benchmarks(self):
        md = "\n".join(benchmarks.polling_section(self.path))
        self.assertTrue(md.startswith("## The GPSPM server's polling modes (ours)"))
        self.assertIn("| 200 IOPS | sleep (0) |", md)

    def test_no_runs_is_an_error(self):
        path = tsv([])
        try:
            with self.assertRaises(SystemExit):
                polling.read_runs(path)
        finally:
            os.unlink(path)


class PollingRow(BenchRun, unittest.TestCase):
    """A run's line of polling.tsv, as bench_polling.sh adds it in the VM."""
    ROW, STEM = "polling-row", "r1-rate0-1"

    def test_figures_of_a_run(self):
        self.assertEqual(polling.run_row(WRITE, SERVER_JOBS + SERVER_JOBS, "2", "200", "adaptive"),
                         ["2", "200", "adaptive", "7012.3", "140.3", "900.1", "190.1"])

    def test_lines_appended_under_one_header(self):
        self.run_files(WRITE, SERVER_JOBS)
        open(self.tsv, "w").close()  # (as bench_lib.sh leaves it before the first run)
        for mode in ("1", "0"):
            done = self.row("1", "0", mode)
            self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(self.tsv_text(), HEAD + "1\t0\t1\t7012.3\t140.3\t900.1\t95.0\n"
                         "1\t0\t0\t7012.3\t140.3\t900.1\t95.0\n")
        self.assertEqual(len(polling.read_runs(self.tsv)), 2)

    def test_run_without_server_json_named(self):
        self.run_files(WRITE, None)
        done = self.row("1", "0", "1")
        self.assertEqual(done.returncode, 2)
        self.assertIn(f"matrix: error: run {self.stem}: no figures (FileNotFoundError", done.stderr)
        self.assertNotIn("Traceback", done.stderr)
        self.assertFalse(os.path.exists(self.tsv))

if __name__ == "__main__":
    unittest.main()
