# SPDX-License-Identifier: BSD-3-Clause
"""The env subcommand: the environment of a measurement as env.json holds it: this host's
kernel, CPU, RDMA devices (firmware, transport, link), the tools' versions, the engines'
checksums, the git revision, DDIO as declared, with the platform's facts (platform.py)
merged in; the server host's kernel, CPU and platform, which the runner reads over ssh,
given. A platform that cannot be read leaves the rest as it is and says why."""
import datetime
import glob
import hashlib
import json
import os
import re
import subprocess

from .platform import facts

ENGINES = ("build/librpma_apm.so", "build/librpma_gpspm.so")


def read(path, default="?"):
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return default


def output(cmd, default=""):
    """A program's output (its last newline off), or DEFAULT when it fails or is missing."""
    try:
        done = subprocess.run(cmd, capture_output=True, text=True)
    except OSError:
        return default
    return done.stdout.rstrip("\n") if done.returncode == 0 else default


def transport(dev):
    """An RDMA device's transport, as its sysfs says: an RNIC is iWARP; a CA is InfiniBand
    or, on an Ethernet link layer, RoCE."""
    node_type, link = read(f"{dev}/node_type", ""), read(f"{dev}/ports/1/link_layer", "")
    if "RNIC" in node_type:
        return "iWARP"
    if "CA" in node_type:
        return "RoCE" if link == "Ethernet" else link or "?"
    return "?"


def devices(sysroot="/"):
    """The RDMA devices' names, firmware, transport, link layer and rate: NAME=VALUE lists."""
    devs = sorted(glob.glob(os.path.join(sysroot, "sys/class/infiniband/*")))

    def each(fact):
        return " ".join(f"{os.path.basename(d)}={fact(d)}" for d in devs)
    return {"rdma devices": " ".join(os.path.basename(d) for d in devs),
            "firmware": each(lambda d: read(f"{d}/fw_ver")),
            "transport": each(transport),
            "link layer": each(lambda d: read(f"{d}/ports/1/link_layer")),
            "link rate": each(lambda d: read(f"{d}/ports/1/rate"))}


def cpu_model(cpuinfo="/proc/cpuinfo"):
    for line in read(cpuinfo, "").splitlines():
        m = re.match(r"model name[^:]*: (.*)", line)
        if m:
            return m.group(1)
    return ""


def git_revision(root):
    """The checked-out commit, read from .git without running git."""
    head = read(os.path.join(root, ".git/HEAD"), None)
    if head is None:
        return "unknown"
    if not head.startswith("ref:"):
        return head
    ref = head[len("ref: "):]
    commit = read(os.path.join(root, ".git", ref), None)
    if commit is not None:
        return commit
    for line in read(os.path.join(root, ".git/packed-refs"), "").splitlines():
        words = line.split()
        if len(words) == 2 and words[1] == ref:
            return words[0]
    return "" if os.path.exists(os.path.join(root, ".git/packed-refs")) else "unknown"


def engine_sums(root):
    """The engines' MD5 sums, 12 digits (those built)."""
    sums = ""
    for path in ENGINES:
        try:
            with open(os.path.join(root, path), "rb") as f:
                sums += f"{path}={hashlib.md5(f.read()).hexdigest()[:12]} "
        except OSError:
            pass
    return sums


def ddio_state(direct_write):
    """DDIO as the run declares it: env.json's when the platform cannot be read."""
    if direct_write == "1":
        return "declared off or not applicable (direct_write_to_pmem=1)"
    return "unknown (not measured; direct_write_to_pmem=0)"


def platform_facts(text, rc):
    """The facts a platform command printed (a dict), or why there are none (a string)."""
    try:
        found = json.loads(text)
    except ValueError:
        found = None
    if rc == "0" and isinstance(found, dict):
        return found
    last = (text.strip().splitlines() or ["no output"])[-1]
    return f"exit {rc}: {last}"


def environment(a):
    uname = os.uname()
    vm = os.environ.get("RPMA_TEST_ADDR")
    env = {"date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
           "host": uname.nodename, "kernel": uname.release, "cpu": cpu_model(),
           "cpus": str(len(os.sched_getaffinity(0))), **devices(),
           "server host": a.server_host, "server kernel": a.server_kernel or "same",
           "server cpu": a.server_cpu or "same", "fio": output(["fio", "--version"]),
           "engines": engine_sums(a.root),
           "perftest": output(["dpkg-query", "-W", "-f=${Version}", "perftest"], "?"),
           "git revision": git_revision(a.root), "server memory": a.mem,
           "direct_write_to_pmem": a.direct_write, "DDIO": ddio_state(a.direct_write),
           "in Soft-RoCE VM": (f"yes, accelerator {os.environ.get('SOFTROCE_VM_ACCEL') or 'unknown'}"
                               if vm else "no")}
    try:
        env.update(facts("/", a.mem, a.direct_write == "1"))  # its DDIO, read from the root port
    except Exception as e:  # (whatever stops it, the rest stands)
        env["platform"] = f"not read: exit 1: {type(e).__name__}: {e}"
    if a.server_platform_rc is not None:
        remote = platform_facts(a.server_platform, a.server_platform_rc)
        env["server platform"] = remote if isinstance(remote, dict) else "could not be read: " + remote
    return env


def cmd_env(args):
    print(json.dumps(environment(args), indent=1))
