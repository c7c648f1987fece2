#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""tests/matrix/test_clientsbench.py -- the clients-bench subcommand (run by
tests/matrix/test_matrix.sh): scripts/bench_clients.sh's runs as medians per client count
and server, ours against the peer's CPU per I/O, each server's growth from the fewest
clients to the most; the section make bench appends; a table that is not the script's."""
import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "scripts", "matrix"))
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


if __name__ == "__main__":
    unittest.main()
