# SPDX-License-Identifier: BSD-3-Clause
"""scripts/run_matrix.sh's command line: its options read in order (the first bad one
named), then every value checked before anything runs, with one line naming the option
and the value: the settings the runner measures with, and the plan they ask for."""
import argparse
import datetime
import glob
import os
import re
from types import SimpleNamespace

from .common import die
from .plan import add_plan_options, checked_plan, plan_tsv, settings

# options with a value the plan takes (--rw under the plan's name)
PLAN_VALUES = {"--methods": "--methods", "--lat-bs": "--lat-bs", "--bw-bs": "--bw-bs",
               "--read-bs": "--read-bs", "--qd": "--qd", "--bw-qd": "--bw-qd", "--jobs": "--jobs",
               "--server-load": "--server-load", "--rw": "--rws", "--impl": "--impls"}
# options with a value the runner takes: the setting's name
VALUES = {"--repeats": "repeats", "--max-repeats": "max_repeats", "--margin": "margin",
          "--settle": "settle", "--runtime": "runtime", "--ramp": "ramp", "--server": "ssh_host",
          "--remote-dir": "remote_dir", "--server-ip": "server_ip", "--clients": "clients_arg",
          "--rdma-dev": "rdma_dev", "--vm-kernel": "vm_kernel", "--transport": "vm_transport",
          "--port": "port_base", "--mem": "server_mem", "--mem-size": "server_size",
          "--out": "out", "--impl": "impls"}
# options without a value: the setting and what it becomes (--mix and --native the plan's too)
FLAGS = {"--quick": ("preset", "quick"), "--full": ("preset", "full"),
         "--direct-write": ("direct_write", "1"), "--pmem": ("vm_pmem", "1"),
         "--cxl": ("vm_cxl", "1"),
         "--native": ("native", "1"), "--mix": ("mix", "1"), "--no-costs": ("costs", "0"),
         "--instructions": ("instructions", "1"), "--instructions=sync": ("instructions", "sync"),
         "--dry-run": ("dry_run", "1"), "--in-vm": ("in_vm", "1"), "--resumed": ("resume", "1"),
         "-h": ("help", "1"), "--help": ("help", "1")}
PLAN_FLAGS = ("--mix", "--native")
DEFAULTS = dict(preset="default", repeats="", runtime="", ramp="", max_repeats="", margin="5",
                settle="", out="", server_ip="", ssh_host="", clients_arg="", rdma_dev="",
                server_mem="", server_size="64m", direct_write="0", port_base="7400",
                dry_run="0", in_vm="0", vm_pmem="0", vm_cxl="0", vm_kernel="", vm_transport="", resume="0",
                native="0", mix="0", impls="ours", costs="1", instructions="0", help="0")
# a host name or address, never an option for ssh ('-o...')
HOST = re.compile(r"[A-Za-z0-9]([A-Za-z0-9._:-]*[A-Za-z0-9])?")
CLIENT_HOST = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:-]*")
RESUME_ALONE = ("--resume takes no other option: it continues DIR with the options it was "
                "started with")


def user_args(argv):
    """The arguments as the user gave them: those before the first --in-vm or --resumed,
    after which the runner puts what it adds when it runs itself again (--out, --pmem)."""
    for i, arg in enumerate(argv):
        if arg in ("--in-vm", "--resumed"):
            return argv[:i]
    return list(argv)


def value_of(argv, i):
    """The value after option argv[i]; a missing one (or an option in its place) named."""
    opt = argv[i]
    if i + 1 >= len(argv) or not argv[i + 1]:
        die(f"{opt} needs a value (see --help)")
    if argv[i + 1].startswith("--"):
        die(f"{opt} needs a value, not the option '{argv[i + 1]}' (see --help)")
    return argv[i + 1]


def read_options(argv, root):
    """The options in order into settings; plan_args: the plan's, as given. Stops at --help."""
    s = SimpleNamespace(**DEFAULTS, remote_dir=root, plan_args=[], client_hosts=[])
    i = 0
    while i < len(argv):
        opt = argv[i]
        if opt in FLAGS:
            setattr(s, *FLAGS[opt])
            if opt in PLAN_FLAGS:
                s.plan_args.append(opt)
            if s.help == "1":
                return s
        elif opt in PLAN_VALUES or opt in VALUES:
            val = value_of(argv, i)
            if opt in PLAN_VALUES:
                s.plan_args += [PLAN_VALUES[opt], val]
            if opt in VALUES:
                setattr(s, VALUES[opt], val)
            i += 1
        elif opt == "--resume":  # (alone it is main's: here it came with other options)
            die(RESUME_ALONE)
        else:
            die(f"unknown option '{opt}' (see --help)")
        i += 1
    return s


def plan_options(s):
    """The plan subcommand's options of these settings (its parser reads PLAN_ARGS)."""
    parser = argparse.ArgumentParser(prog="matrix plan")
    add_plan_options(parser)
    return parser.parse_args(["--preset", s.preset] + s.plan_args)


def must(ok, msg):
    if not ok:
        die(msg)


def check_values(s):
    """The values that need no plan: each a whole number, a name, a path as it must be."""
    must(re.fullmatch(r"[1-9][0-9]?", s.margin), f"--margin: '{s.margin}' is not a whole percent in 1..99")
    must(s.settle == "" or re.fullmatch(r"[0-9]{1,2}", s.settle),
         f"--settle: '{s.settle}' is not a whole percent in 0..99")
    must(re.fullmatch(r"[0-9]+", s.port_base) and 1024 <= int(s.port_base) <= 60000,
         f"--port: '{s.port_base}' is not a port in 1024..60000")
    must(re.fullmatch(r"[1-9][0-9]*[kKmMgG]?", s.server_size),
         f"--mem-size: '{s.server_size}' is not a size like 64m")
    must(s.vm_kernel in ("", "6.1", "6.12"), f"--vm-kernel: '{s.vm_kernel}' is neither 6.1 nor 6.12")
    must(s.vm_transport in ("", "roce", "iwarp"),
         f"--transport: '{s.vm_transport}' is neither roce nor iwarp")
    must(not (s.vm_transport and (s.server_ip or s.ssh_host)), "--transport picks the VM's device: "
         "with an RNIC (--server, --server-ip) its own transport is used, and the report names it")
    check_places(s)


def hosts_problem(ssh_host, server_ip):
    """What is wrong with --server [USER@]HOST and --server-ip ADDR (both runners'), or
    None: each a name or an address, never an option for ssh ('-o...')."""
    if ssh_host and (not HOST.fullmatch(ssh_host.split("@", 1)[-1]) or ssh_host.startswith("-")):
        return f"--server: '{ssh_host}' is not a host name"
    # (an IPv4 or IPv6 address, or a name the resolver looks up)
    if server_ip and not HOST.fullmatch(server_ip):
        return f"--server-ip: '{server_ip}' is not an address or host name"
    return None


def check_places(s):
    """--server, --server-ip, --remote-dir, --rdma-dev and --out: names that can work, before
    anything connects or runs."""
    problem = hosts_problem(s.ssh_host, s.server_ip)
    must(not problem, problem)
    must(s.remote_dir.startswith("/"),
         f"--remote-dir: '{s.remote_dir}' is not an absolute path (the folder on --server)")
    must(not s.rdma_dev or re.fullmatch(r"[A-Za-z0-9_.-]+", s.rdma_dev),
         f"--rdma-dev: '{s.rdma_dev}' is not an RDMA device name (ibv_devices lists them)")
    must(not s.out or not os.path.exists(s.out) or os.path.isdir(s.out),
         f"--out: '{s.out}' is not a folder")


def check_runs(s):
    """The preset's repeats, runtime, ramp and settle where not given, then each checked."""
    preset = settings(plan_options(s))[0]
    for name in ("repeats", "runtime", "ramp", "settle"):
        setattr(s, name, getattr(s, name) or str(preset[name]))
    must(re.fullmatch(r"[1-9][0-9]*", s.repeats), f"--repeats: '{s.repeats}' is not a positive number")
    s.max_repeats = s.max_repeats or str(3 * int(s.repeats))
    must(re.fullmatch(r"[1-9][0-9]*", s.max_repeats),
         f"--max-repeats: '{s.max_repeats}' is not a positive number")
    must(int(s.max_repeats) >= int(s.repeats),
         f"--max-repeats: {s.max_repeats} is less than --repeats ({s.repeats})")
    must(re.fullmatch(r"[1-9][0-9]*", s.runtime),
         f"--runtime: '{s.runtime}' is not a whole number of seconds")
    must(re.fullmatch(r"[0-9]+", s.ramp), f"--ramp: '{s.ramp}' is not a whole number of seconds")


def has_rdma_device():
    return bool(glob.glob("/sys/class/infiniband/*"))


def inside(root, path):
    """Is PATH inside the project folder ROOT (the one folder the VM shares, read-write)?"""
    return (os.path.realpath(path) + "/").startswith(os.path.realpath(root) + "/")


def check_cxl(s):
    """--cxl is the VM's: its CXL memory is the server's (no --mem beside it), and the
    VM runs only where the runner would boot it (no --server, no RDMA device here)."""
    must(not s.server_mem, f"--cxl: the server's memory is the VM's CXL device DAX: drop "
         f"--mem {s.server_mem}")
    must(not s.ssh_host and (s.in_vm == "1" or not has_rdma_device()),
         "--cxl: only in the Soft-RoCE VM (a host's CXL memory: --mem /dev/daxN.M of its "
         "region, docs/hardware.md)")
    must(s.vm_kernel in ("", "6.1") and s.native == "0",
         "--cxl: the VM's CXL memory is tried on kernel 6.1 only (not --vm-kernel 6.12, --native)")


def choose_mem(s):
    """Without --mem the server's memory is persistent where there is some to be had: in
    the VM its emulated device DAX (as --pmem), elsewhere DRAM (a host's PMem has no name
    the runner could guess). --mem malloc asks for DRAM in the VM too. --cxl: the VM's
    device DAX on its emulated CXL memory (the guest makes it after the NVDIMM's)."""
    if s.vm_cxl == "1":
        s.vm_pmem, s.server_mem = "1", "/dev/dax1.0"
    elif s.vm_pmem == "1":
        s.server_mem = "/dev/dax0.0"
    elif not s.server_mem:
        vm = s.in_vm == "0" and not s.ssh_host and not has_rdma_device()
        s.vm_pmem, s.server_mem = ("1", "/dev/dax0.0") if vm else ("0", "malloc")


def check_peer_apm_mem(s):
    """The peer's APM client refuses persistent memory whose server does not declare
    direct write to PMem (its flush would not be durable): said before anything runs."""
    if "peer" not in s.impls.split(",") or s.server_mem == "malloc" or s.direct_write == "1":
        return
    must(not any(pt["impl"] == "peer" and pt["method"] == "apm" for pt in s.plan),
         f"--impl peer: the peer's APM client refuses persistent memory ({s.server_mem}) unless "
         "the server declares direct write: add --direct-write (DDIO off or eADR), or --mem malloc")


def mem_words(s):
    """The server's memory in words (the dry run's last line)."""
    if s.server_mem == "malloc":
        return "DRAM (malloc)"
    vm = ", the VM's emulated NVDIMM (--mem malloc: DRAM)" if s.vm_pmem == "1" else ""
    if s.vm_cxl == "1":
        vm = ", the VM's emulated CXL memory (a persistent type-3 device's region)"
    return s.server_mem + vm


def check_local_mem(s, root):
    """--mem PATH where the server runs here or in the VM (a --server's the runner checks
    there): the engine opens it, it never creates it."""
    if s.server_mem == "malloc" or s.ssh_host or s.in_vm == "1":
        return
    mem = s.server_mem
    if has_rdma_device():
        must(os.path.exists(mem),
             f"--mem: '{mem}' does not exist (a device-DAX device or a file on an fsdax mount)")
    elif mem.startswith("/dev/dax"):
        must(s.vm_pmem == "1", f"--mem {mem}: the VM has a device-DAX device only with --pmem "
             "(which implies --mem /dev/dax0.0)")
    else:
        must(inside(root, mem) and os.path.exists(mem),
             f"--mem: '{mem}' must be an existing file inside the project folder, the one "
             "folder the VM shares (or use --pmem)")


def client_host_list(arg):
    """--clients H1,H2,... or @FILE (a host a line, # comments) as a list."""
    if not arg.startswith("@"):
        hosts = arg.split(",")
        return hosts[:-1] if len(hosts) > 1 and hosts[-1] == "" else hosts
    path = arg[1:]
    must(os.access(path, os.R_OK), f"--clients: cannot read the host file '{path}'")
    with open(path) as f:
        lines = (re.sub(r"\s", "", line.split("#", 1)[0]) for line in f)
        return [line for line in lines if line]


def check_clients(s):
    """--clients: the hosts, each once; what fio's client/server mode cannot do refused."""
    for h in client_host_list(s.clients_arg):
        must(CLIENT_HOST.fullmatch(h), f"--clients: '{h}' is not a host name")
        must(h not in s.client_hosts, f"--clients: '{h}' is named twice")
        s.client_hosts.append(h)
    must(s.client_hosts, f"--clients: no host in '{s.clients_arg}'")
    must(s.ssh_host, "--clients needs --server HOST: the server side runs there")
    must(s.impls == "ours", "--clients: only our engines (--impl ours) run as job files on client hosts")
    must(s.instructions == "0", "--clients: --instructions counts one client: run it without --clients")
    must(s.native == "0", "--clients: not with --native (its libibverbs is not on the client hosts)")
    # per-I/O costs are per connection: one host shows them (run without --clients)
    s.costs = "0"
    s.plan_args += ["--hosts", str(len(s.client_hosts))]


def place_out(s, root):
    """--out made absolute (default build/matrix/<date-time>); a folder with results
    refused unless resumed, a resumed one's plan must be the one it was measured with."""
    if not s.out:
        s.out = os.path.join(root, "build/matrix", datetime.datetime.now().strftime("%Y%m%d-%H%M%S"))
    if not s.out.startswith("/"):
        s.out = (os.environ.get("PWD") or os.getcwd()) + "/" + s.out
    stored = os.path.join(s.out, "plan.tsv")
    if s.in_vm == "0" and s.resume == "0":
        must(not os.path.exists(stored),
             f"--out: '{s.out}' already holds results: give a new folder (or --resume it)")
    if s.resume == "1":
        check_resume_plan(s, stored)


def check_resume_plan(s, stored):
    """--resume: the plan of the stored options must be the one the folder was measured
    with (another revision of the runner may plan other points under the same ids)."""
    must(os.path.isfile(stored), f"--resume: '{s.out}' has no plan.tsv: nothing to resume")
    with open(stored) as f:
        measured = f.read()
    must(plan_tsv(s.plan).rstrip("\n") == measured.rstrip("\n"),
         f"--resume: the options of {s.out}/options.json now plan other points than its "
         "plan.tsv (the runner changed since?): resume with the revision that started it "
         "(env.json's git revision), or start a new run")


def where(s):
    """Where the servers run: in-vm (this is the VM), ssh (--server), local (--server-ip),
    vm (no RDMA device here: the runner re-runs itself in the VM), device (an RDMA device
    here, but no address given)."""
    if s.in_vm == "1":
        return "in-vm"
    if s.ssh_host:
        return "ssh"
    if s.server_ip:
        return "local"
    return "device" if has_rdma_device() else "vm"


def parse(argv, root):
    """The runner's settings from its arguments, every one checked (SystemExit 2 on the
    first bad one); s.help == "1": only --help was asked for."""
    s = read_options(argv, root)
    if s.help == "1":
        return s
    check_values(s)
    check_runs(s)
    if s.vm_cxl == "1":
        check_cxl(s)
    choose_mem(s)
    check_local_mem(s, root)
    if s.clients_arg:
        check_clients(s)
    if s.native == "1":
        # 6.1's rxe has no FLUSH
        must(s.vm_kernel != "6.1",
             "--native: kernel 6.1's Soft-RoCE has no RDMA FLUSH: use --vm-kernel 6.12")
        s.vm_kernel = "6.12"
    s.plan = checked_plan(plan_options(s))
    check_peer_apm_mem(s)
    if s.in_vm == "1":
        s.server_ip = os.environ.get("RPMA_TEST_ADDR") or die(
            "RPMA_TEST_ADDR: not inside the Soft-RoCE VM")
    elif s.ssh_host:
        s.server_ip = s.server_ip or s.ssh_host
    s.where = where(s)
    s.engine_dir = "build/native" if s.native == "1" else "build"
    if s.dry_run == "0":
        place_out(s, root)
    return s
