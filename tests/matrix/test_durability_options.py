#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""tests/matrix/test_durability_options.py -- scripts/run_durability.sh's options and
rounds (rpmamatrix/durability_options.py, durability_plan.py; run by
tests/matrix/test_matrix.sh): lists as the runner always split them, the rounds'
shapes, each round's own seed and pattern, options.json as the report reads it, and
where a problem is reported (before the hosts' check or after it)."""
import contextlib
import io
import json
import os
import sys
import tempfile
import unittest
import unittest.mock

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "scripts", "matrix"))
from rpmamatrix import durability_options as opts  # noqa: E402
from rpmamatrix import durability_plan as plan  # noqa: E402

OPTIONS = {"methods": "apm,gpspm", "rounds": "4", "bs": "4k,64k", "iodepth": "1,8", "batch": "4",
           "write_time": "10", "rate": "auto", "server_size": "16m"}


def script(*args):
    return opts.runner_script(list(args), "run_durability.sh", "/r")


class Lists(unittest.TestCase):
    def test_split_as_the_shell_splits(self):
        self.assertEqual(opts.items("a,"), ["a"])
        self.assertEqual(opts.items(","), [""])
        self.assertEqual(opts.items("a,,b"), ["a", "", "b"])

    def test_a_reboot_or_warm_reset_is_no_power_cut(self):
        from rpmamatrix.durability_plan import warm_cut
        for cold in ("ipmitool -I lanplus -H bmc -U admin -E chassis power cycle",
                     "ipmitool -H bmc chassis power off", "/r/scripts/softroce-vm.d/power.sh cut node1",
                     "snmpset -v2c pdu PowerNet-MIB::sPDUOutletCtl.3 i 2", "true"):
            self.assertEqual(warm_cut(cold), "", cold)
        for warm, words in (("ipmitool -H bmc chassis power reset", "power reset"),
                            ("ssh h sudo reboot", "reboot"), ("ssh h systemctl kexec", "kexec, systemctl"),
                            ("ssh h 'echo b > /proc/sysrq-trigger'", "sysrq"),
                            ("ipmitool chassis Power Soft", "power soft")):
            self.assertEqual(warm_cut(warm), words, warm)
        s = opts.parse(["--power-cut", "ssh h reboot", "--direct-write"], "/r")
        note = "".join(opts.notes(s, "run"))
        self.assertIn("run: warning: the power cut", note)
        self.assertIn("reads as a reboot or a warm reset (reboot), not a loss of power", note)

    def test_methods_in_the_job_files_order(self):
        # the judge finds job i's state and log by fio's number of the job
        self.assertEqual(opts.in_job_order("gpspm,apm"), ["apm", "gpspm"])
        self.assertEqual(opts.in_job_order("apm-native,gpspm,apm"), ["apm", "gpspm", "apm-native"])

    def test_an_empty_item_is_refused(self):
        with self.assertRaisesRegex(opts.UsageError, "--methods: '' is none of"):
            script("--methods", "apm,,gpspm")


def row_of(folder):
    """shape.tsv's row"""
    with open(os.path.join(folder, "shape.tsv")) as f:
        return f.read().rstrip("\n").split("\t")


class Rounds(unittest.TestCase):
    def test_bs_then_iodepth_cycled_batch_at_most_the_depth(self):
        shapes = [plan.round_shape(OPTIONS, r) for r in range(1, 6)]
        self.assertEqual([(s["R_BS"], s["R_QD"], s["R_BATCH"]) for s in shapes],
                         [("4k", "1", "1"), ("64k", "1", "1"), ("4k", "8", "4"), ("64k", "8", "4"),
                          ("4k", "1", "1")])

    def test_the_rate_writes_a_quarter_of_the_region_by_the_cut(self):
        s = plan.round_shape(OPTIONS, 1)
        self.assertEqual((s["R_RATE"], s["covered"]), ("102", 24))
        s = plan.round_shape(dict(OPTIONS, server_size="4m", bs="1m"), 1)
        self.assertEqual((s["R_RATE"], s["covered"]), ("1", 250))
        self.assertEqual(plan.round_shape(dict(OPTIONS, rate="5000"), 2)["R_RATE"], "5000")

    def test_each_round_its_own_seed_and_pattern(self):
        d = tempfile.mkdtemp()
        with open(os.path.join(d, "options.json"), "w") as f:
            json.dump(OPTIONS, f)
        seen = set()
        for r in (1, 2):
            args = type("A", (), {"options": os.path.join(d, "options.json"), "round": r, "dir": d})
            with contextlib.redirect_stdout(io.StringIO()) as out:
                plan.cmd_durability_round(args)
            self.assertIn(f"SEED={row_of(d)[5]}", out.getvalue())
            row = row_of(d)
            shape = plan.round_shape(OPTIONS, r)
            self.assertEqual(row[:5], [str(r), shape["R_BS"], "1", "1", shape["R_RATE"]])
            self.assertLess(int(row[5]), 1 << 63)
            self.assertRegex(row[6], "^0x[0-9a-f]{32}$")
            seen.add((row[5], row[6]))
        self.assertEqual(len(seen), 2)


class Settings(unittest.TestCase):
    def test_options_json_has_what_the_report_reads(self):
        s = opts.parse(["--server", "h", "--power-cut", "true", "--mem", "/dev/dax0.0"], "/r")
        opts.complete(s)
        doc = opts.recorded(s, "run_durability.sh", ["--server", "h"])
        with open(os.path.join(HERE, "fixtures", "durability", "options.json")) as f:
            self.assertEqual(list(doc), list(json.load(f)))
        self.assertEqual((doc["rate"], doc["server_size"], doc["direct_write_to_pmem"]), ("auto", "1g", "0"))
        self.assertEqual(doc["command"], "run_durability.sh --server h")
        self.assertEqual(doc["max_quiet"], "1000")

    def test_max_quiet_is_recorded_and_a_positive_number_of_ms(self):
        s = opts.parse(["--max-quiet", "250"], "/r")
        self.assertEqual(opts.recorded(s, "run_durability.sh", [])["max_quiet"], "250")
        for bad in ("0", "1s", "-5"):
            with self.assertRaisesRegex(opts.UsageError, f"--max-quiet: '{bad}' is not a positive whole number"):
                script("--max-quiet", bad)

    def test_in_the_vm_16m_a_method_and_direct_write(self):
        s = opts.parse([], "/r")
        opts.complete(s)
        self.assertEqual((s["SERVER_SIZE"], s["DIRECT_WRITE"]), ("16m", "1"))

    def test_a_value_problem_before_the_hosts_check(self):
        with self.assertRaisesRegex(opts.UsageError, "--rounds: '0' is not a positive whole number"):
            script("--rounds", "0", "--server", "a b")

    def test_a_bad_host_before_the_server_problems(self):
        with self.assertRaisesRegex(opts.UsageError, "--server: 'a b' is not a host name"):
            script("--server", "a b")
        with self.assertRaisesRegex(opts.UsageError, "--server: '-oProxyCommand=x' is not a host name"):
            script("--server", "-oProxyCommand=x")
        with self.assertRaisesRegex(opts.UsageError, "--server-ip: 'x y' is not an address or host name"):
            script("--server-ip", "x y")

    def test_a_server_problem_after_the_hosts_check(self):
        out = script("--server", "h")
        self.assertEqual(out[1:], ["die '--server needs --power-cut CMD: how to cut h'\"'\"'s power'"])

    def test_the_command_as_given_not_the_vms_run(self):
        args = ["--rounds", "2", "--in-vm", "--out", "/staging"]
        self.assertEqual(opts.recorded(opts.parse(args, "/r"), "run_durability.sh", args)["command"],
                         "run_durability.sh --rounds 2")

    def test_a_region_smaller_than_a_block_refused(self):
        self.assertIn("die '--mem-size: 1k holds no block of --bs 4k'", script("--mem-size", "1k", "--dry-run"))

    def test_a_dram_canary_is_a_device_and_a_block_offset(self):
        s = opts.parse(["--dram-canary", "/dev/mem@0x8000000"], "/r")
        opts.check(s)
        self.assertEqual((s["CANARY_PATH"], s["CANARY_BLOCK"]), ("/dev/mem", str(0x8000000 // 4096)))
        s = opts.parse(["--dram-canary", "/dev/pmem1"], "/r")
        opts.check(s)
        self.assertEqual((s["CANARY_PATH"], s["CANARY_BLOCK"]), ("/dev/pmem1", "0"))
        for bad, why in (("pmem1", "not a device's absolute path"), ("/dev/mem@0x100", "not a multiple of 4096"),
                         ("/dev/mem@x", "not a device's absolute path"), ("/dev/a b", "not a device's absolute path")):
            with self.assertRaisesRegex(opts.UsageError, why):
                script("--dram-canary", bad)

    def test_without_a_dram_canary_a_note_says_the_loss_of_power_is_not_shown(self):
        s = opts.parse(["--server", "h", "--power-cut", "cut", "--mem", "/dev/dax0.0"], "/r")
        self.assertTrue(any("without --dram-canary" in n for n in opts.notes(s, "p")))
        s = opts.parse(["--server", "h", "--power-cut", "cut", "--mem", "/dev/dax0.0", "--dram-canary", "/dev/pmem1"],
                       "/r")
        self.assertFalse(any("without --dram-canary" in n for n in opts.notes(s, "p")))

    def test_dev_mem_on_hardware_gets_a_note_about_the_caches(self):
        args = ["--server", "h", "--power-cut", "cut", "--mem", "/dev/dax0.0", "--dram-canary", "/dev/mem@4096"]
        s = opts.parse(args, "/r")
        opts.check(s)
        self.assertTrue(any("writes its token through the CPU" in n for n in opts.notes(s, "p")))
        s = opts.parse(args + ["--in-vm"], "/r")
        opts.check(s)
        self.assertFalse(any("writes its token through the CPU" in n for n in opts.notes(s, "p")))

    def test_in_the_vm_the_canary_is_node1_s_reserved_ram(self):
        s = opts.parse(["--in-vm"], "/r")
        os.environ["SOFTROCE_VM_DRAM_CANARY"] = "/dev/mem@0x8000000"
        try:
            with unittest.mock.patch("socket.gethostbyname", return_value="192.168.77.2"):
                opts.vm_server(s, "/r")
        finally:
            del os.environ["SOFTROCE_VM_DRAM_CANARY"]
        self.assertEqual((s["DRAM_CANARY"], s["CANARY_PATH"], s["CANARY_BLOCK"]),
                         ("/dev/mem@0x8000000", "/dev/mem", str(0x8000000 // 4096)))
        # (and its control: QEMU's warm reset of node1)
        self.assertEqual(s["CANARY_RESET"], "/r/scripts/softroce-vm.d/power.sh reset node1")

    def test_a_canary_reset_needs_a_canary(self):
        hw = ["--server", "h", "--power-cut", "cut", "--mem", "/dev/dax0.0"]
        self.assertEqual(script(*hw, "--canary-reset", "ssh h reboot")[1:],
                         ["die '--canary-reset needs --dram-canary: the reset shows that the canary'\"'\"'s "
                          "token survives one'"])
        s = opts.parse(["--in-vm", "--canary-reset", "true"], "/r")
        with unittest.mock.patch("socket.gethostbyname", return_value="192.168.77.2"), \
                unittest.mock.patch.dict(os.environ, {"SOFTROCE_VM_DRAM_CANARY": ""}), \
                self.assertRaisesRegex(opts.UsageError, "--canary-reset needs --dram-canary"):
            opts.vm_server(s, "/r")

    def test_a_canary_without_its_control_gets_a_note(self):
        hw = ["--server", "h", "--power-cut", "cut", "--mem", "/dev/dax0.0", "--dram-canary", "/dev/pmem1"]
        s = opts.parse(hw, "/r")
        self.assertTrue(any("--dram-canary without --canary-reset" in n for n in opts.notes(s, "p")))
        s = opts.parse(hw + ["--canary-reset", "ssh h systemctl reboot --force"], "/r")
        self.assertFalse(any("without --canary-reset" in n for n in opts.notes(s, "p")))
        self.assertEqual(opts.recorded(s, "p", hw)["canary_reset"], "ssh h systemctl reboot --force")

    def test_the_dry_run_names_the_canary_s_control(self):
        args = ["--server", "h", "--power-cut", "cut", "--mem", "/dev/dax0.0", "--dram-canary", "/dev/pmem1",
                "--canary-reset", "ssh h systemctl reboot --force", "--dry-run"]
        self.assertIn("control: ssh h systemctl reboot --force", script(*args)[1])

    def test_help_and_dry_run_print_and_exit(self):
        self.assertIn("--power-cut CMD", script("--help")[0])
        self.assertEqual(script("--rounds", "2", "--dry-run")[-1], "exit 0")


if __name__ == "__main__":
    unittest.main()
