# SPDX-License-Identifier: BSD-3-Clause
"""The measured runs of a point (runs/<id>-r<N>.*): fio's JSON, one host's or that of
fio's client/server mode, the server's CPU, and perftest's result line, as figures; and
a bench's run as its line of the bench's table (scripts/matrix/bench_lib.sh)."""
import json
import os
import re
from collections import namedtuple

from .common import KIB, append_tsv, die, warn
from .plan import raw_tool


def load_fio_json(path):
    """fio's JSON document in PATH: fio may print notes (errors) before it."""
    with open(path) as f:
        text = f.read()
    return json.loads(text[text.index("{"):])


def fio_result(doc):
    """The group-reported result of a client's fio JSON: its job's, or with fio's
    client/server mode (--client=HOST ...) the one of all the client hosts (fio's
    'All clients'; with one host, that host's)."""
    if "client_stats" not in doc:
        return doc["jobs"][0]
    stats = doc["client_stats"]
    return next((s for s in stats if s.get("jobname") == "All clients"), stats[-1])


def fio_figures(path, rw):
    """(iops, bw MiB/s, mean latency us, p99 us, {percentile: us}) of a client's fio JSON."""
    job = fio_result(load_fio_json(path))
    dirs = ["read", "write"] if rw == "rw" else [rw]
    iops = sum(job[d]["iops"] for d in dirs)
    bw = sum(job[d]["bw_bytes"] for d in dirs) / (KIB * KIB)
    ios = sum(job[d]["total_ios"] for d in dirs) or 1
    lat = sum(job[d]["lat_ns"]["mean"] * job[d]["total_ios"] for d in dirs) / ios / 1000
    # total latency's percentiles (lat_percentiles=1) where fio has them, else completion's
    p99s = [(job[d]["lat_ns"].get("percentile") or job[d]["clat_ns"].get("percentile") or {})
            .get("99.000000") for d in dirs]
    # (fio's 'All clients' of the client/server mode has no percentiles)
    p99 = max(p99s) / 1000 if None not in p99s else None
    return float(iops), float(bw), float(lat), p99, fio_percentiles(job, dirs)


def fio_percentiles(job, dirs):
    """{percentile: us} of fio's latency percentiles (total latency where fio has it,
    else completion latency); of a mixed job, the slower direction's at each one."""
    tables = [job[d]["lat_ns"].get("percentile") or job[d]["clat_ns"].get("percentile") or {}
              for d in dirs]
    if not all(tables):
        return {}
    common = set.intersection(*(set(t) for t in tables))
    return {float(p): max(t[p] for t in tables) / 1000 for p in common}


def server_cpu(path):
    """usr + sys CPU % of the server's jobs (GPSPM servers do the flushing)."""
    if not os.path.exists(path):
        return None
    try:
        jobs = load_fio_json(path)["jobs"]
    except (ValueError, KeyError):
        return None
    return jobs_cpu_pct(jobs)


def jobs_cpu_pct(jobs):
    """usr + sys CPU % of fio's JOBS, summed."""
    return sum(j["usr_cpu"] + j["sys_cpu"] for j in jobs)


def append_run(tsv, columns, row_of, stem, *words):
    """A bench's run STEM (STEM.json the client's fio JSON, STEM.server.json the
    server's) as its line of the table TSV: ROW_OF(the client's write figures, the
    server's jobs, *WORDS), appended; a run without its figures dies naming it."""
    try:
        write = load_fio_json(stem + ".json")["jobs"][0]["write"]
        jobs = load_fio_json(stem + ".server.json")["jobs"]
        row = row_of(write, jobs, *words)
    except (OSError, ValueError, KeyError, IndexError) as e:
        die(f"run {stem}: no figures ({type(e).__name__}: {e})")
    append_tsv(tsv, columns, row)


def perftest_figures(path, bs, tool):
    """(iops, bw MiB/s, mean latency us, p99 us) from perftest's result line."""
    with open(path) as f:
        for line in f:
            cols = line.split()
            if len(cols) >= 5 and cols[0] == str(bs) and re.fullmatch(r"[0-9.]+", cols[2]):
                vals = [float(c) for c in cols]
                if tool.endswith("_lat"):  # bytes iters min max typical avg stdev p99 p99.9
                    lat = vals[5]
                    return (1e6 / lat, bs * 1e6 / lat / (KIB * KIB), lat, vals[7],
                            {50.0: vals[4], 99.0: vals[7], 99.9: vals[8]})
                # bytes iters peak avg[MB/s] msgrate[Mpps]
                return vals[4] * 1e6, vals[3], None, None, {}
    raise ValueError(f"{path}: no result line for {bs} bytes")


# one run's figures (latencies in us, server CPU in %, percentiles {pct: us})
RunFigures = namedtuple("RunFigures", "iops bw_mib_s lat_mean_us lat_p99_us server_cpu_pct percentiles")


def point_runs_by_rep(folder, pt):
    """{run number: figures} of every successful run of a point (run r of ours and of the
    peer's twin were measured one after the other: a pair)."""
    runs = {}
    base = os.path.join(folder, "runs", pt["id"])
    rep = 1
    while True:
        stem = f"{base}-r{rep}"
        if pt["method"] == "raw":
            path = stem + ".perftest.txt"
        else:
            path = stem + ".json"
        if not os.path.exists(path) and not os.path.exists(stem + ".failed"):
            break
        if os.path.exists(path) and not os.path.exists(stem + ".failed"):
            try:
                if pt["method"] == "raw":
                    *fig, pcts = perftest_figures(path, int(pt["bs"]),
                                                  raw_tool(pt["rw"], int(pt["sync"])))
                    cpu = None
                else:
                    *fig, pcts = fio_figures(path, pt["rw"])
                    cpu = server_cpu(stem + ".server.json")
                runs[rep] = RunFigures(*fig, cpu, pcts)
            except (ValueError, KeyError, IndexError) as e:
                warn(f"{path}: unreadable ({e})")
        rep += 1
    return runs
