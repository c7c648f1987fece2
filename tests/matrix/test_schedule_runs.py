#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""tests/matrix/test_schedule_runs.py -- the schedule subcommand (run by
tests/matrix/test_matrix.sh; test_schedule.sh and test_resume.sh drive it through
run_matrix.sh with fake runs): the runs asked for, in order, each on its port, with
its cost and instructions runs and their I/O counts, perftest's tool for raw points;
resumed, the runs kept are not asked for again but keep their ports; Ctrl-C is the
runner's, and the runner gone, the schedule ends without a status."""
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import unittest
from types import SimpleNamespace

from benchrun import MATRIX

sys.path.insert(0, os.path.dirname(MATRIX))
from rpmamatrix import schedule  # noqa: E402
from rpmamatrix.common import PLAN_COLUMNS  # noqa: E402

# apm at depth 1 (sync) and 8, perftest at depth 1; numjobs 2 at depth 8: two ports a run
PLAN = [["p001", "ours", "apm", "lat", "write", "4096", "1", "1", "1", "1", "0"],
        ["p002", "ours", "apm", "qd", "write", "65536", "8", "0", "2", "1", "0"],
        ["p003", "ours", "raw", "lat", "write", "4096", "1", "1", "1", "1", "0"]]
FIO = {"jobs": [{"write": {"total_ios": 10, "iops": 1000.0, "bw_bytes": 1, "lat_ns": {"mean": 1},
                           "clat_ns": {"mean": 1}}, "usr_cpu": 1, "sys_cpu": 1, "job_runtime": 1}]}


def options(**changes):
    o = dict(repeats=2, max_repeats=6, settle=0, margin=5.0, port_base=7400, costs=1,
             instructions="sync", resume=0, clients=0)
    return SimpleNamespace(**dict(o, **changes))


class Runs(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name
        os.mkdir(os.path.join(self.dir, "runs"))
        with open(os.path.join(self.dir, "plan.tsv"), "w") as f:
            f.write("\n".join("\t".join(r) for r in [PLAN_COLUMNS] + PLAN) + "\n")
        self.asked = []

    def tearDown(self):
        self.tmp.cleanup()

    def fake_run(self, fields):
        """Asked for run FIELDS: noted, and its result file written as a real run's."""
        self.asked.append(fields)
        stem = os.path.join(self.dir, "runs", fields[0])
        with open(stem + (".perftest.txt" if fields[2] == "raw" else ".json"), "w") as f:
            f.write(" 4096 1000 1.0 2.0\n" if fields[2] == "raw" else json.dumps(FIO))
        if fields[9] != "0":  # (a cost or instructions run's last file)
            with open(stem + ".packets", "w") as f:
                f.write("4100\n")
        return True

    def measure(self, **changes):
        sched = schedule.Schedule(self.dir, options(**changes), self.fake_run)
        sched.measure()
        return sched

    def test_order_ports_costs(self):
        sched = self.measure()
        got = [(f[0], f[8], f[9], f[11], f[13]) for f in self.asked]  # name, port, cost, ios, tool
        self.assertEqual(got, [
            ("p001-r1", "7401", "0", "0", "-"), ("p001-r2", "7402", "0", "0", "-"),
            ("p001-cost", "7403", "1", "2000", "-"), ("p001-instr", "7404", "2", "500", "-"),
            ("p002-r1", "7406", "0", "0", "-"), ("p002-r2", "7408", "0", "0", "-"),
            ("p002-cost", "7410", "1", "200", "-"),  # (64 KiB: 8 MiB is 128 I/Os, 200 the least)
            ("p003-r1", "7411", "0", "0", "ib_write_lat"), ("p003-r2", "7412", "0", "0", "ib_write_lat")])
        self.assertEqual((sched.done, sched.planned, sched.failed), (6, 6, 0))

    def test_resumed_runs_kept_keep_their_ports(self):
        self.measure()
        first = self.asked
        os.remove(os.path.join(self.dir, "runs", "p002-r1.json"))
        with open(os.path.join(self.dir, "runs", "p001-r2.failed"), "w") as f:
            f.write("interrupted\n")
        self.asked = []
        sched = self.measure(resume=1)
        self.assertEqual([f for f in first if f[0] in ("p001-r2", "p002-r1")], self.asked)
        self.assertEqual((sched.done, sched.kept_runs), (6, 4))

    def test_no_costs_no_instructions(self):
        self.measure(costs=0, instructions="0")
        self.assertEqual([f[0] for f in self.asked if f[9] != "0"], [])

    def test_ctrl_c_then_runner_gone_no_status(self):
        """Ctrl-C (SIGINT to the whole process group) is the runner's: the schedule lives
        on; the runner's end (its pipe closed) ends it: no status, no traceback."""
        sched = subprocess.Popen(
            [sys.executable, MATRIX, "schedule", self.dir, "run_matrix.sh", "--repeats", "2",
             "--max-repeats", "6", "--settle", "0", "--margin", "5", "--port-base", "7400",
             "--costs", "1", "--instructions", "0", "--resume", "0", "--clients", "0"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            start_new_session=True, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        self.assertEqual(sched.stdout.readline().split()[:1], ["p001-r1"])
        os.killpg(sched.pid, signal.SIGINT)
        time.sleep(0.3)
        self.assertIsNone(sched.poll())
        sched.stdin.close()
        self.assertEqual(sched.wait(timeout=10), 0)
        self.assertNotIn("Traceback", sched.stderr.read())
        self.assertFalse(os.path.exists(os.path.join(self.dir, "status")))


if __name__ == "__main__":
    unittest.main()
