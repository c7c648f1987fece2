#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""tests/matrix/test_runargs.py -- run_matrix.sh's command line in Python (run by
tests/matrix/test_matrix.sh; test_bad_options.sh feeds every option a bad value): the
settings as shell assignments bash reads back word for word, the preset's defaults
and what overrides them, --clients from a list or a host file, the arguments --resume
runs again, options.json, the dry run's table as column -t lays it out."""
import contextlib
import io
import json
import os
import subprocess
import sys
import tempfile
import unittest
import unittest.mock

from benchrun import MATRIX

sys.path.insert(0, os.path.dirname(MATRIX))
from rpmamatrix import dryrun, runargs, runcli  # noqa: E402

ROOT = os.path.realpath(os.path.join(os.path.dirname(MATRIX), "..", ".."))


def settings(*argv):
    return runargs.parse(list(argv) + ["--dry-run"], ROOT)


class Settings(unittest.TestCase):
    def test_preset_defaults_and_overrides(self):
        s = settings("--quick", "--repeats", "4")
        self.assertEqual((s.repeats, s.runtime, s.ramp, s.settle, s.max_repeats),
                         ("4", "1", "0", "0", "12"))
        s = settings("--full", "--settle", "0", "--max-repeats", "5")
        self.assertEqual((s.repeats, s.runtime, s.settle, s.max_repeats), ("3", "10", "0", "5"))

    def test_plan_args_in_order_as_the_plan_names_them(self):
        s = settings("--rw", "write", "--impl", "ours,peer", "--mix", "--qd", "1,8", "--mem", "malloc")
        self.assertEqual(s.plan_args, ["--rws", "write", "--impls", "ours,peer", "--mix", "--qd", "1,8"])
        self.assertEqual(s.impls, "ours,peer")
        self.assertEqual({pt["impl"] for pt in s.plan}, {"ours", "peer"})

    def test_help_stops_reading(self):
        self.assertEqual(runargs.parse(["--help", "--bogus"], ROOT).help, "1")

    def test_first_bad_option_named(self):
        err = io.StringIO()
        with self.assertRaises(SystemExit) as e, contextlib.redirect_stderr(err):
            runargs.parse(["--bogus", "--help"], ROOT)
        self.assertEqual(e.exception.code, 2)
        self.assertIn("unknown option '--bogus'", err.getvalue())

    def test_clients_list_and_host_file(self):
        s = settings("--server", "u@srv", "--clients", "a,b")
        self.assertEqual((s.client_hosts, s.costs, s.plan_args[-2:]), (["a", "b"], "0", ["--hosts", "2"]))
        self.assertEqual(s.server_ip, "u@srv")  # (ssh's name, the default address)
        with tempfile.NamedTemporaryFile("w", suffix=".hosts") as f:
            f.write("# the clients\nnode1  # first\n\n node2\n")
            f.flush()
            self.assertEqual(settings("--server", "s", "--clients", "@" + f.name).client_hosts,
                             ["node1", "node2"])

    def test_native_takes_kernel_6_12(self):
        s = settings("--native")
        self.assertEqual((s.vm_kernel, s.engine_dir, s.plan_args), ("6.12", "build/native", ["--native"]))

    def test_where(self):
        self.assertEqual(settings("--server", "h").where, "ssh")
        self.assertEqual(settings("--server-ip", "10.0.0.1").where, "local")


class Shell(unittest.TestCase):
    def test_assignments_read_back_word_for_word(self):
        """Values with spaces, quotes and $ stay one word each when bash evaluates them."""
        out = "/tmp/a b'$(x)"
        s = runargs.parse(["--server", "s", "--clients", "h1,h2", "--out", out, "--dry-run"], ROOT)
        script = runcli.shell_assignments(s, "run_matrix.sh", ["--out", out])
        shown = subprocess.run(
            ["bash", "-c", script + '\nprintf "%s\\n" "$OUT" "${CLIENT_HOSTS[@]}" "${PLAN_ARGS[@]}"'
             ' "$SSH_HOST" "$(jq -c .args <<<"$OPTIONS_JSON")"'],
            capture_output=True, text=True, check=True).stdout.splitlines()
        self.assertEqual(shown, [out, "h1", "h2", "--hosts", "2", "s", json.dumps(["--out", out], separators=(",", ":"))])

    def test_user_args_without_what_the_runner_adds(self):
        self.assertEqual(runargs.user_args(["--quick", "--out", "a", "--in-vm", "--out", "/st"]),
                         ["--quick", "--out", "a"])
        self.assertEqual(runargs.user_args(["--qd", "1", "--resumed", "--out", "/b"]), ["--qd", "1"])
        # the VM's device DAX the runner asks for inside is not the user's (2026-11-28: the
        # main job's options.json said "run_matrix.sh --out build/matrix/sample --pmem")
        self.assertEqual(runargs.user_args(["--out", "a", "--in-vm", "--pmem", "--out", "/st"]),
                         ["--out", "a"])
        self.assertEqual(runargs.user_args(["--pmem", "--in-vm", "--pmem", "--out", "/st"]), ["--pmem"])
        # a resumed run in the VM: the stored arguments only
        self.assertEqual(runargs.user_args(["--quick", "--resumed", "--out", "/b", "--in-vm",
                                           "--pmem", "--out", "/st"]), ["--quick"])

    def test_options_json(self):
        s = settings("--quick", "--server", "h", "--clients", "c1")
        doc = json.loads(runcli.options_json(s, "run_matrix.sh", ["--quick", "--in-vm", "--out", "/x"]))
        self.assertEqual(list(doc)[:3], ["preset", "repeats", "settle_pct"])
        self.assertEqual((doc["server_host"], doc["server_ip"], doc["client_hosts"], doc["costs"]),
                         ("h", "h", "c1", "0"))
        self.assertEqual(doc["command"], "run_matrix.sh --quick")
        self.assertEqual(doc["args"], ["--quick"])


class Memory(unittest.TestCase):
    def test_the_vms_device_dax_unless_told(self):
        # (as on a host without an RDMA device, whatever this one has)
        with unittest.mock.patch.object(runargs, "has_rdma_device", lambda: False):
            s = settings("--quick")
        self.assertEqual((s.server_mem, s.vm_pmem), ("/dev/dax0.0", "1"))
        s = settings("--quick", "--mem", "malloc")
        self.assertEqual((s.server_mem, s.vm_pmem), ("malloc", "0"))
        s = settings("--quick", "--server", "h")
        self.assertEqual((s.server_mem, s.vm_pmem), ("malloc", "0"))
        with unittest.mock.patch.object(runargs, "has_rdma_device", lambda: True):
            s = settings("--quick")
        self.assertEqual((s.server_mem, s.vm_pmem), ("malloc", "0"))

    def test_cxl_is_the_vms_cxl_device_dax(self):
        with unittest.mock.patch.object(runargs, "has_rdma_device", lambda: False):
            s = settings("--quick", "--cxl")
            self.assertEqual((s.server_mem, s.vm_pmem, s.vm_cxl), ("/dev/dax1.0", "1", "1"))
            self.assertIn("CXL", runargs.mem_words(s))
            # (in the VM, where the runner adds --pmem after the user's --cxl)
            with unittest.mock.patch.dict(os.environ, {"RPMA_TEST_ADDR": "192.168.77.1"}):
                s = settings("--quick", "--cxl", "--in-vm", "--pmem")
            self.assertEqual(s.server_mem, "/dev/dax1.0")
            for other in (("--mem", "malloc"), ("--server", "h"), ("--native",),
                          ("--vm-kernel", "6.12")):
                with self.assertRaises(SystemExit), contextlib.redirect_stderr(io.StringIO()):
                    settings("--quick", "--cxl", *other)
        with unittest.mock.patch.object(runargs, "has_rdma_device", lambda: True):
            with self.assertRaises(SystemExit), contextlib.redirect_stderr(io.StringIO()):
                settings("--quick", "--cxl")

    def test_the_peers_apm_refused_on_pmem_without_direct_write(self):
        with self.assertRaises(SystemExit):
            settings("--quick", "--impl", "ours,peer", "--pmem")
        s = settings("--quick", "--impl", "ours,peer", "--pmem", "--direct-write")
        self.assertEqual(s.server_mem, "/dev/dax0.0")
        s = settings("--quick", "--impl", "ours,peer", "--pmem", "--methods", "gpspm-busy")
        self.assertEqual({pt["method"] for pt in s.plan}, {"gpspm-busy"})


class DryRun(unittest.TestCase):
    def test_table_as_column_lays_it_out(self):
        rows = [["id", "method", "x"], ["p001", "gpspm-busy", "0"], ["p002", "apm", "10"]]
        text = "\n".join("\t".join(r) for r in rows) + "\n"
        column = subprocess.run(["column", "-t", "-s", "\t"], input=text, capture_output=True,
                                text=True, check=True).stdout
        self.assertEqual(dryrun.table(rows) + "\n", column)


if __name__ == "__main__":
    unittest.main()
