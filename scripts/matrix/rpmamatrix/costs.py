# SPDX-License-Identifier: BSD-3-Clause
"""Per-I/O costs of a point: its cost run (runs/<id>-cost.*: verbs counted by
tests/tools/verbs_count.c, packets, fio's CPU) and its instructions run
(runs/<id>-instr.*: callgrind's count of the engine's callbacks, callgrind.py),
each divided by the run's I/Os."""
import json
import os
import re

from . import callgrind
from .common import warn
from .runs import load_fio_json

# per-I/O costs of a point's cost run (tests/tools/verbs_count.c, hw_counters, fio's CPU)
COST_COLUMNS = [
    "cost_ios", "client_posts_per_io", "client_send_wrs_per_io", "client_recv_wrs_per_io",
    "client_completions_per_io", "server_posts_per_io", "server_send_wrs_per_io",
    "server_recv_wrs_per_io", "server_completions_per_io", "packets_per_io",
    "client_cpu_us_per_io", "server_cpu_us_per_io",
    "client_instructions_per_io", "server_instructions_per_io", "persisted_per_byte_written"]

# what our engines say at a job's end (engines/client/io.c; engines/gpspm/server.c and hub.c)
CLIENT_PERSIST_RE = re.compile(r"wrote (\d+) bytes, asked to persist (\d+) bytes")
SERVER_PERSIST_RE = re.compile(r"served \d+ flush requests .*?(\d+) bytes (?:persisted|in DRAM)")


def read_verbs_counts(path):
    """The counts of tests/tools/verbs_count.c in PATH, summed over the processes that
    wrote a line (one fio process a side; its helper processes write zeros)."""
    total = {}
    with open(path) as f:
        for line in f:
            if not line.strip():
                continue
            rec = json.loads(line)
            if rec.get("mixed_providers"):
                raise ValueError(f"{path}: two RDMA providers in one process: not counted")
            for k, v in rec.items():
                if k not in ("pid", "mixed_providers"):
                    total[k] = total.get(k, 0) + int(v)
    return total


def fio_ios_and_cpu(path):
    """(I/Os, CPU seconds usr+sys) of all the jobs in a fio JSON document."""
    ios, cpu_s = 0, 0.0
    for job in load_fio_json(path)["jobs"]:
        ios += sum(job[d]["total_ios"] for d in ("read", "write"))
        cpu_s += (job["usr_cpu"] + job["sys_cpu"]) / 100 * job["job_runtime"] / 1000
    return ios, cpu_s


def cost_figures(folder, pt):
    """The per-I/O costs of a point's cost run (runs/<id>-cost.*), or {} when it did not
    run or failed. Divided by the client's I/Os: the connection's own work requests and
    packets are in the totals, a rounding error at 2000 I/Os."""
    stem = os.path.join(folder, "runs", pt["id"] + "-cost")
    if not os.path.exists(stem + ".json") or os.path.exists(stem + ".failed"):
        return {}
    try:
        ios, client_cpu = fio_ios_and_cpu(stem + ".json")
        if not ios:
            return {}
        fig = {"cost_ios": ios, "client_cpu_us_per_io": client_cpu / ios * 1e6}
        for side in ("client", "server"):
            path = f"{stem}.{side}.verbs.json"
            if not os.path.exists(path):
                continue
            c = read_verbs_counts(path)
            fig[side + "_posts_per_io"] = c["post_send_calls"] / ios
            fig[side + "_send_wrs_per_io"] = c["send_wrs"] / ios
            fig[side + "_recv_wrs_per_io"] = c["recv_wrs"] / ios
            fig[side + "_completions_per_io"] = c["completions"] / ios
        if os.path.exists(stem + ".server.json"):
            fig["server_cpu_us_per_io"] = fio_ios_and_cpu(stem + ".server.json")[1] / ios * 1e6
        if os.path.exists(stem + ".packets"):
            with open(stem + ".packets") as f:
                fig["packets_per_io"] = int(f.read().split()[0]) / ios
    except (ValueError, KeyError, IndexError, OSError) as e:
        warn(f"{stem}: cost run unreadable ({e})")
        return {}
    return fig


def instruction_figures(folder, pt):
    """Instructions per I/O of the engine's callbacks (runs/<id>-instr.*, run_matrix.sh
    --instructions), client and, where it was measured, server; {} when not run."""
    stem = os.path.join(folder, "runs", pt["id"] + "-instr")
    if not os.path.exists(stem + ".json") or os.path.exists(stem + ".failed"):
        return {}
    try:
        ios = fio_ios_and_cpu(stem + ".json")[0]
        if not ios:
            return {}
        fig = {}
        for side in ("client", "server"):
            path = f"{stem}.{side}.callgrind"
            if os.path.exists(path):
                fig[side + "_instructions_per_io"] = callgrind.engine_instructions(path) / ios
    except (ValueError, KeyError, IndexError, OSError) as e:
        warn(f"{stem}: instructions run unreadable ({e})")
        return {}
    return fig


def sum_of_matches(path, pattern):
    """The sums of each group of pattern over the lines of path, or None when no line
    matches (or there is no such file)."""
    sums = None
    try:
        with open(path, errors="replace") as f:
            for m in (pattern.search(line) for line in f):
                if m:
                    got = [int(g) for g in m.groups()]
                    sums = got if sums is None else [a + b for a, b in zip(sums, got)]
    except OSError:
        return None
    return sums


def peer_persist_figures(folder, pt):
    """Bytes persisted per byte written by the peer's engines, which count none
    themselves: in the point's cost run, verbs_count.c's sums of what they asked for --
    GPSPM, the lengths its server gave libpmem's pmem_persist(); APM, the lengths of the
    client's rpma_flush() calls -- over the bytes the client's fio wrote. {} for a read,
    no-flush or a cost run that did not count."""
    if pt["method"].startswith("gpspm"):
        side, key = "server", "persist_bytes"
    elif pt["method"] == "apm":
        side, key = "client", "flush_bytes"
    else:
        return {}
    stem = os.path.join(folder, "runs", pt["id"] + "-cost")
    try:
        written = sum(job["write"]["io_bytes"] for job in load_fio_json(stem + ".json")["jobs"])
        asked = read_verbs_counts(f"{stem}.{side}.verbs.json").get(key)
    except (ValueError, KeyError, OSError):
        return {}
    if not written or asked is None:
        return {}
    return {"persisted_per_byte_written": asked / written}


def persist_figures(folder, pt):
    """Bytes persisted per byte written in the point's first run, from our engines' own
    counts: GPSPM, the bytes its server persisted (or, on DRAM, was asked to); APM, the
    bytes the client's flushes named (native FLUSH: their lengths; emulated: the writes a
    read makes durable). The peer's: peer_persist_figures."""
    if pt.get("impl") == "peer":
        return peer_persist_figures(folder, pt)
    stem = os.path.join(folder, "runs", pt["id"] + "-r1")
    client = sum_of_matches(stem + ".client.log", CLIENT_PERSIST_RE)
    if client is None or client[0] == 0:
        return {}
    written, asked = client
    if pt["method"].startswith("gpspm"):
        server = sum_of_matches(stem + ".server.log", SERVER_PERSIST_RE)
        if server is None:
            return {}
        asked = server[0]
    return {"persisted_per_byte_written": asked / written}


def point_costs(folder, pt):
    """Every per-I/O cost of a point ({} for perftest's: it has no cost run)."""
    if pt["method"] == "raw":
        return {}
    costs = cost_figures(folder, pt)
    costs.update(instruction_figures(folder, pt))
    costs.update(persist_figures(folder, pt))
    return costs
