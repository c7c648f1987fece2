# SPDX-License-Identifier: BSD-3-Clause
"""The report subcommand: a result folder made from the fio JSON of the sweep job files
(jobs/sweep.fio, a client's and, next to it, its server's), one point per section and
method, then built like any other folder."""
import json
import os
import re

from .common import FIO_METHODS, PLAN_COLUMNS, PROG, die, parse_size
from .report import build
from .runs import load_fio_json

# the sections of jobs/sweep.fio (scripts/gen_sweep_jobs.py): write-bs4k-qd16
SWEEP_SECTION = re.compile(r"(write|read)-bs([1-9][0-9]*[kKmM]?)-qd([1-9][0-9]*)")
SWEEP_FIO_RW = {"write": ("randwrite", "write"), "read": ("randread", "read")}


def read_sweep_json(path, side):
    """fio's JSON output of one side ("client" or "server") of the sweep."""
    not_fio = (f"{path}: not fio's JSON output (run the {side} with --output-format=json "
               "--output=FILE)")
    try:
        doc = load_fio_json(path)
    except OSError as e:
        die(f"{path}: {e.strerror}")
    except ValueError:
        die(not_fio)
    if not isinstance(doc, dict) or "fio version" not in doc or \
            not isinstance(doc.get("jobs"), list):
        die(not_fio)
    if not doc["jobs"]:
        die(f"{path}: fio ran no job")
    if ((doc.get("global options") or {}).get("mode") == "server") != (side == "server"):
        die(f"{path}: not the JSON of a {side} side: give the client's JSON (fio --ioengine=... "
            "jobs/sweep.fio --output-format=json --output=NAME.json); the server's may sit "
            "next to it as NAME.server.json")
    return doc


def sweep_method(path, opts, server_opts):
    """The method of a client job from its engine, no_flush and its server's polling."""
    engine = os.path.basename(opts.get("ioengine", ""))
    if engine.startswith("librpma_apm"):
        if opts.get("no_flush") == "1":
            return "noflush"
        return "apm-native" if opts.get("native_flush") == "1" else "apm"
    if engine.startswith("librpma_gpspm"):
        # the sweep's GPSPM server polls unless told otherwise (SERVER_BUSY_WAIT=1)
        return {"0": "gpspm-sleep", "adaptive": "gpspm-adaptive"}.get(
            server_opts.get("busy_wait_polling"), "gpspm-busy")
    die(f"{path}: ioengine '{opts.get('ioengine', '')}' is not an rpma-fio engine "
        f"(build/librpma_apm.so, build/librpma_gpspm.so): name the method, e.g. apm={path}")


def sweep_jobs(arg):
    """One [METHOD=]FIO_JSON of the sweep's client (and NAME.server.json next to it, if
    any): its document, its server's (or None) and (method, point key, job, server
    jobs) of each of its jobs."""
    method, sep, path = arg.partition("=")
    if not sep or method not in FIO_METHODS:
        method, path = None, arg
    doc = read_sweep_json(path, "client")
    server_path = re.sub(r"\.json$", ".server.json", path)
    server = None
    if server_path != path and os.path.exists(server_path):
        server = read_sweep_json(server_path, "server")
    server_opts = (server or {}).get("global options") or {}
    server_jobs = {}
    for job in (server or {}).get("jobs", []):
        server_jobs.setdefault(job.get("jobname"), []).append(job)
    out, seen = [], set()
    for job in doc["jobs"]:
        name = job.get("jobname", "")
        m = SWEEP_SECTION.fullmatch(name)
        if not m:
            die(f"{path}: job '{name}' is not a section of the sweep (jobs/sweep.fio names "
                "them like write-bs4k-qd16): give the JSON of jobs/sweep.fio")
        if name in seen:
            die(f"{path}: job '{name}' appears twice: run the client with group_reporting=1 "
                "(jobs/client.inc sets it)")
        seen.add(name)
        opts = dict(doc.get("global options") or {})
        opts.update(job.get("job options") or {})
        rw, bs, qd = m.group(1), parse_size(m.group(2)), int(m.group(3))
        for opt, ok in (("rw", SWEEP_FIO_RW[rw]), ("bs", (m.group(2), str(bs))),
                        ("iodepth", (str(qd),))):
            if opt in opts and opts[opt] not in ok:
                die(f"{path}: job '{name}' ran with {opt}={opts[opt]}, not what its name says")
        sync = 1 if opts.get("sync", "1" if qd == 1 else "0") in ("1", "sync") else 0
        key = (rw, bs, qd, sync, int(opts.get("numjobs", "1")))
        out.append((method or sweep_method(path, opts, server_opts), key, job,
                    server_jobs.get(name)))
    return doc, server, out


def fio_doc(doc, jobs, source):
    """A fio JSON document holding some of DOC's jobs, as the matrix runner keeps one run."""
    one = {k: doc[k] for k in ("fio version", "timestamp", "time", "global options") if k in doc}
    one.update({"rpma-fio source": source, "jobs": jobs})
    return one


def cmd_report(args):
    """A result folder from fio JSON of the sweep: one point per (method, section); the
    same point in several files makes several runs of it. Then built like any other."""
    folder = args.out
    if os.path.exists(os.path.join(folder, "plan.tsv")):
        die(f"{folder} already holds results: give a new folder")
    runs, docs, servers = {}, {}, {}
    for arg in args.files:
        if arg in docs:
            die(f"{arg} is given twice")
        docs[arg], servers[arg], jobs = sweep_jobs(arg)
        for method, key, job, server_jobs in jobs:
            runs.setdefault((method,) + key, []).append((arg, job, server_jobs))
    order = {m: i for i, m in enumerate(FIO_METHODS)}
    points = sorted(runs, key=lambda k: (order[k[0]], k[1] != "write") + k[2:])
    os.makedirs(os.path.join(folder, "runs"), exist_ok=True)
    failed = []
    with open(os.path.join(folder, "plan.tsv"), "w") as f:
        f.write("\t".join(PLAN_COLUMNS) + "\n")
        for i, point in enumerate(points, 1):
            pid = f"p{i:03d}"
            method, rw, bs, qd, sync, numjobs = point
            f.write("\t".join(map(str, [pid, "ours", method, "sweep", rw, bs, qd, sync, numjobs, 1, 0]))
                    + "\n")
            for rep, (arg, job, server_jobs) in enumerate(runs[point], 1):
                stem = os.path.join(folder, "runs", f"{pid}-r{rep}")
                with open(stem + ".json", "w") as out:
                    json.dump(fio_doc(docs[arg], [job], arg), out, indent=1)
                if server_jobs:
                    with open(stem + ".server.json", "w") as out:
                        json.dump(fio_doc(servers[arg], server_jobs, arg), out, indent=1)
                if job.get("error"):
                    failed.append(f"{job['jobname']} of {arg}")
                    with open(stem + ".failed", "w") as out:
                        out.write(f"fio job {job['jobname']} of {arg} failed: error "
                                  f"{job['error']}\n")
    total = sum(len(r) for r in runs.values())
    with open(os.path.join(folder, "status"), "w") as f:
        f.write(f"partial ({len(failed)} of {total} sections failed: {', '.join(failed)})\n"
                if failed else "complete\n")
    first = docs[args.files[0]]
    with open(os.path.join(folder, "env.json"), "w") as f:
        json.dump({"date": first.get("time", "?"), "fio": first.get("fio version", "?"),
                   "measured by": "the sweep job files (jobs/sweep.fio); platform not "
                   "recorded"}, f, indent=1)
    options = {"command": args.command or f"{PROG} report " + " ".join(args.files),
               "source": "fio JSON of jobs/sweep.fio, one run per section"}
    for arg, doc in docs.items():
        g = doc.get("global options") or {}
        sg = (servers[arg] or {}).get("global options") or {}
        options[arg] = ", ".join(
            [f"{k}={g[k]}" for k in ("ioengine", "no_flush", "serverip", "runtime", "ramp_time",
                                     "numjobs") if k in g] +
            [f"server {k}={sg[k]}" for k in ("filename", "size", "busy_wait_polling",
                                             "direct_write_to_pmem") if k in sg] +
            ([] if servers[arg] else ["no server JSON"]))
    with open(os.path.join(folder, "options.json"), "w") as f:
        json.dump(options, f, indent=1)
    build(folder)
