# SPDX-License-Identifier: BSD-3-Clause
"""The subcommands scripts/run_matrix.sh hands its arguments to, as given (none of them
parsed by argparse: they are the runner's):

  matrix args PROG ROOT ARG...          the settings, checked, as shell assignments
                                        (OPTIONS_JSON: options.json's text)
  matrix usage PROG ROOT                the runner's --help
  matrix dry-run PROG ROOT ARG...       the plan and its estimated duration
  matrix check-tools PROG ROOT ARG...   the programs and builds a run needs, or the missing one

PROG names the runner in errors, ROOT is the project folder."""
import json
import shlex

from . import common
from .dryrun import dry_run
from .runargs import DEFAULTS, parse
from .tools import PEER_FIO, check_tools
from .usage import usage_text

# the runner's shell variables: the setting each holds
SHELL_VARS = {"PRESET": "preset", "REPEATS": "repeats", "RUNTIME": "runtime", "RAMP": "ramp",
              "MAX_REPEATS": "max_repeats", "MARGIN": "margin", "SETTLE": "settle", "OUT": "out",
              "SERVER_IP": "server_ip", "SSH_HOST": "ssh_host", "REMOTE_DIR": "remote_dir",
              "SERVER_MEM": "server_mem", "SERVER_SIZE": "server_size",
              "DIRECT_WRITE": "direct_write", "RDMA_DEV": "rdma_dev", "PORT_BASE": "port_base",
              "DRY_RUN": "dry_run", "IN_VM": "in_vm", "VM_PMEM": "vm_pmem",
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


def user_args(argv):
    """The arguments as the user gave them: without what the runner adds when it runs
    itself again (--in-vm or --resumed, and the --out after it)."""
    out, i = [], 0
    while i < len(argv):
        if argv[i] in ("--in-vm", "--resumed"):
            if i + 1 < len(argv) and argv[i + 1] == "--out":
                i += 2
        else:
            out.append(argv[i])
        i += 1
    return out


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
                  instructions=s.instructions, command=f"{prog} " + " ".join(argv),
                  args=user_args(argv))
    return json.dumps(record, indent=1)


def main(words):
    cmd, prog, root, argv = words[0], words[1], words[2], words[3:]
    common.PROG = prog  # errors in the runner's name: they are its options'
    if cmd == "usage":
        print(usage_text(prog, root, DEFAULTS["port_base"], DEFAULTS["server_size"]), end="")
        return
    s = parse(argv, root)
    if cmd == "args":
        print("SHOW_HELP=1" if s.help == "1" else shell_assignments(s, prog, argv))
    elif cmd == "dry-run":
        dry_run(s)
    elif cmd == "check-tools":
        check_tools(s, root)


COMMANDS = ("args", "usage", "dry-run", "check-tools")
