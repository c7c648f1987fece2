#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""tests/matrix/test_findings.py -- the report's findings (run by tests/matrix/test_matrix.sh)
on rows made here: which point stands for each regime, the cost sentences' figures, the
best method (ahead only when its runs clear the runner-up's, else level, naming the one
cheapest for the server), the settings' sentences, and what is flagged suspicious."""
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "scripts", "matrix"))
from rpmamatrix.aggregate import add_ratios  # noqa: E402
from rpmamatrix.findings import findings, pick_regimes  # noqa: E402


def row(method, rw, bs, qd, sync, iops, spread=0.02, lat=None, cpu=None, impl="ours", **more):
    return more | {"impl": impl, "method": method, "rw": rw, "bs": str(bs), "iodepth": str(qd),
            "sync": str(sync), "numjobs": "1", "hosts": "1", "load": "0", "runs": 3,
            "iops_median": iops, "iops_min": iops * (1 - spread), "iops_max": iops * (1 + spread),
            "lat_mean_us_median": lat if lat is not None else 1e6 / iops * qd,
            "server_cpu_pct_median": cpu}


def plan_rows(apm_sync=750.0, busy_sync=600.0, spread=0.02):
    rows = [row("noflush", "write", 4096, 1, 1, 1000.0), row("apm", "write", 4096, 1, 1, apm_sync, spread),
            row("gpspm-busy", "write", 4096, 1, 1, busy_sync, spread, cpu=95.0),
            row("gpspm-sleep", "write", 4096, 1, 1, 500.0, cpu=20.0),
            row("raw", "write", 4096, 1, 1, 2000.0), row("apm", "write", 256, 1, 1, 900.0),
            row("noflush", "write", 4096, 16, 0, 5000.0), row("apm", "write", 4096, 16, 0, 4000.0),
            row("apm", "write", 4096, 4, 0, 3000.0), row("noflush", "write", 65536, 16, 0, 800.0),
            row("apm", "write", 65536, 16, 0, 700.0), row("gpspm-sleep", "write", 65536, 16, 0, 790.0, cpu=7.0),
            row("apm", "read", 4096, 1, 1, 1500.0), row("raw", "read", 4096, 1, 1, 1800.0),
            row("apm", "write", 4096, 1, 1, 2000.0, impl="peer")]
    add_ratios(rows)
    return rows


def text_with(extra):
    """The findings of plan_rows() and the EXTRA rows."""
    rows = plan_rows() + extra
    add_ratios(rows)
    return text(rows)[0]


def text(rows, env=None, options=None):
    md, chart = findings(rows, env or {}, options or {})
    return "\n".join(md), chart


class Regimes(unittest.TestCase):
    def test_points_standing_for_each_regime(self):
        got = [(g.name, g.bs, g.iodepth, g.sync) for g in pick_regimes(plan_rows())]
        self.assertEqual(got, [("small sync writes", "4096", "1", "1"), ("batched writes", "4096", "16", "0"),
                               ("large blocks", "65536", "16", "0"), ("reads", "4096", "1", "1")])

    def test_smallest_block_where_4k_was_not_measured(self):
        rows = [r for r in plan_rows() if not (r["bs"] == "4096" and r["sync"] == "1")]
        self.assertEqual(pick_regimes(rows)[0][:4], ("small sync writes", "write", "256", "1"))


class Sentences(unittest.TestCase):
    def test_costs_against_no_flush(self):
        md, chart = text(plan_rows())
        self.assertIn("**small sync writes (4 KiB, iodepth 1, sync)** against no-flush (1000 IOPS, 1000 us): "
                      "APM -25% IOPS, +333 us; GPSPM busy server -40% IOPS, +667 us, server CPU 95%; "
                      "GPSPM sleeping server -50% IOPS, +1000 us, server CPU 20%.", md)
        self.assertEqual(round(chart["small sync writes\\n4 KiB, iodepth 1"]["apm"]), -25)
        self.assertEqual(set(chart), {"small sync writes\\n4 KiB, iodepth 1", "batched writes\\n4 KiB, iodepth 16",
                                      "large blocks\\n64 KiB, iodepth 16"})  # reads: no baseline

    def test_best_when_its_runs_clear_the_runner_up(self):
        md, _ = text(plan_rows())
        self.assertIn("Best: APM, 25% more IOPS than GPSPM busy server.", md)

    def test_one_run_only_highest(self):
        rows = plan_rows()
        for r in rows:
            r["runs"] = 1
        md, _ = text(rows)
        self.assertIn("Highest: APM, 25% more IOPS than GPSPM busy server (one run a point: no spread "
                      "to judge it by).", md)
        self.assertNotIn("Best:", md)

    def test_level_names_the_cheapest_server(self):
        md, _ = text(plan_rows(apm_sync=620.0, busy_sync=640.0, spread=0.10))
        self.assertIn("Level within their runs' spread: GPSPM busy server, APM; of these, APM costs the "
                      "server least (its CPU idle).", md)

    def test_reads_against_the_raw_verbs(self):
        md, _ = text(plan_rows())
        self.assertIn("**reads (4 KiB, iodepth 1, sync)** against raw verbs (1800 IOPS, 556 us): APM -17% IOPS", md)

    def test_settings(self):
        md, _ = text(plan_rows(), {"in Soft-RoCE VM": "yes, accelerator tcg"},
                     {"direct_write_to_pmem": "1", "server_mem": "/dev/dax0.0"})
        self.assertIn("`direct_write_to_pmem=1`: APM flushed with the persistent type", md)
        self.assertIn("Soft-RoCE in a VM (accelerator tcg)", md)
        self.assertIn("Not measured: APM with the RNIC's own FLUSH", md)
        self.assertNotIn("DRAM", md)
        self.assertIn("The server's memory was device DAX (`/dev/dax0.0`): GPSPM's server flushed", md)
        self.assertIn("the VM's emulated NVDIMM", md)
        cxl = "device-DAX dax1.0: NUMA node 1, 124 MiB, on CXL memory, region1 of ndbus1 (provider CXL)"
        md, _ = text(plan_rows(), {"in Soft-RoCE VM": "yes, accelerator tcg", "server memory placement": cxl},
                     {"server_mem": "/dev/dax1.0"})
        self.assertIn(f"It is CXL memory: {cxl}.", md)
        self.assertIn("the VM's emulated persistent CXL memory (a type-3 device)", md)
        self.assertNotIn("NVDIMM", md)
        rows = plan_rows() + [row("apm-native", "write", 4096, 1, 1, 800.0)]
        add_ratios(rows)
        md, _ = text(rows, {}, {"server_mem": "malloc"})
        self.assertIn("`direct_write_to_pmem=0`: APM's flushes were of the visibility type", md)
        self.assertIn("The server's memory was DRAM", md)
        self.assertNotIn("Not measured", md)


class Load(unittest.TestCase):
    def test_each_method_against_its_idle_point(self):
        md = text_with([row(m, "write", 4096, 1, 1, iops) | {"load": load}
                        for load, apm, busy in (("50", 700.0, 300.0), ("100", 650.0, 150.0))
                        for m, iops in (("apm", apm), ("gpspm-busy", busy))])
        self.assertIn("- **4 KiB sync writes under server CPU load** (IOPS against the same point on an "
                      "idle server, by the share of the server host's CPUs kept busy): APM -7% at 50%, "
                      "-13% at 100%; GPSPM busy server -50% at 50%, -75% at 100%.", md)
        self.assertNotIn("batched 4 KiB writes under", md)
        # the regimes stay the idle server's
        self.assertIn("APM -25% IOPS, +333 us", md)


class Clients(unittest.TestCase):
    def test_server_cpu_per_io_as_the_clients_grow(self):
        several = [row(m, "write", 4096, 16, 0, 3000.0) | {"numjobs": str(nj), "workload": "jobs",
                                                           "server_cpu_us_per_io": cpu}
                   for m, nj, cpu in (("gpspm-busy", 2, 160.0), ("gpspm-busy", 4, 155.0),
                                      ("gpspm-hub", 2, 90.0), ("gpspm-hub", 4, 40.0), ("apm", 2, 1.0))]
        md = text_with([row("gpspm-busy", "write", 4096, 16, 0, 3000.0, server_cpu_us_per_io=150.0)]
                       + several)
        # gpspm-hub's one client is gpspm-busy's; APM has no server work to name
        self.assertIn("- **Several clients at once** (4 KiB writes, the server's CPU per I/O in the "
                      "cost runs, by client jobs): GPSPM busy server 150 us at 1, 160 us at 2, 155 us "
                      "at 4; GPSPM one-thread server 150 us at 1, 90 us at 2, 40 us at 4.", md)
        # the single-client regimes stay as they were
        self.assertIn("APM -25% IOPS, +333 us", md)

    def test_nothing_said_without_jobs_points(self):
        md, _ = text(plan_rows())
        self.assertNotIn("Several clients", md)


class Suspicious(unittest.TestCase):
    def test_nothing_suspicious_said_so(self):
        md, _ = text(plan_rows())
        self.assertIn("Nothing suspicious", md)

    def test_above_raw_above_noflush_and_spread_flagged(self):
        rows = plan_rows()
        rows += [row("noflush", "write", 256, 1, 1, 500.0), row("raw", "write", 256, 1, 1, 800.0),
                 row("gpspm-busy", "write", 4096, 4, 0, 900.0, spread=0.4)]
        add_ratios(rows)
        md, _ = text(rows)
        self.assertIn("Above the raw verbs' IOPS at the same point: APM write 256 B iodepth 1 sync (1.12x).", md)
        self.assertIn("Faster than no-flush, which does less: APM write 256 B iodepth 1 sync (+80%).", md)
        self.assertIn("The runs of 1 of 18 points spread over 30% of their median IOPS (max - min), widest: "
                      "GPSPM busy server write 4 KiB iodepth 4 (80%)", md)
        self.assertNotIn("Nothing suspicious", md)


if __name__ == "__main__":
    unittest.main(verbosity=1)
