# SPDX-License-Identifier: BSD-3-Clause
"""The subcommands scripts/run_matrix.sh hands its arguments to, as given (none of them
parsed by argparse: they are the runner's):

  matrix args PROG ROOT ARG...          the settings, checked, as shell assignments
                                        (OPTIONS_JSON: options.json's text)
  matrix usage PROG ROOT                the runner's --help
  matrix dry-run PROG ROOT ARG...       the plan and its estimated duration
  matrix check-tools PROG ROOT ARG...   the programs and builds a run needs, or the missing one
  matrix resume-args PROG ROOT --resume DIR   the folder and the arguments --resume runs
                                        again, as shell assignments
  matrix sweep-report PROG ROOT ARG...  `run_matrix.sh report`: a result folder from the
                                        sweep's fio JSON, built, and its summary

PROG names the runner in errors, ROOT is the project folder."""
import contextlib
import datetime
import io
import json
import os
import shlex
import shutil
from types import SimpleNamespace

from . import common
from .common import die
from .dryrun import dry_run
from .resume import stored_run
from .runargs import DEFAULTS, RESUME_ALONE, parse, user_args, value_of
from .summary import summary_text
from .sweep import cmd_report
from .tools import PEER_FIO, check_tools
from .usage import usage_text

# the runner's shell variables: the setting each holds
SHELL_VARS = {"PRESET": "preset", "REPEATS": "repeats", "RUNTIME": "runtime", "RAMP": "ramp",
              "MAX_REPEATS": "max_repeats", "MARGIN": "margin", "SETTLE": "settle", "OUT": "out",
              "SERVER_IP": "server_ip", "SSH_HOST": "ssh_host", "REMOTE_DIR": "remote_dir",
              "SERVER_MEM": "server_mem", "SERVER_SIZE": "server_size",
              "DIRECT_WRITE": "direct_write", "RDMA_DEV": "rdma_dev", "PORT_BASE": "port_base",
              "DRY_RUN": "dry_run", "IN_VM": "in_vm", "VM_PMEM": "vm_pmem", "VM_CXL": "vm_cxl",
              "VM_KERNEL": "vm_kernel", "VM_TRANSPORT": "vm_transport", "RESUME": "resume",
              "NATIVE": "native", "IMPLS": "impls", "COSTS": "costs",
              "INSTRUCTIONS": "instructions", "WHERE": "where", "ENGINE_DIR": "engine_dir"}
PERFTEST_ITERS = 1000


def shell_assignments(s, prog, argv):
    """VAR=value lines (and arrays) the runner evaluates: each value quoted for the shell."""
    lines = [f"{var}={shlex.quote(getattr(s, attr))}" for var, attr in SHELL_VARS.items()]
    lines.append(f"OPTIONS_JSON={shlex.quote(options_json(s, prog, argv))}")
    lines.append(f"VERBS_COUNT={shlex.quote(s.engine_dir)}/tests/tools/libverbs_count.so")
    lines.append(f"PEER_FIO={PEER_FIO} PERFTEST_ITERS={PERFTEST_ITERS}")
    for var, words in (("PLAN_ARGS", s.plan_args), ("CLIENT_HOSTS", s.client_hosts)):
        lines.append(f"{var}=(" + " ".join(shlex.quote(w) for w in words) + ")")
    return "\n".join(lines)


def options_json(s, prog, argv):
    """options.json: the settings, and "args": the arguments exactly as given, a list (the
    joined "command" is for reading; "args" is what --resume runs again)."""
    record = dict(preset=s.preset, repeats=s.repeats, settle_pct=s.settle, runtime=s.runtime,
                  ramp=s.ramp, server_ip=s.server_ip, server_host=s.ssh_host or "local",
                  server_mem=s.server_mem, server_size=s.server_size,
                  direct_write_to_pmem=s.direct_write, max_repeats=s.max_repeats,
                  margin_pct=s.margin, plan_args=" ".join(s.plan_args),
                  perftest_iters=str(PERFTEST_ITERS), impls=s.impls, costs=s.costs,
                  client_hosts=" ".join(s.client_hosts) or "local",
                  instructions=s.instructions, command=f"{prog} " + " ".join(user_args(argv)),
                  args=user_args(argv))
    return json.dumps(record, indent=1)


def absolute(path):
    return path if path.startswith("/") else (os.environ.get("PWD") or os.getcwd()) + "/" + path


def resume_args(argv):
    """--resume DIR (alone): the folder, whether it is complete, the arguments it was
    started with, as shell assignments."""
    folder = absolute(value_of(argv, 0))
    if len(argv) != 2:
        die(RESUME_ALONE)
    complete, args = stored_run(folder)
    print(f"OUT={shlex.quote(folder)} RESUME_COMPLETE={int(complete)}")
    print("STORED_ARGS=(" + " ".join(shlex.quote(a) for a in args) + ")")


def sweep_report(prog, root, argv):
    """report [--out DIR] [METHOD=]FIO_JSON...: a result folder from fio JSON of
    jobs/sweep.fio (sweep.py), built, and its summary."""
    out, files, i = "", [], 0
    while i < len(argv):
        if argv[i] == "--out":
            out, i = value_of(argv, i), i + 1
        elif argv[i] in ("-h", "--help"):
            return print_usage(prog, root)
        elif argv[i].startswith("-"):
            die(f"report: unknown option '{argv[i]}' (see --help)")
        else:
            files.append(argv[i])
        i += 1
    if not files:
        die(f"report needs the fio JSON of a sweep: {prog} report [--out DIR] [METHOD=]FIO_JSON...")
    if not shutil.which("gnuplot"):
        die("gnuplot is missing: run scripts/deps.sh")
    out = absolute(out or os.path.join(
        root, "build/matrix", "sweep-" + datetime.datetime.now().strftime("%Y%m%d-%H%M%S")))
    if os.path.exists(os.path.join(out, "plan.tsv")):
        die(f"--out: '{out}' already holds results: give a new folder")
    with contextlib.redirect_stdout(io.StringIO()):  # (build's word: where the report is)
        cmd_report(SimpleNamespace(out=out, files=files, command=f"{prog} report " + " ".join(argv)))
    print(summary_text(out))


def print_usage(prog, root):
    print(usage_text(prog, root, DEFAULTS["port_base"], DEFAULTS["server_size"]), end="")


def main(words):
    cmd, prog, root, argv = words[0], words[1], words[2], words[3:]
    common.PROG = prog  # errors in the runner's name: they are its options'
    if cmd == "usage":
        return print_usage(prog, root)
    if cmd == "resume-args":
        return resume_args(argv)
    if cmd == "sweep-report":
        return sweep_report(prog, root, argv)
    s = parse(argv, root)
    if cmd == "args":
        print("SHOW_HELP=1" if s.help == "1" else shell_assignments(s, prog, argv))
    elif cmd == "dry-run":
        dry_run(s)
    elif cmd == "check-tools":
        check_tools(s, root)


COMMANDS = ("args", "usage", "dry-run", "check-tools", "resume-args", "sweep-report")
