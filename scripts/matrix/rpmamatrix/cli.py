# SPDX-License-Identifier: BSD-3-Clause
"""The command line of scripts/matrix/matrix: its subcommands and options, each
subcommand handed to the module of its job."""
import argparse
import sys

from .benchmarks import cmd_benchmarks
from .compare import cmd_compare
from .decide import cmd_decide, cmd_settled
from .durability import cmd_durability
from .environment import cmd_env
from .durability_options import cmd_durability_options
from .durability_plan import cmd_durability_round
from .durability_status import cmd_durability_status
from .expand import cmd_expand_job
from .plan import add_plan_options, cmd_plan
from .readback import cmd_judge_round
from .platform import cmd_platform
from .polling import cmd_polling, cmd_polling_row
from .clientsbench import cmd_clients_bench, cmd_clients_row
from .report import cmd_build
from .resume import cmd_prune_runs
from .schedule import cmd_schedule
from .summary import cmd_summary
from . import runcli
from .sweep import cmd_report
from .verdicts import DEFAULT_MARGIN_PCT

USAGE = """matrix -- the matrix runner's planner, report builder and comparer.

  matrix plan  --preset quick|default|full [--methods LIST] [--rws LIST] ...
               print the plan: one point per line (TSV with a header)
  matrix build DIR      results.csv, charts (gnuplot), report.md and report.html of DIR
  matrix summary DIR    the findings and summary table of DIR's report, its status
               and where it is (run_matrix.sh's last words)
  matrix compare A B OUT    both folders on the same charts, plus a table of ratios
               with confidence intervals and verdicts
  matrix decide DIR OURS PEER [--margin PCT] [--pairs R --min-pairs N --max-pairs M]
               after pair R of N..M: whether the IOPS of point OURS vs its
               interleaved twin PEER need one more pair (exit 3) or not (exit 0:
               decided, or the cap reached); prints the verdict and why
  matrix settled DIR POINT --within PCT
               whether the runs of POINT so far (2 at least) agree within PCT%
               (max - min over the median IOPS): exit 0, else 1
  matrix schedule DIR PROG --repeats N --max-repeats M --settle PCT --margin PCT
               --port-base PORT --costs 0|1 --instructions 0|1|sync --resume 0|1
               --clients N
               run_matrix.sh's runs of DIR's plan, in order, each asked of it on
               stdout (a line: NAME IMPL METHOD RW BS IODEPTH SYNC NUMJOBS PORT COST
               HOSTS IOS LOAD TOOL) and its status read on stdin (0: succeeded);
               the progress on stderr, at the end DIR/status
  matrix prune-runs RUNS_DIR
               --resume: keep the runs that finished, remove the files of the others
               (they run again); prints: runs kept, cost runs kept, runs removed
  matrix polling TSV --out MD
               the GPSPM server's polling modes side by side, from
               scripts/bench_polling.sh's polling.tsv
  matrix clients-bench TSV --out MD
               a GPSPM server's CPU per I/O as its clients grow (ours, one job
               for all; fio 3.33's, a job each), from scripts/bench_clients.sh's
               clients.tsv
  matrix polling-row --tsv TSV STEM ROUND RATE MODE
  matrix clients-row --tsv TSV STEM ROUND CLIENTS SERVER
               a bench run's line of its TSV (the header first when TSV is
               empty), from STEM.json (the client's fio JSON) and
               STEM.server.json (the server's): bench_polling.sh's and
               bench_clients.sh's runs
  matrix durability DIR report.md/.html, results.csv and lost.csv of a durability
               run's folder (scripts/run_durability.sh)
  matrix judge-round DIR --methods LIST [--issued]
               a durability round's result.tsv and lost.tsv from fio's I/O log,
               saved verify states and read-back (--issued: print the most
               writes any method issued, for the read-back's number_ios)
  matrix durability-options --prog PROG --root ROOT -- ARGS...
               scripts/run_durability.sh's options checked and completed, as shell
               assignments for it to eval (bad usage: one line, exit 2)
  matrix durability-round OPTIONS ROUND DIR
               round ROUND's shape (of the run's OPTIONS, its options.json) and its
               own seed and pattern: DIR/shape.tsv, and shell assignments
  matrix durability-status DIR
               a durability run's exit status: 0 every acknowledged write survived,
               1 a method lost some, 3 something could not be judged
  matrix report --out DIR [METHOD=]FIO_JSON...
               a result folder DIR (then built) from the client's fio JSON of the
               sweep job files (jobs/sweep.fio): one point per section; a server's
               JSON next to NAME.json as NAME.server.json gives the server's CPU
  matrix env --root DIR [--mem PATH] [--direct-write 0|1] [--server-host H
               --server-kernel K --server-cpu C --server-platform=TEXT
               --server-platform-rc N]
               env.json: this host's kernel, CPU, RDMA devices, tools, engines, git
               revision and platform facts, and the server host's (read over ssh)
  matrix platform [--sysroot DIR] [--mem PATH] [--direct-write 0|1]
               this host's facts as JSON (env.json's): DDIO per RDMA device's
               root port, RNIC firmware, link and NUMA node, where PATH's memory
               is, PMem regions and namespaces, CPU governors and model

  matrix args|dry-run|check-tools PROG ROOT ARG...
  matrix usage PROG ROOT
               scripts/run_matrix.sh's arguments (ARG...: as given): its settings
               and options.json as shell assignments, the plan and its duration,
               the programs a run needs, its --help (PROG: the runner's name, ROOT:
               the project folder)

DIR holds plan.tsv, options.json, env.json, status and runs/ (raw fio JSON,
perftest output), as scripts/run_matrix.sh writes them. Python 3 stdlib only.
"""


def row_parser(sub, name, fn, *words):
    """A bench's row subcommand: --tsv TSV STEM ROUND and the run's WORDS."""
    p = sub.add_parser(name, help="a bench run's line of its TSV, from its fio JSON")
    p.add_argument("--tsv", required=True, help="the table the line is appended to")
    p.add_argument("stem", help="the run's files: STEM.json, STEM.server.json")
    for word in ("round",) + words:
        p.add_argument(word)
    p.set_defaults(fn=fn)


def main():
    # (the runner's own arguments follow these: argparse must not read them)
    if len(sys.argv) > 1 and sys.argv[1] in runcli.COMMANDS:
        sys.exit(runcli.main(sys.argv[1:]) or 0)
    ap = argparse.ArgumentParser(description=USAGE,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("plan", help="print the plan (TSV)")
    add_plan_options(p)
    p.add_argument("--defaults", action="store_true", help="print the preset's repeats/runtime/ramp")
    p.set_defaults(fn=cmd_plan)
    b = sub.add_parser("build", help="results.csv, charts and reports of a result folder")
    b.add_argument("dir")
    b.set_defaults(fn=cmd_build)
    sm = sub.add_parser("summary", help="a built folder's findings, summary table, status")
    sm.add_argument("dir")
    sm.set_defaults(fn=cmd_summary)
    c = sub.add_parser("compare", help="two result folders on the same charts")
    c.add_argument("a")
    c.add_argument("b")
    c.add_argument("out")
    c.set_defaults(fn=cmd_compare)
    dc = sub.add_parser("decide", help="whether ours vs the peer at a point is decided")
    dc.add_argument("dir")
    dc.add_argument("ours", help="the point id of ours (plan.tsv)")
    dc.add_argument("peer", help="the point id of its twin")
    dc.add_argument("--margin", type=float, default=DEFAULT_MARGIN_PCT,
                    help="percent within which 'equal' decides (default %(default)s)")
    dc.add_argument("--pairs", type=int, help="pairs run so far (default: those measured)")
    dc.add_argument("--min-pairs", type=int, default=1, help="pairs planned (run_matrix.sh --repeats)")
    dc.add_argument("--max-pairs", type=int,
                    help="the cap (run_matrix.sh --max-repeats; default: stop after this pair)")
    dc.set_defaults(fn=cmd_decide)
    st = sub.add_parser("settled", help="whether a point's runs agree closely enough to stop")
    st.add_argument("dir")
    st.add_argument("point", help="the point id (plan.tsv)")
    st.add_argument("--within", type=float, required=True, help="percent (max - min over the median)")
    st.set_defaults(fn=cmd_settled)
    pr = sub.add_parser("prune-runs", help="--resume: keep the finished runs, remove the others")
    pr.add_argument("runs", help="a result folder's runs/")
    pr.set_defaults(fn=cmd_prune_runs)
    sc = sub.add_parser("schedule", help="run_matrix.sh's runs of a folder's plan, asked one by one")
    sc.add_argument("dir")
    sc.add_argument("prog", help="the runner's name, for its summary line")
    for opt in ("repeats", "max-repeats", "settle", "port-base", "costs", "resume", "clients"):
        sc.add_argument("--" + opt, type=int, required=True)
    sc.add_argument("--margin", type=float, required=True)
    sc.add_argument("--instructions", choices=("0", "1", "sync"), required=True)
    sc.set_defaults(fn=cmd_schedule)
    bm = sub.add_parser("benchmarks", help="docs/BENCHMARKS.md from a folder of --impl ours,peer")
    bm.add_argument("dir")
    bm.add_argument("--out", required=True)
    bm.add_argument("--notes", help="a Markdown file of findings appended as they are")
    bm.add_argument("--pmem", help="a folder of run_matrix.sh --impl ours,peer on device DAX: "
                    "its section")
    bm.add_argument("--polling", help="scripts/bench_polling.sh's polling.tsv: its section")
    bm.add_argument("--clients", help="scripts/bench_clients.sh's clients.tsv: its section")
    bm.add_argument("--previous", help="the previous run's BENCHMARKS.md (read before --out is "
                    "written, so it may be the same file): its IOPS verdicts beside this run's")
    bm.set_defaults(fn=cmd_benchmarks)
    pl = sub.add_parser("polling", help="the GPSPM server's polling modes from bench_polling.sh")
    pl.add_argument("tsv")
    pl.add_argument("--out", required=True)
    pl.set_defaults(fn=cmd_polling)
    cb = sub.add_parser("clients-bench", help="a GPSPM server's CPU per I/O as its clients grow")
    cb.add_argument("tsv")
    cb.add_argument("--out", required=True)
    cb.set_defaults(fn=cmd_clients_bench)
    row_parser(sub, "polling-row", cmd_polling_row, "rate", "mode")
    row_parser(sub, "clients-row", cmd_clients_row, "clients", "server")
    r = sub.add_parser("report", help="a result folder from fio JSON of the sweep job files")
    r.add_argument("--out", required=True, help="the result folder to write")
    r.add_argument("--command", help="the command line to record in options.json")
    r.add_argument("files", nargs="+", metavar="[METHOD=]FIO_JSON")
    r.set_defaults(fn=cmd_report)
    d = sub.add_parser("durability", help="the report of a durability run's folder")
    d.add_argument("dir")
    d.set_defaults(fn=cmd_durability)
    j = sub.add_parser("judge-round", help="a durability round's result.tsv and lost.tsv")
    j.add_argument("dir")
    j.add_argument("--methods", required=True)
    j.add_argument("--issued", action="store_true")
    j.set_defaults(fn=cmd_judge_round)
    do = sub.add_parser("durability-options", help="run_durability.sh's options as shell assignments")
    do.add_argument("--prog", required=True, help="the runner's name, for its messages")
    do.add_argument("--root", required=True, help="the project's folder")
    do.add_argument("args", nargs=argparse.REMAINDER, help="-- and the runner's arguments")
    do.set_defaults(fn=cmd_durability_options)
    dr = sub.add_parser("durability-round", help="a durability round's shape, seed and pattern")
    dr.add_argument("options", help="the run's options.json")
    dr.add_argument("round", type=int)
    dr.add_argument("dir", help="the round's folder: its shape.tsv")
    dr.set_defaults(fn=cmd_durability_round)
    ds = sub.add_parser("durability-status", help="a durability run's exit status")
    ds.add_argument("dir")
    ds.set_defaults(fn=cmd_durability_status)
    e = sub.add_parser("expand-job", help="a job file for a client host: includes and ${VAR} expanded")
    e.add_argument("--out", required=True)
    e.add_argument("--set", action="append", metavar="OPTION=VALUE", help="added to [global]")
    e.add_argument("job")
    e.add_argument("vars", nargs="*", metavar="VAR=VALUE")
    e.set_defaults(fn=cmd_expand_job)
    ev = sub.add_parser("env", help="the environment of a measurement as JSON (env.json)")
    ev.add_argument("--root", required=True, help="the project folder (engines, .git)")
    ev.add_argument("--mem", default="malloc", help="the server's memory")
    ev.add_argument("--direct-write", dest="direct_write", choices=("0", "1"), default="0")
    ev.add_argument("--server-host", dest="server_host", default="local")
    ev.add_argument("--server-kernel", dest="server_kernel", default="")
    ev.add_argument("--server-cpu", dest="server_cpu", default="")
    ev.add_argument("--server-platform", dest="server_platform", default="",
                    help="what `matrix platform` printed on the server host")
    ev.add_argument("--server-platform-rc", dest="server_platform_rc",
                    help="its exit status (none: no server host of its own)")
    ev.set_defaults(fn=cmd_env)
    pf = sub.add_parser("platform", help="the platform's facts (DDIO, RNICs, PMem, CPU) as JSON")
    pf.add_argument("--sysroot", default="/", help="read /sys, /proc under DIR (default /)")
    pf.add_argument("--mem", default="", help="the server's memory: malloc, /dev/daxX.Y or a file")
    pf.add_argument("--direct-write", dest="direct_write", choices=("0", "1"), default="0",
                    help="the server's direct_write_to_pmem (default 0)")
    pf.set_defaults(fn=cmd_platform)
    args = ap.parse_args()
    sys.exit(args.fn(args) or 0)
