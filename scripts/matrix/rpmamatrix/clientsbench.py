# SPDX-License-Identifier: BSD-3-Clause
"""The clients-bench subcommand: scripts/bench_clients.sh's runs (clients.tsv) as a
Markdown table of what a GPSPM server spends per I/O as its clients grow: ours, one job
for all of them (clients_per_job=N), busy polling and sleeping, against fio 3.33's
server, a busy-polling job per client; and the line of clients.tsv each run adds (the
clients-row subcommand)."""
import statistics

from .common import read_tsv, table_head, write_md
from .runs import append_run

SERVERS = [("hub-busy", "ours, 1 job, busy"), ("hub-sleep", "ours, 1 job, sleeping"),
           ("peer-busy", "fio 3.33, a job per client, busy"),
           ("hub-busy-control", "control build, 1 job, busy"),
           ("hub-sleep-control", "control build, 1 job, sleeping")]
COLUMNS = ["round", "clients", "server", "server_jobs", "iops", "ios", "server_cpu_s",
           "server_cpu_us_per_io"]


def read_runs(path):
    return read_tsv(path, COLUMNS)


def cpu_seconds(jobs):
    """The CPU time of fio's JOBS in seconds: each one's usr + sys % over its runtime."""
    return sum((j["usr_cpu"] + j["sys_cpu"]) / 100 * j["job_runtime"] / 1000 for j in jobs)


def run_row(write, server_jobs, rnd, clients, server):
    """clients.tsv's line of a run (ROUND, CLIENTS, SERVER) from fio's JSON: the clients'
    WRITE figures (IOPS, I/Os; none is an error) and the server's jobs, CPU time and that
    time per I/O."""
    ios = write["total_ios"]
    if ios <= 0:
        raise ValueError("no I/O")
    cpu_s = cpu_seconds(server_jobs)
    return [rnd, clients, server, len(server_jobs), f"{write['iops']:.1f}", ios, f"{cpu_s:.4f}",
            f"{cpu_s * 1e6 / ios:.2f}"]


def medians(rows):
    """{(clients, server): {"iops", "cpu_us", "jobs", "runs"}}: medians of the rounds."""
    groups = {}
    for r in rows:
        groups.setdefault((int(r["clients"]), r["server"]), []).append(r)
    return {k: {"iops": statistics.median(float(r["iops"]) for r in v),
                "cpu_us": statistics.median(float(r["server_cpu_us_per_io"]) for r in v),
                "cpu_s": statistics.median(float(r["server_cpu_s"]) for r in v),
                "jobs": v[0]["server_jobs"], "runs": len(v)} for k, v in groups.items()}


def growth(med, server, counts):
    """CPU per I/O at the most clients over that at the fewest (None without both)."""
    lo, hi = med.get((counts[0], server)), med.get((counts[-1], server))
    if not lo or not hi or lo["cpu_us"] <= 0:
        return None
    return hi["cpu_us"] / lo["cpu_us"]


def control_lines(med, counts):
    """With a control build (bench_clients.sh --control): ours over it, CPU per I/O."""
    lines = []
    for mode, name in (("busy", "busy"), ("sleep", "sleeping")):
        pairs = [(c, med.get((c, f"hub-{mode}")), med.get((c, f"hub-{mode}-control")))
                 for c in counts]
        cells = [f"{c}: {o['cpu_us'] / k['cpu_us']:.2f}x" for c, o, k in pairs
                 if o and k and k["cpu_us"] > 0]
        if cells:
            lines.append(f"Server CPU per I/O, ours over the control build, {name}: "
                         + ", ".join(cells) + " clients.")
    return lines + [""] if lines else []


def clients_md(rows):
    med = medians(rows)
    counts = sorted({c for c, _ in med})
    servers = [(s, label) for s, label in SERVERS if any((c, s) in med for c in counts)]
    md = table_head(["clients"] + [f"{label}: {what}" for _, label in servers
                                    for what in ("IOPS", "server CPU us/I/O")]
                    + ["ours busy / fio 3.33 (CPU per I/O)"])
    for c in counts:
        cells = [str(c)]
        for s, _ in servers:
            m = med.get((c, s))
            cells += [f"{m['iops']:.0f}", f"{m['cpu_us']:.1f}"] if m else ["-", "-"]
        ours, peer = med.get((c, "hub-busy")), med.get((c, "peer-busy"))
        cells.append(f"{ours['cpu_us'] / peer['cpu_us']:.2f}x" if ours and peer and peer["cpu_us"] > 0
                     else "-")
        md.append("| " + " | ".join(cells) + " |")
    md.append("")
    md += ["The server's CPU time over a whole run, in seconds (each client writes the same "
           "number of I/Os, so the work grows with the clients):", ""]
    md += table_head(["clients"] + [label for _, label in servers])
    for c in counts:
        md.append("| " + " | ".join([str(c)] + [f"{med[(c, s)]['cpu_s']:.2f}" if (c, s) in med
                                                 else "-" for s, _ in servers]) + " |")
    md.append("")
    if len(counts) > 1:
        md += [f"Server CPU per I/O at {counts[-1]} clients against {counts[0]}: " + "; ".join(
            f"{label} {g:.2f}x" for (s, label), g in ((sl, growth(med, sl[0], counts)) for sl in servers)
            if g is not None) + ".", ""]
    md += control_lines(med, counts)
    runs = sorted({m["runs"] for m in med.values()})
    md += [f"Medians of {'/'.join(map(str, runs))} rounds a cell.", ""]
    return md


def cmd_clients_bench(args):
    write_md(args.out, clients_md(read_runs(args.tsv)))


def cmd_clients_row(args):
    append_run(args.tsv, COLUMNS, run_row, args.stem, args.round, args.clients, args.server)
