# SPDX-License-Identifier: BSD-3-Clause
"""The command line of scripts/softroce-vm: one parser for every command.

parse() turns the arguments into shell variables -- CMD, the settings every
command shares and the command's OPT_* values, checked and normalised -- and
to_shell() writes them as assignments for the bash side to eval.  A bad
command line raises UsageError; no command at all raises NoCommand.
"""

import os
import re
import shlex
from dataclasses import dataclass, field

from . import usage

PROG = usage.PROG
KERNELS = ("6.1", "6.12")
DEFAULT_KERNEL = "6.1"
# The rxe device's IPv4 address; it exists only inside the guest.
RXE_ADDR = "192.168.77.1"
RXE_PREFIX = 24
# --nodes: guests on one virtual network; node I has 192.168.77.(1+I)
MAX_NODES = 4


class UsageError(Exception):
    """A bad command line: the text after 'softroce-vm: error: ' (exit 2)."""


class NoCommand(Exception):
    """No command given: the overview goes to stderr (exit 2)."""


@dataclass
class Settings:
    """What the commands share, and what the help texts name."""

    root: str  # the project folder: the default --share
    cache: str  # kernels, initramfs images, KVM verdicts
    cwd: str  # the caller's working directory (physical)
    environ: dict  # the caller's environment, for --env NAME
    rxe_addr: str = RXE_ADDR


def cache_dir(environ):
    """SOFTROCE_VM_CACHE, else below XDG_CACHE_HOME or ~/.cache.

    Outside build/ so that `make clean` keeps the downloaded kernels.
    """
    if environ.get("SOFTROCE_VM_CACHE"):
        return environ["SOFTROCE_VM_CACHE"]
    home = environ.get("HOME") or os.path.expanduser("~")
    base = environ.get("XDG_CACHE_HOME") or home + "/.cache"
    return base + "/rpma-fio/softroce-vm"


def settings_here(root):
    """The Settings of this process: its environment and working directory."""
    env = dict(os.environ)
    return Settings(root=root, cache=cache_dir(env), cwd=os.getcwd(), environ=env)


@dataclass(frozen=True)
class Opt:
    """One option: --name VALUE / --name=VALUE, or a flag."""

    names: tuple
    var: str  # the shell variable it sets
    value: bool = True  # takes a value
    const: str = "1"  # a flag's value
    many: bool = False  # repeatable: the variable is an array
    sets: tuple = ()  # (VAR, VALUE) pairs it sets besides


@dataclass(frozen=True)
class Spec:
    """A command's options, their defaults and its final checks."""

    opts: tuple
    defaults: dict = field(default_factory=dict)
    finish: object = None  # finish(values, settings): check, normalise
    tail: bool = False  # takes a COMMAND after its options

    def find(self, name):
        return next((o for o in self.opts if name in o.names), None)


def need_kernel(v):
    if v not in KERNELS:
        raise UsageError(f"unknown kernel '{v}' (use one of: {' '.join(KERNELS)})")


def uint_min(text, least):
    """TEXT as a number >= LEAST (decimal, up to 9 digits), else None."""
    if not re.fullmatch(r"[0-9]{1,9}", text) or int(text) < least:
        return None
    return int(text)


def need_uint(values, var, least, message, multiple=1):
    n = uint_min(values[var], least)
    if n is None or n % multiple:
        raise UsageError(message.format(values[var]))
    values[var] = str(n)


ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def resolve_env(entry, environ):
    """--env NAME=VALUE as it is; --env NAME with the caller's value."""
    name, eq, value = entry.partition("=")
    if not ENV_NAME.fullmatch(name):
        raise UsageError(f"--env '{entry}': not a valid variable name")
    if eq:
        return entry
    if name not in environ:
        raise UsageError(f"--env {name}: {name} is not set here (use --env {name}=VALUE)")
    return f"{name}={environ[name]}"


def share_dir(path):
    if not os.path.isdir(path):
        raise UsageError(f"--share: '{path}' is not a directory")
    real = os.path.realpath(path)
    if real == "/":
        raise UsageError("--share: the host's / is already visible (read-only); share a folder")
    return real


def log_file(path):
    """Create (empty) the --log file now, so that a bad path fails before the boot."""
    try:
        with open(path, "w"):
            pass
    except OSError:
        raise UsageError(f"--log: cannot write '{path}'") from None
    folder, name = os.path.split(path)
    return os.path.join(os.path.realpath(folder or "."), name)


def guest_cwd(cwd, share):
    """COMMAND's folder: the caller's if it is inside the share, else the share."""
    inside = cwd == share or cwd.startswith(share + "/")
    return cwd if inside else share


def finish_setup(values, settings):
    need_kernel(values["OPT_KERNEL"])
    need_transport(values)


TRANSPORTS = ("rxe", "iwarp")


def need_transport(values):
    """--transport: rxe, iwarp or both, in either order -> "rxe", "iwarp" or "rxe,iwarp"."""
    names = values["OPT_TRANSPORT"].split(",")
    if any(n not in TRANSPORTS for n in names):
        raise UsageError(f"--transport: '{values['OPT_TRANSPORT']}' is not rxe, iwarp or rxe,iwarp")
    values["OPT_TRANSPORT"] = ",".join(t for t in TRANSPORTS if t in names)


def finish_clean(values, settings):
    if values["OPT_WHAT"] == "kernel":
        need_kernel(values["OPT_KERNEL"])


def need_nodes(values):
    n = uint_min(values["OPT_NODES"], 1)
    if n is None or n > MAX_NODES:
        raise UsageError(f"--nodes: '{values['OPT_NODES']}' is not a number of guests from 1 to {MAX_NODES}")
    values["OPT_NODES"] = str(n)
    # two cores share all the guests: one virtual CPU each unless asked
    if values["OPT_CPUS"] is None:
        values["OPT_CPUS"] = "2" if n == 1 else "1"


def finish_run(values, settings):
    if not values["OPT_COMMAND"]:
        raise UsageError(f"run: no COMMAND given (usage: scripts/{PROG} run [OPTIONS] -- COMMAND...)")
    need_kernel(values["OPT_KERNEL"])
    need_nodes(values)
    need_transport(values)
    need_uint(values, "OPT_CPUS", 1, "--cpus: '{}' is not a positive number")
    need_uint(values, "OPT_MEM", 256, "--mem: '{}' is not a number of MiB >= 256")
    need_uint(values, "OPT_TIMEOUT", 0, "--timeout: '{}' is not a number of seconds")
    need_uint(values, "OPT_PMEM_MIB", 128, "--pmem-size: '{}' is not a multiple of 64 MiB >= 128", 64)
    values["OPT_SHARE"] = share_dir(values["OPT_SHARE"] or settings.root)
    if values["OPT_LOG"]:
        values["OPT_LOG"] = log_file(values["OPT_LOG"])
    values["OPT_CWD"] = guest_cwd(settings.cwd, values["OPT_SHARE"])
    values["OPT_ENVS"] = [resolve_env(e, settings.environ) for e in values["OPT_ENVS"]]


KERNEL_OPT = Opt(("--kernel",), "OPT_KERNEL")
TRANSPORT_OPT = Opt(("--transport",), "OPT_TRANSPORT")

COMMANDS = {
    "setup": Spec(
        opts=(KERNEL_OPT, TRANSPORT_OPT, Opt(("--refresh",), "OPT_REFRESH", value=False)),
        defaults={"OPT_KERNEL": DEFAULT_KERNEL, "OPT_REFRESH": "0", "OPT_TRANSPORT": "rxe"},
        finish=finish_setup,
    ),
    "run": Spec(
        opts=(
            KERNEL_OPT,
            TRANSPORT_OPT,
            Opt(("--nodes",), "OPT_NODES"),
            Opt(("--cpus",), "OPT_CPUS"),
            Opt(("--mem",), "OPT_MEM"),
            Opt(("--timeout",), "OPT_TIMEOUT"),
            Opt(("--pmem-size",), "OPT_PMEM_MIB"),
            Opt(("--env",), "OPT_ENVS", many=True),
            Opt(("--share",), "OPT_SHARE"),
            Opt(("--log",), "OPT_LOG"),
            Opt(("--pmem",), "OPT_PMEM", value=False),
            Opt(("--cxl",), "OPT_CXL", value=False),
            Opt(("--keep-logs",), "OPT_KEEP", value=False),
            Opt(("-q", "--quiet"), "QUIET", value=False),
        ),
        defaults={
            "OPT_KERNEL": DEFAULT_KERNEL, "OPT_TRANSPORT": "rxe", "OPT_NODES": "1", "OPT_CPUS": None, "OPT_MEM": "2048",
            "OPT_TIMEOUT": "600", "OPT_PMEM_MIB": "512", "OPT_ENVS": [],
            "OPT_SHARE": "", "OPT_LOG": "", "OPT_PMEM": "0", "OPT_CXL": "0", "OPT_KEEP": "0",
            "QUIET": "0", "OPT_COMMAND": [],
        },
        finish=finish_run,
        tail=True,
    ),
    "status": Spec(opts=()),
    "clean": Spec(
        opts=(
            Opt(("--kernel",), "OPT_KERNEL", sets=(("OPT_WHAT", "kernel"),)),
            Opt(("--runs",), "OPT_WHAT", value=False, const="runs"),
            Opt(("--all",), "OPT_WHAT", value=False, const="all"),
        ),
        defaults={"OPT_WHAT": "all", "OPT_KERNEL": ""},
        finish=finish_clean,
    ),
}

HELP = ("-h", "--help")


def unknown(cmd, spec, arg):
    if spec.tail:
        return UsageError(f"{cmd}: unknown option '{arg}' (see: scripts/{PROG} {cmd} --help)")
    return UsageError(f"{cmd}: unknown argument '{arg}' (see: scripts/{PROG} {cmd} --help)")


def take(values, opt, value):
    if opt.many:
        values[opt.var].append(value)
    else:
        values[opt.var] = value
    values.update(opt.sets)


def scan(cmd, spec, args):
    """The options in order (an error or --help: the first one wins).

    Returns the values, or None for --help.  With spec.tail, `--` or the
    first argument that is no option starts the COMMAND.
    """
    values = {k: list(v) if isinstance(v, list) else v for k, v in spec.defaults.items()}
    i = 0
    while i < len(args):
        arg = args[i]
        if arg in HELP:
            return None
        if spec.tail and (arg == "--" or not arg.startswith("-")):
            values["OPT_COMMAND"] = args[i + (arg == "--"):]
            return values
        name, eq, inline = arg.partition("=")
        opt = spec.find(name if eq else arg)
        if opt is None or (eq and not opt.value):
            raise unknown(cmd, spec, arg)
        if not opt.value:
            take(values, opt, opt.const)
        elif eq:
            take(values, opt, inline)
        elif i + 1 < len(args):
            i += 1
            take(values, opt, args[i])
        else:
            raise UsageError(f"{cmd}: {arg} needs a value")
        i += 1
    return values


def shared_vars(settings):
    return {
        "CACHE": settings.cache,
        "KERNELS": list(KERNELS),
        "DEFAULT_KERNEL": DEFAULT_KERNEL,
        "RXE_ADDR": settings.rxe_addr,
        "RXE_PREFIX": str(RXE_PREFIX),
    }


def help_vars(topic, settings):
    return {"CMD": "help", "HELP": usage.text(topic, settings)}


def parse(argv, settings):
    """softroce-vm's arguments -> {shell variable: str or list of str}."""
    if not argv:
        raise NoCommand()
    cmd, args = argv[0], argv[1:]
    if cmd == "help" or cmd in HELP:
        return help_vars(args[0] if args else "", settings)
    spec = COMMANDS.get(cmd)
    if spec is None:
        raise UsageError(f"unknown command '{cmd}' (see: scripts/{PROG} --help)")
    values = scan(cmd, spec, args)
    if values is None:
        return help_vars(cmd, settings)
    if spec.finish:
        spec.finish(values, settings)
    return {"CMD": cmd, **shared_vars(settings), **values}


def to_shell(variables):
    """Bash assignments (arrays for lists), each value quoted for eval."""
    lines = []
    for name, value in variables.items():
        if isinstance(value, list):
            lines.append(f"{name}=({' '.join(shlex.quote(v) for v in value)})")
        else:
            lines.append(f"{name}={shlex.quote(value)}")
    return "\n".join(lines) + "\n"
