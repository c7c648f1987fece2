# SPDX-License-Identifier: BSD-3-Clause
"""scripts/run_durability.sh's options: parsed, checked and completed with their
defaults, handed to the runner as shell assignments to eval (the durability-options
subcommand). Every setting goes by the runner's variable name. Bad usage: one line
"PROG: error: ..." on stderr, exit 2. The server's host name and address are checked
as run_matrix.sh's are (runargs.hosts_problem)."""
import datetime
import json
import os
import re
import shlex
import shutil
import socket
import sys

from .common import shell_assignments
from .durability import DEFAULT_MAX_QUIET
from .durability_plan import DURABILITY_METHODS, dry_run_text, size_bytes, warm_cut_note
from .durability_usage import usage
from .runargs import hosts_problem, user_args

DEFAULTS = {"METHODS": "apm,gpspm", "ROUNDS": "4", "BS_LIST": "4k,64k", "QD_LIST": "1,8", "BATCH": "4",
            "WRITE_TIME": "10", "RATE": "", "MAX_QUIET": str(DEFAULT_MAX_QUIET), "SSH_HOST": "", "SERVER_IP": "",
            "POWER_CUT": "", "WAIT_UP": "", "WAIT_UP_TIMEOUT": "600", "BEFORE_RESTART": "", "SERVER_MEM": "",
            "SERVER_SIZE": "", "DIRECT_WRITE": "0", "PORT_BASE": "7600", "NATIVE": "0", "VM_KERNEL": "",
            "DRAM_CANARY": "", "CANARY_RESET": "", "CANARY_PATH": "", "CANARY_BLOCK": "0", "OUT": "", "DRY_RUN": "0",
            "IN_VM": "0"}
# option -> the variable its value sets
VALUE_OPTIONS = {"--server": "SSH_HOST", "--remote-dir": "REMOTE_DIR", "--server-ip": "SERVER_IP",
                 "--power-cut": "POWER_CUT", "--wait-up": "WAIT_UP", "--wait-up-timeout": "WAIT_UP_TIMEOUT",
                 "--before-restart": "BEFORE_RESTART", "--methods": "METHODS", "--rounds": "ROUNDS",
                 "--bs": "BS_LIST", "--iodepth": "QD_LIST", "--batch": "BATCH", "--write-time": "WRITE_TIME",
                 "--rate": "RATE", "--max-quiet": "MAX_QUIET", "--mem": "SERVER_MEM", "--mem-size": "SERVER_SIZE",
                 "--vm-kernel": "VM_KERNEL", "--port": "PORT_BASE", "--dram-canary": "DRAM_CANARY",
                 "--canary-reset": "CANARY_RESET", "--out": "OUT"}
# option -> the variable it sets to 1
FLAGS = {"--direct-write": "DIRECT_WRITE", "--native": "NATIVE", "--dry-run": "DRY_RUN", "--in-vm": "IN_VM"}
# (the VM's node1: its power cut and its return, by the host's scripts/softroce-vm.d/power.sh)
VM_POWER = "scripts/softroce-vm.d/power.sh"
# options.json: its key -> the setting (a function of all of them)
RECORDED = [("methods", "METHODS"), ("rounds", "ROUNDS"), ("bs", "BS_LIST"), ("iodepth", "QD_LIST"),
            ("batch", "BATCH"), ("write_time", "WRITE_TIME"), ("rate", lambda s: s["RATE"] or "auto"),
            ("max_quiet", "MAX_QUIET"),
            ("server_ip", "SERVER_IP"), ("server_host", "SSH_HOST"), ("server_mem", "SERVER_MEM"),
            ("server_size", "SERVER_SIZE"), ("direct_write_to_pmem", "DIRECT_WRITE"), ("native", "NATIVE"),
            ("power_cut", "POWER_CUT"), ("wait_up", "WAIT_UP"), ("before_restart", "BEFORE_RESTART"),
            ("dram_canary", "DRAM_CANARY"), ("canary_reset", "CANARY_RESET")]
# --dram-canary: a device's path, and a byte offset in it (a block's: 4 KiB)
CANARY = re.compile(r"(/[^@\s]+)(?:@(0x[0-9a-fA-F]+|[0-9]+))?")
CANARY_BYTES = 4096


class UsageError(Exception):
    """Bad usage: its one line."""


def parse(args, root):
    """The settings ARGS give (DEFAULTS otherwise), or "help" for -h/--help: in order,
    as the runner always read them (the first problem wins)."""
    s = dict(DEFAULTS, REMOTE_DIR=root)
    i = 0
    while i < len(args):
        a = args[i]
        if a in ("-h", "--help"):
            return "help"
        if a in FLAGS:
            s[FLAGS[a]] = "1"
        elif a in VALUE_OPTIONS:
            value = args[i + 1] if i + 1 < len(args) else ""
            if not value:
                raise UsageError(f"{a} needs a value (see --help)")
            # (an option where the value belongs: the value was forgotten)
            if value.startswith("--"):
                raise UsageError(f"{a} needs a value, not the option '{value}' (see --help)")
            s[VALUE_OPTIONS[a]] = value
            i += 1
        else:
            raise UsageError(f"unknown option '{a}' (see --help)")
        i += 1
    return s


def items(text):
    """A comma list's items as the shell's `IFS=, read -a` splits it (a trailing comma
    ends the list, an empty item elsewhere stays, to be refused)."""
    out = text.split(",")
    return out[:-1] if len(out) > 1 and out[-1] == "" else out


def positive(option, value):
    if not re.fullmatch(r"[1-9][0-9]*", value):
        raise UsageError(f"{option}: '{value}' is not a positive whole number")


def in_job_order(methods):
    """The methods as the job files hold them: fio numbers the jobs so, and names their
    saved states and logs by that number, whatever order --methods gave."""
    return [m for m in DURABILITY_METHODS if m in items(methods)]


def check_methods(s):
    methods = items(s["METHODS"])
    if not methods:
        raise UsageError(f"--methods: no method in '{s['METHODS']}'")
    for k, m in enumerate(methods):
        if m not in DURABILITY_METHODS:
            raise UsageError(f"--methods: '{m}' is none of apm, gpspm, apm-native")
        if m in methods[:k]:
            raise UsageError(f"--methods: '{m}' is named twice")
    if "apm-native" in methods and s["NATIVE"] != "1":
        raise UsageError("--methods: apm-native needs the native build (--native; make native)")


def check_shapes(s):
    """--bs and --iodepth: the lists round_shape cycles through."""
    for b in items(s["BS_LIST"]):
        if not re.fullmatch(r"[1-9][0-9]*[kKmM]?", b):
            raise UsageError(f"--bs: '{b}' is not a block size like 4k")
        if size_bytes(b) % 512:
            raise UsageError(f"--bs: '{b}' is not a multiple of 512 bytes")
    for q in items(s["QD_LIST"]):
        positive("--iodepth", q)


def check(s):
    """The values' checks, in the order the runner always made them (up to the hosts')."""
    for option, var in (("--rounds", "ROUNDS"), ("--batch", "BATCH"), ("--write-time", "WRITE_TIME"),
                        ("--wait-up-timeout", "WAIT_UP_TIMEOUT"), ("--max-quiet", "MAX_QUIET")):
        positive(option, s[var])
    if s["RATE"]:
        positive("--rate", s["RATE"])
    check_methods(s)
    check_shapes(s)
    port = s["PORT_BASE"]
    if not re.fullmatch(r"[0-9]+", port) or not 1024 <= int(port) <= 60000:
        raise UsageError(f"--port: '{port}' is not a port in 1024..60000")
    if s["SERVER_SIZE"] and not re.fullmatch(r"[1-9][0-9]*[kKmMgG]?", s["SERVER_SIZE"]):
        raise UsageError(f"--mem-size: '{s['SERVER_SIZE']}' is not a size like 1g")
    if s["VM_KERNEL"] not in ("", "6.1", "6.12"):
        raise UsageError(f"--vm-kernel: '{s['VM_KERNEL']}' is neither 6.1 nor 6.12")
    if s["NATIVE"] == "1" and s["VM_KERNEL"] == "6.1":
        raise UsageError("--native: kernel 6.1's Soft-RoCE has no RDMA FLUSH: use --vm-kernel 6.12")
    check_canary(s)


def check_canary(s):
    """--dram-canary PATH[@OFFSET] -> CANARY_PATH and CANARY_BLOCK (4 KiB blocks)."""
    if not s["DRAM_CANARY"]:
        return
    m = CANARY.fullmatch(s["DRAM_CANARY"])
    if not m:
        raise UsageError(f"--dram-canary: '{s['DRAM_CANARY']}' is not a device's absolute path, "
                         "with @OFFSET where it does not start at 0 (e.g. /dev/pmem1, /dev/mem@0x8000000)")
    offset = int(m.group(2) or "0", 0)
    if offset % CANARY_BYTES:
        raise UsageError(f"--dram-canary: offset {m.group(2)} is not a multiple of {CANARY_BYTES}")
    s["CANARY_PATH"], s["CANARY_BLOCK"] = m.group(1), str(offset // CANARY_BYTES)


def check_server(s):
    """--server's companions (after its name's check, hosts_problem)."""
    if s["SSH_HOST"] and s["IN_VM"] == "0":
        if not s["POWER_CUT"]:
            raise UsageError(f"--server needs --power-cut CMD: how to cut {s['SSH_HOST']}'s power")
        if not s["SERVER_MEM"]:
            raise UsageError("--server needs --mem PATH: the server's persistent memory")
        if s["SERVER_MEM"] == "malloc":
            raise UsageError("--mem: DRAM (malloc) forgets everything with the power")
        check_canary_reset(s)


def check_canary_reset(s):
    """--canary-reset shows what --dram-canary does across a reset: nothing without it."""
    if s["CANARY_RESET"] and not s["DRAM_CANARY"]:
        raise UsageError("--canary-reset needs --dram-canary: the reset shows that the canary's token "
                         "survives one")


def complete(s):
    """The defaults that hang on other settings."""
    if s["NATIVE"] == "1":
        s["VM_KERNEL"] = "6.12"
    # on hardware a region large enough for a fast RNIC's writes; in the VM's 64 MiB
    # device DAX, 16 MiB a method
    if not s["SERVER_SIZE"]:
        s["SERVER_SIZE"] = "1g" if s["SSH_HOST"] and s["IN_VM"] == "0" else "16m"
    # the VM's NVDIMM is a file of the host: RDMA writes reach it as they are placed
    if not s["SSH_HOST"]:
        s["DIRECT_WRITE"] = "1"
    s["ENGINE_DIR"] = "build/native" if s["NATIVE"] == "1" else "build"


def check_region(s):
    """a method's region holds a block of every --bs (else a round has no block to write)"""
    for b in items(s["BS_LIST"]):
        if size_bytes(b) > size_bytes(s["SERVER_SIZE"]):
            raise UsageError(f"--mem-size: {s['SERVER_SIZE']} holds no block of --bs {b}")


def check_tools(s, root):
    """What a run (not --dry-run) needs built here."""
    if not shutil.which("fio"):
        raise UsageError("fio is missing: run scripts/deps.sh")
    engines = s["ENGINE_DIR"]
    for lib in ("librpma_apm.so", "librpma_gpspm.so"):
        if not os.path.isfile(os.path.join(root, engines, lib)):
            target = "native" if s["NATIVE"] == "1" else "engines"
            raise UsageError(f"{engines}/{lib} is missing: run make {target}")
    if s["NATIVE"] == "1" and not os.path.isfile(os.path.join(root, engines, "jobs", "durability-native.fio")):
        raise UsageError(f"{engines}/jobs is missing: run make native")


def result_folder(s, root):
    """--out made absolute (relative to the project's folder), by default a new one
    under build/durability; never one that holds an earlier run's results."""
    out = s["OUT"] or os.path.join(root, "build", "durability", datetime.datetime.now().strftime("%Y%m%d-%H%M%S"))
    s["OUT"] = out if out.startswith("/") else os.path.join(root, out)
    if s["IN_VM"] == "0" and os.path.exists(os.path.join(s["OUT"], "options.json")):
        raise UsageError(f"--out: '{s['OUT']}' already holds results: give a new folder")


def vm_server(s, root):
    """Inside the VM, on node0: node1 is the server, its power the host's to cut."""
    s["SSH_HOST"] = "node1"
    try:
        s["SERVER_IP"] = socket.gethostbyname("node1")
    except OSError:
        raise UsageError("inside the VM, node1 has no address (run with --nodes 2)") from None
    s["POWER_CUT"] = s["POWER_CUT"] or f"{root}/{VM_POWER} cut node1"
    s["WAIT_UP"] = s["WAIT_UP"] or f"{root}/{VM_POWER} wait-up node1 {s['WAIT_UP_TIMEOUT']}"
    s["SERVER_MEM"] = s["SERVER_MEM"] or "/dev/dax0.0"
    # (the RAM the VM reserves on every node: its cut loses it, a warm reset does not,
    # which QEMU's system_reset shows before the rounds)
    if not s["DRAM_CANARY"]:
        s["DRAM_CANARY"] = os.environ.get("SOFTROCE_VM_DRAM_CANARY", "")
        check_canary(s)
    if s["DRAM_CANARY"] and not s["CANARY_RESET"]:
        s["CANARY_RESET"] = f"{root}/{VM_POWER} reset node1"
    check_canary_reset(s)


def notes(s, prog):
    """(commands for the runner: the notes on stderr)"""
    out = []
    if any(m.startswith("apm") for m in items(s["METHODS"])) and s["DIRECT_WRITE"] == "0":
        out.append(f"{prog}: note: without --direct-write the APM server does not declare that RDMA "
                   "writes reach PMem directly, and APM's client then flushes for visibility only, which "
                   "does not make writes persistent: give --direct-write where the platform writes into "
                   "PMem directly (DDIO off for the RNIC's port, or eADR; docs/hardware.md)")
    warm = warm_cut_note(s["POWER_CUT"])
    if warm:
        out.append(f"{prog}: warning: {warm}")
    if s["CANARY_PATH"] == "/dev/mem" and s["IN_VM"] == "0":
        out.append(f"{prog}: note: --dram-canary /dev/mem writes its token through the CPU's caches, which "
                   "a reset need not write back to DRAM: a reset could then pass for a loss of power; "
                   "prefer /dev/pmemN of memmap=SIZE!ADDR (docs/hardware.md)")
    if s["DRAM_CANARY"] and not s["CANARY_RESET"] and s["IN_VM"] == "0":
        out.append(f"{prog}: note: --dram-canary without --canary-reset: nothing shows that this platform "
                   "keeps the canary's token across a reset; where its firmware clears memory at boot, a "
                   "reset would pass for a power cut (docs/hardware.md)")
    if not s["DRAM_CANARY"] and (s["SSH_HOST"] or s["IN_VM"] == "1"):
        out.append(f"{prog}: note: without --dram-canary nothing shows that the power went: a reset that "
                   "keeps memory and writes caches back would pass for a power cut (docs/hardware.md)")
    return [f"printf '%s\\n' {shlex.quote(note)} >&2" for note in out]


def recorded(s, prog, args):
    """options.json of the run: what the report shows of its options, the rounds'
    plan is made of, and the command line."""
    doc = {key: (how(s) if callable(how) else s[how]) for key, how in RECORDED}
    doc["command"] = f"{prog} {' '.join(user_args(args))}"  # (not the VM run's --in-vm --out)
    return doc


def prepare(s, prog, args, root):
    """Past the hosts' check: the rest of the checks and defaults, and what the runner
    does next (commands): --dry-run's table printed, or a run's note."""
    check_server(s)
    complete(s)
    check_region(s)
    if s["DRY_RUN"] == "1":
        return [f"printf '%s' {shlex.quote(dry_run_text(recorded(s, prog, args)))}", "exit 0"]
    check_tools(s, root)
    result_folder(s, root)
    if s["IN_VM"] == "1":
        vm_server(s, root)
    else:
        s["SERVER_IP"] = s["SERVER_IP"] or s["SSH_HOST"]
    s["METHOD_LIST"] = in_job_order(s["METHODS"])
    s["METHODS"] = ",".join(s["METHOD_LIST"])
    s["OPTIONS_JSON"] = json.dumps(recorded(s, prog, args), indent=1)
    return notes(s, prog)


def runner_script(args, prog, root):
    """What the runner evals: the settings, then what comes next -- a problem found
    past the hosts' check is reported by the runner, after the settings, as it always
    was. Raises UsageError for a problem up to that check."""
    s = parse(args, root)
    if s == "help":
        return [f"printf '%s' {shlex.quote(usage(prog, root, DEFAULTS))}", "exit 0"]
    check(s)
    problem = hosts_problem(s["SSH_HOST"], s["SERVER_IP"])
    if problem:
        raise UsageError(problem)
    try:
        then = prepare(s, prog, args, root)
    except UsageError as e:
        then = [f"die {shlex.quote(str(e))}"]
    return [shell_assignments(s)] + then


def cmd_durability_options(args):
    argv = args.args[1:] if args.args[:1] == ["--"] else args.args
    try:
        print("\n".join(runner_script(argv, args.prog, args.root)))
    except UsageError as e:
        print(f"{args.prog}: error: {e}", file=sys.stderr)
        return 2
    return 0
