#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""tests/matrix/test_clientsbench.py -- the clients-bench subcommand (run by
tests/matrix/test_matrix.sh): scripts/bench_clients.sh's runs as medians per client count
and server, ours against the peer's CPU per I/O, each server's growth from the fewest
clients to the most; the section make bench appends; a table that is not the script's;
and the clients-row subcommand: a run's line of clients.tsv from its fio JSON."""
import os
import sys
import tempfile
import unittest

from benchrun import MATRIX, BenchRun

sys.path.insert(0, os.path.dirname(MATRIX))
from rpmamatrix import benchmarks, clientsbench  # noqa: E402

HEAD = "\t".join(clientsbench.COLUMNS) + "\n"


def tsv(lines, head=HEAD):
    f = tempfile.NamedTemporaryFile("w", suffix=".tsv", delete=False)
    f.write(head + "".join("\t".join(map(str, ln)) + "\n" for ln in lines))
    f.close()
    return f.name


class ClientsBench(unittest.TestCase):
    def setUp(self):
        runs = []
        # (round, clients, server, jobs, iops, ios, cpu_s, cpu_us_per_io): the peer's CPU per
        # I/O grows with its jobs, ours busy falls (one spinning thread), ours sleeping stays
        for rnd, drift in ((1, 1.0), (2, 0.9), (3, 1.2)):
            for n in (1, 2, 4, 8):
                ios = 4000 * n
                runs += [(rnd, n, "hub-busy", 1, 5000 * drift, ios, drift, 200 / n * drift),
                         (rnd, n, "hub-sleep", 1, 4000 * drift, ios, 0.5 * drift, 50 * drift),
                         (rnd, n, "peer-busy", n, 3000 * drift, ios, n * drift, 300 * n * drift)]
        self.path = tsv(runs)

    def tearDown(self):
        os.unlink(self.path)

    def test_medians_ratio_and_growth(self):
        md = "\n".join(clientsbench.clients_md(clientsbench.read_runs(self.path)))
        # medians of the three rounds (drift 0.9, 1.0, 1.2: the 1.0 run's figures)
        self.assertIn("| 1 | 5000 | 200.0 | 4000 | 50.0 | 3000 | 300.0 | 0.67x |", md)
        self.assertIn("| 8 | 5000 | 25.0 | 4000 | 50.0 | 3000 | 2400.0 | 0.01x |", md)
        self.assertIn("Server CPU per I/O at 8 clients against 1: ours, 1 job, busy 0.12x; "
                      "ours, 1 job, sleeping 1.00x; fio 3.33, a job per client, busy 8.00x.", md)
        self.assertIn("Medians of 3 rounds a cell.", md)
        # the CPU seconds: the 1.0 round's (cpu_s = clients for the peer, 1 for ours)
        self.assertIn("| 8 | 1.00 | 0.50 | 8.00 |", md)

    def test_no_control_no_control_line(self):
        md = "\n".join(clientsbench.clients_md(clientsbench.read_runs(self.path)))
        self.assertNotIn("control", md)

    def test_control_build_beside_ours(self):
        # bench_clients.sh --control: another build's hub, busy and sleeping
        runs = [(1, n, s, 1, 5000, 4000 * n, 1.0, cpu) for n in (1, 8)
                for s, cpu in (("hub-busy", 100 / n), ("hub-sleep", 50),
                               ("hub-busy-control", 80 / n), ("hub-sleep-control", 100))]
        path = tsv(runs)
        try:
            md = "\n".join(clientsbench.clients_md(clientsbench.read_runs(path)))
            self.assertIn("control build, 1 job, busy: server CPU us/I/O", md)
            self.assertIn("Server CPU per I/O, ours over the control build, busy: "
                          "1: 1.25x, 8: 1.25x clients.", md)
            self.assertIn("Server CPU per I/O, ours over the control build, sleeping: "
                          "1: 0.50x, 8: 0.50x clients.", md)
        finally:
            os.unlink(path)

    def test_section_in_benchmarks(self):
        md = "\n".join(benchmarks.clients_section(self.path))
        self.assertTrue(md.startswith("## One GPSPM server, many clients"))
        self.assertIn("| 4 | 5000 | 50.0 |", md)

    def test_missing_server_is_a_dash(self):
        path = tsv([(1, 1, "hub-busy", 1, 5000, 4000, 0.8, 200)])
        try:
            md = "\n".join(clientsbench.clients_md(clientsbench.read_runs(path)))
            self.assertIn("| 1 | 5000 | 200.0 | - |", md)
            self.assertNotIn("against", md)  # one client count: no growth
        finally:
            os.unlink(path)

    def test_not_its_table_is_an_error(self):
        for path in (tsv([]), tsv([(1, 0, "1", 7000, 140, 900, 95)],
                                  head="round\trate\tmode\tiops\tlat_mean_us\tlat_p99_us\tserver_cpu_pct\n")):
            try:
                with self.assertRaises(SystemExit):
                    clientsbench.read_runs(path)
            finally:
                os.unlink(path)


class ClientsRow(BenchRun, unittest.TestCase):
    """A run's line of clients.tsv, as bench_clients.sh adds it in the VM."""
    ROW, STEM = "clients-row", "r1-c2-peer-busy"
    # the clients' writes (group-reported) and two server jobs: 60% and 30% of a CPU for
    # 2 s and 1 s, 1.5 CPU seconds
    WRITE = {"iops": 5000.04, "total_ios": 8000}
    JOBS = [{"usr_cpu": 50, "sys_cpu": 10, "job_runtime": 2000},
            {"usr_cpu": 20, "sys_cpu": 10, "job_runtime": 1000}]

    def test_cpu_time_over_the_jobs_runtime(self):
        self.assertAlmostEqual(clientsbench.cpu_seconds(self.JOBS), 1.5)
        self.assertEqual(clientsbench.run_row(self.WRITE, self.JOBS, "3", "2", "hub-busy"),
                         ["3", "2", "hub-busy", 2, "5000.0", 8000, "1.5000", "187.50"])

    def test_line_under_the_header_the_bench_reads(self):
        self.run_files(self.WRITE, self.JOBS)
        done = self.row("1", "2", "peer-busy")
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(self.tsv_text(), HEAD + "1\t2\tpeer-busy\t2\t5000.0\t8000\t1.5000\t187.50\n")
        md = "\n".join(clientsbench.clients_md(clientsbench.read_runs(self.tsv)))
        self.assertIn("| 2 | 5000 | 187.5 | - |", md)  # (only the servers it has)

    def test_no_io_is_an_error(self):
        self.run_files(dict(self.WRITE, total_ios=0), self.JOBS)
        done = self.row("1", "2", "peer-busy")
        self.assertEqual(done.returncode, 2)
        self.assertIn(f"matrix: error: run {self.stem}: no figures (ValueError: no I/O)", done.stderr)
        self.assertFalse(os.path.exists(self.tsv))

if __name__ == "__main__":
    unittest.main()
