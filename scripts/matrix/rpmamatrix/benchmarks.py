# SPDX-License-Identifier: BSD-3-Clause
"""The benchmarks subcommand: docs/BENCHMARKS.md from a result folder of
run_matrix.sh --impl ours,peer (make bench): the measured figures (IOPS, latency) ours
against the peer's as a ratio with the sign test's interval over the interleaved pairs,
its coverage and a verdict (verdicts.py); the counted ones (per I/O: exact) against their
targets."""
import os
import re

from .aggregate import paired_figure, peer_pairs, summarize
from .common import die, fmt, point_label, read_json, table_head
from .clientsbench import clients_md, read_runs as read_client_runs
from .polling import polling_md, read_runs
from .reproduce import reproduce_section
from .sequential import verdicts_coverage
from .signtest import order_for
from .verdicts import (AHEAD, BEHIND, EQUAL, LEVEL, MIN_PAIRS, coverage_pct, interval_text, interval_verdict,
                       margin_of, verdict)

# docs/BENCHMARKS.md: (figure, title, better (+1 higher, -1 lower), digits, target)
BENCH_FIGURES = [
    ("iops_median", "IOPS", +1, 0, "iops"),
    ("lat_mean_us_median", "mean latency, us", -1, 1, "le1"),
    ("lat_p99_us_median", "p99 latency, us", -1, 1, "le1"),
    ("client_posts_per_io", "client post calls (doorbells) per I/O", -1, 2, "le1"),
    ("client_send_wrs_per_io", "client work requests per I/O", -1, 2, None),
    ("client_completions_per_io", "client completions per I/O", -1, 2, None),
    ("server_posts_per_io", "server post calls per I/O", -1, 2, None),
    ("server_recv_wrs_per_io", "server receive work requests per I/O", -1, 2, None),
    ("packets_per_io", "packets on the wire per I/O", -1, 2, "packets"),
    ("client_cpu_us_per_io", "client CPU per I/O (cost run: ours sleeps on its completions, "
     "the peer's client busy-polls), us", -1, 1, None),
    ("server_cpu_us_per_io", "server CPU per I/O (cost run), us", -1, 1, None),
    ("client_instructions_per_io", "client instructions per I/O (engine + library, callgrind, "
     "fio's own code they call left out; ours sleeps on its completions, the peer's client "
     "busy-polls: its loop counts)", -1, 0,
     "instr"),
    ("server_instructions_per_io", "GPSPM server instructions per I/O (engine + library, "
     "callgrind, fio's own code they call left out, both servers sleeping)", -1, 0, "instr"),
    ("persisted_per_byte_written", "bytes persisted per byte written (ours: the GPSPM "
     "server's count, APM's flushes; the peer's: its pmem_persist() and rpma_flush() "
     "lengths, counted in its cost run)", -1, 2, None),
]


def batched_4k_randwrite(r):
    return r["rw"] == "write" and r["bs"] == "4096" and r["sync"] == "0" and int(r["iodepth"]) >= 8


def bench_target(kind, r):
    """(ratio ours/peer must reach, text) of a figure at point r, or (None, "")."""
    if kind == "iops":
        return 1.0, ">= 1.00x"
    if kind == "le1":
        return 1.0, "<= 1.00x"
    if kind == "instr":
        return 0.8, "<= 0.80x"
    if kind == "packets":
        return (0.8, "<= 0.80x") if batched_4k_randwrite(r) else (1.0, "<= 1.00x")
    return None, ""


def count_verdict(better, target, o, p):
    """An exact count against its target: met or missed."""
    x = o / p
    return "met" if (better > 0 and x >= target) or (better < 0 and x <= target) else "**missed**"


def measured_line(o, p, col, better, digits, margin_pct):
    """A table line of a figure of the measured runs (median (min..max) a side, the
    ratio of the pairs with its interval, the verdict beyond +-MARGIN_PCT), and the
    verdict's word."""
    def cell(r):
        return (f"{fmt(r[col], digits)} ({fmt(r[col.replace('_median', '_min')], digits)}.."
                f"{fmt(r[col.replace('_median', '_max')], digits)})"
                if r.get(col.replace("_median", "_min")) is not None else fmt(r[col], digits))
    interval = paired_figure(o, p, col[:-len("_median")])
    line = (f"| {point_label(o)} | {cell(o)} | {cell(p)} | {interval_text(interval)} | "
            f"{interval_verdict(interval, better, margin_pct)} |")
    return line, verdict(interval, better, margin_pct)


def count_line(o, p, col, better, digits, kind):
    """A table line of a per-I/O count (exact: no interval) against its target."""
    # counts per I/O as shown: what is below the last digit is the connection's own
    # requests and packets, not the I/O's
    ov, pv = round(o[col], digits), round(p[col], digits)
    target, text = bench_target(kind, o)
    x = "" if not pv else f"{ov / pv:.2f}x"
    v = "" if target is None or not pv else count_verdict(better, target, ov, pv)
    return f"| {point_label(o)} | {fmt(ov, digits)} | {fmt(pv, digits)} | {x} | {text} | {v} |"


def figure_tables(pairs, margin_pct, level="##"):
    """The Markdown of every figure's table (headings at LEVEL), and the count of each
    verdict of IOPS."""
    md, tally = [], {}
    for col, title, better, digits, kind in BENCH_FIGURES:
        lines = []
        for o, p in pairs:
            if o.get(col) is None or p.get(col) is None:
                continue
            if col.endswith("_median"):
                line, (word, _) = measured_line(o, p, col, better, digits, margin_pct)
                if col == "iops_median":
                    tally[word] = tally.get(word, 0) + 1
            else:
                line = count_line(o, p, col, better, digits, kind)
            lines.append(line)
        if not lines:
            continue
        head = (["point", "ours", "peer", "ours/peer (interval, pairs, coverage)", "verdict"]
                if col.endswith("_median") else ["point", "ours", "peer", "ours/peer", "target", "verdict"])
        md += [f"{level} {title}", ""] + table_head(head) + lines + [""]
    return md, tally


def tally_line(pairs, tally, margin_pct):
    return (f"{len(pairs)} points: ours ahead by more than {margin_pct:g}% at {tally.get(AHEAD, 0)}, "
            f"equal within the stated margin at {tally.get(EQUAL, 0)}, behind by more than "
            f"{margin_pct:g}% at {tally.get(BEHIND, 0)}"
            + (f", undecided at {tally['undecided']}" if tally.get("undecided") else "") + ".")


def sequence_note(options):
    """What stopping at the first decided look does to the verdicts, from the run's
    --repeats and --max-repeats (sequential.py)."""
    if pairs_range(options) is None:
        return ""
    first, cap = pairs_range(options)
    together = verdicts_coverage(first, cap)
    if together is None or cap <= max(first, MIN_PAIRS):
        return ""
    return (f"; the IOPS verdict is looked at after each pair from {max(first, MIN_PAIRS)} to "
            f"{cap} and stops at the first that decides: all those looks' intervals cover the "
            f"true ratio together with probability {together:.1%} (exact), the least chance "
            "that a verdict is right")


def pairs_range(options):
    """(--repeats, --max-repeats) of the run, or None when options.json lacks them."""
    try:
        return int(options["repeats"]), int(options.get("max_repeats", options["repeats"]))
    except (KeyError, TypeError, ValueError):
        return None


def intervals_section(options):
    """How the measured figures' intervals and verdicts are made: the method, what its
    coverage means, how many pairs, and the coverage at each n (computed, exact)."""
    first, cap = pairs_range(options) or (MIN_PAIRS, 12)
    md = ["## How the verdicts are made", "",
          "- **The interval: the sign test's**, of the median of the pairs' ratios "
          "ours/peer (`scripts/matrix/rpmamatrix/signtest.py`). Of the n ratios sorted, the "
          "k-th smallest and the k-th largest bound it, k the largest whose coverage reaches "
          f"{LEVEL:.0%}. Its **coverage** is the probability that an interval made so contains "
          "the true median ratio (the ratio a pair is as likely to be above as below): "
          "1 - 2 P(binomial(n, 1/2) <= k - 1), exact for any distribution of the ratios as "
          "long as the pairs are independent. Only a few coverages exist at each n, so each "
          "interval states n and its own, `1.10x (1.04..1.18, n=9, 96.1%)`.",
          f"- **The margin: +-{margin_of(options):g}%** (`--margin`). **Ahead** or **behind** "
          "only when the whole interval lies beyond it (ahead: its low end above "
          f"{1 + margin_of(options) / 100:.2f}x), else **equal within +-X%**, X the interval's "
          "farther end. An interval covers one run's noise, not a point's drift from one day "
          "to the next: where ours leads by 3% to 8%, a low end just above 1.00x one day is "
          "just below it the next, and a verdict at 1.00x flips. A margin as wide as that "
          "drift makes the verdict one that reproduces (\"Against the previous run\" below).",
          f"- **n**: {first} pairs, then one more at a time until the IOPS interval decides "
          "(it lies beyond the margin: ahead or behind; or within it: equal) or "
          f"{cap} pairs have run (`run_matrix.sh --repeats`, `--max-repeats`, `--margin`; "
          "the runner asks `matrix decide` after each pair). No interval of fewer than "
          f"{MIN_PAIRS} pairs reaches {LEVEL:.0%} (5 pairs' [min..max] covers 93.75%): there "
          "the verdict is **undecided**, the interval shown with its coverage.",
          "- **Why not a bootstrap**: the 95% bootstrap interval of the median used before "
          "was [min..max] of 5 pairs and the 2nd smallest to the 2nd largest ratio of 7 or 8, "
          "which cover 93.75%, 87.5% and 93.0%; two runs of make bench the same day "
          "disagreed. **Why not Wilcoxon's signed-rank interval** (narrower): it "
          "assumes ratios symmetric about their centre, and a stall of the host makes one "
          "pair's ratio wild on the side of whichever run met it.", ""]
    md += table_head(["pairs n", "interval: ratios k..n+1-k of the sorted", "coverage"])
    for n in range(max(2, min(first, MIN_PAIRS - 1)), cap + 1):
        k, cov = order_for(n, LEVEL)
        md.append(f"| {n} | {k}..{n + 1 - k} | {coverage_pct(cov):.1f}%"
                  + ("" if cov >= LEVEL else f" (below {LEVEL:.0%}: undecided)") + " |")
    return md + [""]


def host_command(options):
    """The command line as typed on the host (the VM's re-run adds --in-vm --out DIR)."""
    cmd = str(options.get("command", "scripts/run_matrix.sh"))
    cmd = re.sub(r" --in-vm| --out \S+", "", cmd)
    return cmd.replace("run_matrix.sh", "scripts/run_matrix.sh", 1) if cmd.startswith("run_matrix.sh") else cmd


def benchmarks_md(folder, rows):
    env = read_json(os.path.join(folder, "env.json"), {})
    options = read_json(os.path.join(folder, "options.json"), {})
    pairs = peer_pairs(rows)
    if not pairs:
        die(f"{folder}: no point measured with both ours and the peer (run_matrix.sh --impl ours,peer)")
    md = ["# rpma-fio vs the peer: benchmarks", "",
          "rpma-fio's engines (\"ours\") against fio 3.33's in-tree `librpma_*` engines over "
          "upstream librpma 1.2.0 (\"peer\", `build/peer/fio`, see docs/interop.md), the same "
          "methods at the same points, measured by one pipeline: `scripts/run_matrix.sh --impl "
          "ours,peer`. Generated by `make bench` (`scripts/matrix/matrix benchmarks`); do not "
          "edit by hand.", "",
          "**Under TCG (the VM's accelerator below) the IOPS and latencies compare two "
          "implementations on the same emulated device; they do not predict hardware. The "
          "per-I/O counts (post calls, work requests, completions, packets) are exact on any "
          "machine.**", "", "## How it was made", "",
          "```sh", "make bench", "# which runs:", host_command(options), "```", ""]
    for k in ("date", "git revision", "in Soft-RoCE VM", "kernel", "cpu", "cpus", "fio",
              "server memory"):
        if k in env:
            md.append(f"- {k}: {env[k]}")
    margin = options.get("margin_pct", "?")
    md += [f"- runs: interleaved, ours then the peer's at each point, a pair at a time; "
           f"{options.get('repeats', '?')} to {options.get('max_repeats', options.get('repeats', '?'))} "
           f"pairs a point, more until the IOPS verdict is decided (margin {margin}%); "
           f"{options.get('runtime', '?')} s measured after {options.get('ramp', '?')} s of warm-up; "
           "clients and GPSPM servers busy-poll",
           "- the measured figures (IOPS, latency): median (min..max) a side; ours/peer is the "
           "median of the pairs' ratios with the sign test's interval of it: order statistics "
           "of the n pairs' ratios, the narrowest whose exact coverage of the true median "
           f"ratio reaches {LEVEL:.0%} (`scripts/matrix/rpmamatrix/signtest.py`), stated with n "
           f"and that coverage; **ahead** or **behind** only when such an interval lies beyond "
           f"+-{margin}% of 1.00x, else **equal within +-X%**, X the interval's farther end; **undecided** "
           f"below {MIN_PAIRS} pairs ([min..max] of 5 covers 93.75%)" + sequence_note(options),
           "- one cost run a point and implementation: 2000 I/Os a job (8 MiB for larger "
           "blocks), counted by `tests/tools/verbs_count.c` preloaded into both sides' fio and "
           "by the RDMA device's `sent_pkts` (docs/matrix.md, Per-I/O costs): exact, so "
           "against a target without an interval",
           "- writes are random writes (`jobs/randwrite.fio` for ours, `--rw=randwrite` for the "
           "peer); batched points post `iodepth` I/Os at a time and reap them all before the next "
           "batch (`iodepth_batch_submit = iodepth_batch_complete_min = iodepth`), `sync=0`", ""]
    tables, tally = figure_tables(pairs, margin_of(options))
    md += intervals_section(options)
    md += ["## IOPS verdicts at a glance", "", tally_line(pairs, tally, margin_of(options)), ""]
    md += tables
    if not any(o.get("client_instructions_per_io") is not None for o, _ in pairs):
        md += ["## Not measured", "",
               "- user-space instructions per I/O (run_matrix.sh --instructions): not in "
               "this run.", ""]
    return md


def pmem_section(folder):
    """GPSPM on persistent memory: a second folder of run_matrix.sh --impl ours,peer,
    its servers on the VM's emulated NVDIMM (device DAX), where they persist for real."""
    pairs = peer_pairs(summarize(folder))
    if not pairs:
        die(f"{folder}: no point measured with both ours and the peer")
    env = read_json(os.path.join(folder, "env.json"), {})
    options = read_json(os.path.join(folder, "options.json"), {})
    tables, tally = figure_tables(pairs, margin_of(options), level="###")
    return (["## GPSPM on persistent memory (device DAX)", "",
             "The same pipeline in the same `make bench`, the servers' memory on "
             f"{env.get('server memory', 'device DAX')}: the GPSPM server persists what it is "
             "asked to (CPU cache write-backs), ours the batch's written ranges, the peer's "
             "each write, so its CPU per I/O and the bytes persisted per byte written are "
             "the method's real cost. The same verdict rules as above.", "",
             "```sh", host_command(options), "```", "", tally_line(pairs, tally, margin_of(options)), ""]
            + tables)


def polling_section(tsv):
    """The GPSPM server's polling modes, ours (scripts/bench_polling.sh's runs)."""
    return ["## The GPSPM server's polling modes (ours)", "",
            "`scripts/bench_polling.sh` in the same `make bench`: one GPSPM client writing 4 KiB "
            "at iodepth 1 (sync), at full speed and at a fixed rate, against a server waiting "
            "for its requests by busy polling (`busy_wait_polling=1`), on the completion channel "
            "(`0`) or adaptively (`adaptive`: a timed nap when timers are punctual enough, a "
            "bounded spin, then the channel; engines/common/pace.h), the three taking turns "
            "round by round. Medians of the rounds; the server's CPU is fio's usr+sys of the "
            "server job.", ""] + polling_md(read_runs(tsv))


def clients_section(tsv):
    """One GPSPM server for many clients (scripts/bench_clients.sh's runs)."""
    return ["## One GPSPM server, many clients", "",
            "`scripts/bench_clients.sh` in the same `make bench`: 1 to 8 GPSPM clients (ours, "
            "a job each, 4 KiB random writes at depth 8 in batches of 8, a fixed number of "
            "I/Os each, sleeping on their completions) against ours as one server job for all "
            "of them (`clients_per_job=N`: one thread, each client in its own protection "
            "domain, their receives on one CQ; busy polling, "
            "then sleeping) and fio 3.33's server (a busy-polling job per client), taking turns "
            "round by round. The server's CPU is fio's usr+sys of its jobs over their runtime, "
            "per I/O of all clients.", ""] + clients_md(read_client_runs(tsv))


def cmd_benchmarks(args):
    rows = summarize(args.dir)
    md = benchmarks_md(args.dir, rows)
    if args.pmem:
        md += pmem_section(args.pmem)
    if args.polling:
        md += polling_section(args.polling)
    if args.clients:
        md += clients_section(args.clients)
    if args.previous:
        with open(args.previous) as f:
            md += reproduce_section(f.read().split("\n"), md,
                                    margin_of(read_json(os.path.join(args.dir, "options.json"), {})))
    if args.notes:
        with open(args.notes) as f:
            md += ["## What the figures say", ""] + f.read().rstrip("\n").split("\n") + [""]
    with open(args.out, "w") as f:
        f.write("\n".join(md))
    print(args.out)
