# SPDX-License-Identifier: BSD-3-Clause
"""Unit tests of softroce-vm's one option parser (scripts/softroce-vm.d/softroce_vm/cli.py).

make test-vm-unit runs them (python3 -m unittest discover -s tests/vm).
"""

import os
import subprocess
import sys
import tempfile
import unittest

PARTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "softroce-vm.d")
sys.path.insert(0, PARTS)

from softroce_vm import cli, usage  # noqa: E402


class ParserCase(unittest.TestCase):
    """A project root with a subfolder as the caller's folder, a small environment."""

    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.root = os.path.realpath(tmp.name)
        os.mkdir(os.path.join(self.root, "sub"))
        self.settings = cli.Settings(root=self.root, cache="/c/cache", cwd=self.root + "/sub",
                                     environ={"HOME": "/h", "FOO": "it's $x"})

    def parse(self, *argv):
        return cli.parse(list(argv), self.settings)

    def fails(self, message, *argv):
        with self.assertRaises(cli.UsageError) as e:
            self.parse(*argv)
        self.assertEqual(str(e.exception), message)


class TestCommands(ParserCase):
    def test_no_command(self):
        with self.assertRaises(cli.NoCommand):
            self.parse()

    def test_unknown_command(self):
        self.fails("unknown command 'bogus' (see: scripts/softroce-vm --help)", "bogus")

    def test_help_topics(self):
        for argv, topic in ((["help"], ""), (["--help"], ""), (["-h", "run"], "run"),
                            (["help", "clean"], "clean"), (["help", "bogus"], "bogus")):
            got = self.parse(*argv)
            self.assertEqual(got, {"CMD": "help", "HELP": usage.text(topic, self.settings)}, argv)

    def test_command_help(self):
        for cmd in cli.COMMANDS:
            for flag in ("-h", "--help"):
                self.assertEqual(self.parse(cmd, flag)["HELP"], usage.text(cmd, self.settings))

    def test_help_names_this_machine(self):
        self.assertIn("Cache: /c/cache", self.parse("setup", "-h")["HELP"])
        self.assertIn(f"(default: the project root,\n                    {self.root})",
                      self.parse("run", "-h")["HELP"])
        self.assertIn("(192.168.77.1)", self.parse("run", "-h")["HELP"])
        self.assertIn("${TMPDIR:-/tmp}", self.parse("clean", "-h")["HELP"])

    def test_first_of_help_and_error_wins(self):
        self.assertEqual(self.parse("setup", "--help", "--bogus")["CMD"], "help")
        self.assertEqual(self.parse("setup", "--kernel", "5.10", "--help")["CMD"], "help")
        self.fails("setup: unknown argument '--bogus' (see: scripts/softroce-vm setup --help)",
                   "setup", "--bogus", "--help")

    def test_shared_settings(self):
        got = self.parse("status")
        self.assertEqual(got["CACHE"], "/c/cache")
        self.assertEqual(got["KERNELS"], ["6.1", "6.12"])
        self.assertEqual(got["DEFAULT_KERNEL"], "6.1")
        self.assertEqual((got["RXE_ADDR"], got["RXE_PREFIX"]), ("192.168.77.1", "24"))

    def test_status_takes_nothing(self):
        self.fails("status: unknown argument 'x' (see: scripts/softroce-vm status --help)", "status", "x")


class TestSetupClean(ParserCase):
    def test_setup_defaults(self):
        got = self.parse("setup")
        self.assertEqual((got["CMD"], got["OPT_KERNEL"], got["OPT_REFRESH"]), ("setup", "6.1", "0"))

    def test_setup_options(self):
        for argv in (["--kernel", "6.12"], ["--kernel=6.12"]):
            self.assertEqual(self.parse("setup", *argv, "--refresh")["OPT_KERNEL"], "6.12")
        self.assertEqual(self.parse("setup", "--refresh")["OPT_REFRESH"], "1")

    def test_setup_errors(self):
        self.fails("unknown kernel '5.10' (use one of: 6.1 6.12)", "setup", "--kernel", "5.10")
        self.fails("unknown kernel '' (use one of: 6.1 6.12)", "setup", "--kernel=")
        self.fails("setup: --kernel needs a value", "setup", "--kernel")
        self.fails("setup: unknown argument '--refresh=1' (see: scripts/softroce-vm setup --help)",
                   "setup", "--refresh=1")
        self.fails("setup: unknown argument '--' (see: scripts/softroce-vm setup --help)", "setup", "--")

    def test_clean_what(self):
        self.assertEqual(self.parse("clean")["OPT_WHAT"], "all")
        self.assertEqual(self.parse("clean", "--runs")["OPT_WHAT"], "runs")
        self.assertEqual(self.parse("clean", "--runs", "--all")["OPT_WHAT"], "all")
        got = self.parse("clean", "--kernel=6.12")
        self.assertEqual((got["OPT_WHAT"], got["OPT_KERNEL"]), ("kernel", "6.12"))

    def test_clean_kernel_checked_only_when_used(self):
        self.fails("unknown kernel '5.10' (use one of: 6.1 6.12)", "clean", "--kernel", "5.10")
        self.assertEqual(self.parse("clean", "--kernel", "5.10", "--runs")["OPT_WHAT"], "runs")
        self.fails("clean: --kernel needs a value", "clean", "--kernel")


class TestRun(ParserCase):
    def test_defaults(self):
        got = self.parse("run", "--", "true")
        want = {"OPT_KERNEL": "6.1", "OPT_CPUS": "2", "OPT_MEM": "2048", "OPT_TIMEOUT": "600",
                "OPT_PMEM": "0", "OPT_PMEM_MIB": "512", "OPT_KEEP": "0", "QUIET": "0",
                "OPT_LOG": "", "OPT_ENVS": [], "OPT_COMMAND": ["true"],
                "OPT_SHARE": self.root, "OPT_CWD": self.root + "/sub"}
        self.assertEqual({k: got[k] for k in want}, want)

    def test_every_option(self):
        got = self.parse("run", "--kernel", "6.12", "--cpus=4", "--mem", "512", "--timeout=0",
                         "--pmem", "--pmem-size", "0192", "--keep-logs", "-q", "--", "a b", "--cpus")
        self.assertEqual([got[k] for k in ("OPT_KERNEL", "OPT_CPUS", "OPT_MEM", "OPT_TIMEOUT",
                                           "OPT_PMEM", "OPT_PMEM_MIB", "OPT_KEEP", "QUIET")],
                         ["6.12", "4", "512", "0", "1", "192", "1", "1"])
        self.assertEqual(got["OPT_COMMAND"], ["a b", "--cpus"])

    def test_command_without_dashes(self):
        self.assertEqual(self.parse("run", "--quiet", "ls", "-l", "--help")["OPT_COMMAND"],
                         ["ls", "-l", "--help"])

    def test_no_command(self):
        message = "run: no COMMAND given (usage: scripts/softroce-vm run [OPTIONS] -- COMMAND...)"
        for argv in ([], ["--"], ["-q", "--pmem"]):
            self.fails(message, "run", *argv)

    def test_option_errors(self):
        self.fails("run: unknown option '--bogus' (see: scripts/softroce-vm run --help)",
                   "run", "--bogus", "--", "true")
        self.fails("run: unknown option '--pmem=1' (see: scripts/softroce-vm run --help)",
                   "run", "--pmem=1", "--", "true")
        self.fails("run: unknown option '-' (see: scripts/softroce-vm run --help)", "run", "-", "x")
        for opt in ("--kernel", "--cpus", "--mem", "--timeout", "--pmem-size", "--env", "--share", "--log"):
            self.fails(f"run: {opt} needs a value", "run", opt)

    def test_numbers(self):
        bad = {
            "--cpus": ("0", "x", "-1", "1234567890", "", "٣"),
            "--mem": ("255", "abc"),
            "--timeout": ("-1", "1.5"),
            "--pmem-size": ("64", "100", "160", "x"),
        }
        messages = {
            "--cpus": "--cpus: '{}' is not a positive number",
            "--mem": "--mem: '{}' is not a number of MiB >= 256",
            "--timeout": "--timeout: '{}' is not a number of seconds",
            "--pmem-size": "--pmem-size: '{}' is not a multiple of 64 MiB >= 128",
        }
        for opt, values in bad.items():
            for value in values:
                self.fails(messages[opt].format(value), "run", f"{opt}={value}", "--", "true")
        self.assertEqual(self.parse("run", "--cpus", "007", "--", "true")["OPT_CPUS"], "7")
        self.assertEqual(self.parse("run", "--mem", "256", "--", "true")["OPT_MEM"], "256")

    def test_nodes(self):
        got = self.parse("run", "--", "true")
        self.assertEqual((got["OPT_NODES"], got["OPT_CPUS"]), ("1", "2"))
        got = self.parse("run", "--nodes", "3", "--", "true")
        self.assertEqual((got["OPT_NODES"], got["OPT_CPUS"]), ("3", "1"))  # 1 vCPU each
        got = self.parse("run", "--nodes=02", "--cpus", "2", "--", "true")
        self.assertEqual((got["OPT_NODES"], got["OPT_CPUS"]), ("2", "2"))
        for bad in ("0", "5", "x", "", "-1"):
            self.fails(f"--nodes: '{bad}' is not a number of guests from 1 to 4",
                       "run", f"--nodes={bad}", "--", "true")
        self.fails("run: --nodes needs a value", "run", "--nodes")

    def test_transport(self):
        self.assertEqual(self.parse("run", "--", "true")["OPT_TRANSPORT"], "rxe")
        self.assertEqual(self.parse("setup")["OPT_TRANSPORT"], "rxe")
        for given, want in (("iwarp", "iwarp"), ("rxe", "rxe"), ("rxe,iwarp", "rxe,iwarp"),
                            ("iwarp,rxe", "rxe,iwarp"), ("iwarp,iwarp", "iwarp")):
            self.assertEqual(self.parse("run", "--transport", given, "--", "true")["OPT_TRANSPORT"], want)
            self.assertEqual(self.parse("setup", f"--transport={given}")["OPT_TRANSPORT"], want)
        for bad in ("", "roce", "rxe,", "rxe iwarp", "IWARP"):
            self.fails(f"--transport: '{bad}' is not rxe, iwarp or rxe,iwarp",
                       "run", f"--transport={bad}", "--", "true")
        self.fails("run: --transport needs a value", "run", "--transport")

    def test_checks_in_order(self):
        self.fails("unknown kernel '5' (use one of: 6.1 6.12)", "run", "--cpus", "0", "--kernel", "5", "--", "t")
        self.fails("--cpus: '0' is not a positive number", "run", "--mem", "1", "--cpus", "0", "--", "t")
        self.fails("--share: '/nonexistent' is not a directory",
                   "run", "--share", "/nonexistent", "--log", "/nonexistent/x", "--", "t")

    def test_share(self):
        self.fails("--share: the host's / is already visible (read-only); share a folder",
                   "run", "--share=/", "--", "t")
        link = os.path.join(self.root, "link")
        os.symlink(self.root + "/sub", link)
        got = self.parse("run", "--share", link, "--", "t")
        self.assertEqual((got["OPT_SHARE"], got["OPT_CWD"]), (self.root + "/sub", self.root + "/sub"))

    def test_cwd_outside_the_share(self):
        os.mkdir(self.root + "/subway")
        got = self.parse("run", "--share", self.root + "/subway", "--", "t")
        self.assertEqual(got["OPT_CWD"], self.root + "/subway")

    def test_log(self):
        log = os.path.join(self.root, "sub", "vm.log")
        with open(log, "w") as f:
            f.write("old")
        got = self.parse("run", "--log", os.path.relpath(log), "--", "t")
        self.assertEqual(got["OPT_LOG"], log)
        self.assertEqual(os.path.getsize(log), 0)
        self.fails("--log: cannot write '/nonexistent/x'", "run", "--log", "/nonexistent/x", "--", "t")

    def test_env(self):
        got = self.parse("run", "--env", "A=1=2", "--env=FOO", "--env", "B=", "--", "t")
        self.assertEqual(got["OPT_ENVS"], ["A=1=2", "FOO=it's $x", "B="])

    def test_env_errors(self):
        self.fails("--env '1A=x': not a valid variable name", "run", "--env", "1A=x", "--", "t")
        self.fails("--env '=x': not a valid variable name", "run", "--env", "=x", "--", "t")
        self.fails("--env BAR: BAR is not set here (use --env BAR=VALUE)", "run", "--env", "BAR", "--", "t")


class TestCacheDir(unittest.TestCase):
    def test_order(self):
        self.assertEqual(cli.cache_dir({"SOFTROCE_VM_CACHE": "/x", "HOME": "/h"}), "/x")
        self.assertEqual(cli.cache_dir({"SOFTROCE_VM_CACHE": "", "XDG_CACHE_HOME": "/xdg", "HOME": "/h"}),
                         "/xdg/rpma-fio/softroce-vm")
        self.assertEqual(cli.cache_dir({"XDG_CACHE_HOME": "", "HOME": "/h"}), "/h/.cache/rpma-fio/softroce-vm")


def bash_values(script, names):
    """Eval SCRIPT in bash -> each named variable's values (an array's, or one)."""
    show = "".join(f'printf "%s\\0" "${{#{n}[@]}}" ${{{n}[@]+"${{{n}[@]}}"}};' for n in names)
    out = subprocess.run(["bash", "-c", f'eval "$1"; {show}', "bash", script],
                         stdout=subprocess.PIPE, check=True).stdout.decode()
    fields, values = out.split("\0")[:-1], []
    while fields:
        count = int(fields.pop(0))
        values.append(fields[:count])
        del fields[:count]
    return values


class TestToShell(unittest.TestCase):
    def test_bash_reads_back_every_value(self):
        hard = ["", "a b", "it's", '"$HOME"', "`x`", "\\", "new\nline", "tab\t", "-e", "*"]
        variables = {"ONE": "x y'z", "MANY": hard, "NONE": []}
        got = bash_values(cli.to_shell(variables), ["ONE", "MANY", "NONE"])
        self.assertEqual(got, [["x y'z"], hard, []])


class TestTool(unittest.TestCase):
    """tool.py parse as the bash side calls it."""

    def tool(self, *args):
        return subprocess.run([sys.executable, os.path.join(PARTS, "tool.py"), *args],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def test_parse(self):
        run = self.tool("parse", "run", "--env", "A=b c", "--", "echo", "$1")
        self.assertEqual(run.returncode, 0)
        self.assertEqual(bash_values(run.stdout, ["CMD", "OPT_ENVS", "OPT_COMMAND"]),
                         [["run"], ["A=b c"], ["echo", "$1"]])

    def test_errors(self):
        run = self.tool("parse", "run", "--cpus", "0", "--", "t")
        self.assertEqual((run.returncode, run.stdout), (2, ""))
        self.assertEqual(run.stderr, "softroce-vm: error: --cpus: '0' is not a positive number\n")
        run = self.tool("parse")
        self.assertEqual(run.returncode, 2)
        self.assertTrue(run.stderr.startswith("Usage: scripts/softroce-vm COMMAND [OPTIONS]"))
        self.assertEqual(self.tool("bogus").returncode, 2)


if __name__ == "__main__":
    unittest.main()
