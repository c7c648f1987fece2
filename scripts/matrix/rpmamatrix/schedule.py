# SPDX-License-Identifier: BSD-3-Clause
"""The schedule subcommand: which runs of a result folder's plan run, in what order, on
which ports (run_matrix.sh runs each one it is asked for and answers its status).

A point's rows (ours and the peer's twin: plan.py puts them together) are one group:
its runs interleave over the implementations (ours, peer, ours, peer...: a slow period
of the host hits both), then each row's cost run and instructions run. With two
implementations, pairs beyond --repeats are added (up to --max-repeats) until the IOPS
verdict is decided (decide.py); one implementation alone stops after 2 runs that agree
within --settle percent. Resumed, the runs the interrupted run finished are kept (the
rest are pruned first, resume.py) and still take their ports: the others' stay those of
an uninterrupted run. The progress goes to stderr; at the end the folder's status."""
import os
import signal
import sys
import time

from .common import PLAN_COLUMNS, die
from .decide import decide, settled
from .plan import raw_tool, read_plan
from .resume import prune_runs

# I/Os per job of a cost run: enough to make the connection's own packets and work
# requests a rounding error, few enough for TCG (2000 up to 4 KiB, 8 MiB beyond)
COST_IOS_MAX, COST_IOS_MIN, COST_BYTES = 2000, 200, 8 << 20
# I/Os per job of an instructions run (under callgrind, ~50 times slower)
INSTR_IOS = 500
# the methods whose instructions are counted: a server that sleeps, so that its count is
# its work (gpspm-sleep), and one that does none (apm)
INSTR_METHODS = ("apm", "gpspm-sleep")


def cost_ios(bs):
    return max(COST_IOS_MIN, min(COST_IOS_MAX, COST_BYTES // bs))


def fmt_secs(secs):
    return f"{secs // 60}:{secs % 60:02d}"


def groups(plan):
    """The plan's rows, consecutive ones measuring the same thing (all but id and impl) as one."""
    out = []
    for row in plan:
        key = [row[c] for c in PLAN_COLUMNS[2:]]
        if out and out[-1][0] == key:
            out[-1][1].append(row)
        else:
            out.append((key, [row]))
    return [rows for _, rows in out]


class Schedule:
    """The runs of DIR's plan under the runner's settings O (repeats, max_repeats, settle,
    margin, port_base, costs, instructions, resume, clients); RUN(name, fields) runs one
    and says whether it succeeded."""

    def __init__(self, folder, o, run):
        self.dir, self.runs, self.o, self.run = folder, os.path.join(folder, "runs"), o, run
        self.plan = read_plan(folder)
        self.planned = len(self.plan) * o.repeats
        self.done = self.failed = self.kept_runs = 0
        self.port = o.port_base
        self.start = int(time.time())

    def measure(self):
        if self.o.resume:
            self.prune()
        for rows in groups(self.plan):
            self.point(rows)
            for row in rows:
                self.extra_runs(row)

    def prune(self):
        try:
            kept, costs, redone = prune_runs(self.runs)
        except OSError:
            die(f"--resume: cannot sort the runs in {self.runs}")
        say(f"resuming {self.dir}: {kept} runs kept (and {costs} cost and instructions runs), "
            f"{redone} failed or cut short: run again; {self.planned} runs planned")

    def point(self, rows):
        """The measured runs of a point's rows, interleaved, as many as it takes."""
        o, paired = self.o, len(rows) > 1
        most = o.max_repeats if paired else o.repeats
        for r in range(1, most + 1):
            if r > o.repeats:
                self.planned += len(rows)
            for row in rows:
                self.measured_run(row, r)
            # (resumed: a next pair kept means the interrupted run found this one undecided;
            # decide would count the pairs after it too: on to that pair)
            if paired and o.repeats <= r < most and self.kept_rep(r + 1, rows):
                continue
            if not paired and self.settled(r, rows[0]):
                self.planned -= o.repeats - r
                return
            if paired and r >= o.repeats:
                verdict, stop = decide(self.dir, rows[0]["id"], rows[1]["id"], r, o.repeats, most,
                                       o.margin)
                say(f"      {r} pairs: {verdict}")
                if stop:
                    return

    def settled(self, r, row):
        """--settle PCT: after run R (2 at least, fewer than --repeats), do the row's runs
        agree within PCT%? Then the rest are skipped."""
        o = self.o
        if not (o.settle > 0 and 2 <= r < o.repeats) or self.kept_rep(r + 1, [row]):
            return False  # (resumed: a next run kept means the interrupted run found these unsettled)
        verdict, ok = settled(self.dir, row["id"], o.settle)
        if ok:
            say(f"      {r} runs: {verdict}: settled (--settle {o.settle}%)")
        return ok

    def kept(self, name, result):
        """Resumed: did the interrupted run finish this run (prune removed the others)?"""
        path = os.path.join(self.runs, name)
        return (self.o.resume and os.path.exists(path + result)
                and not os.path.exists(path + ".failed"))

    def kept_rep(self, r, rows):
        return all(self.kept(f"{row['id']}-r{r}", result_suffix(row)) for row in rows)

    def measured_run(self, row, r):
        self.done += 1
        self.port += int(row["numjobs"]) * int(row["hosts"])
        name = f"{row['id']}-r{r}"
        if self.kept(name, result_suffix(row)):
            self.kept_runs += 1
            return
        # the ETA from the runs measured now (a run kept took no time)
        eta, measured = "", self.done - self.kept_runs
        if measured > 1 and self.planned >= self.done:
            left = (int(time.time()) - self.start) * (self.planned - self.done + 1) // (measured - 1)
            eta = f" ETA {fmt_secs(left)}"
        hosts = f" hosts {row['hosts']}" if self.o.clients else ""
        load = f" server load {row['load']}%" if row["load"] != "0" else ""
        say("[%d/%d] %-4s %-11s %-4s %-5s bs %-6s iodepth %-3s jobs %s%s%s run %d%s" % (
            self.done, self.planned, row["impl"], row["method"], row["workload"], row["rw"],
            row["bs"], row["iodepth"], row["numjobs"], hosts, load, r, eta))
        self.go(name, row, 0, 0)

    def extra_runs(self, row):
        """The row's cost run and instructions run (--instructions), where it has them (a
        point under --server-load is its idle twin's costs and a busier server: none)."""
        o = self.o
        if row["load"] != "0":
            return
        if o.costs and row["method"] != "raw":
            self.extra_run(row, "cost", 1, cost_ios(int(row["bs"])), "cost run (%s I/Os a job)")
        if (o.instructions != "0" and row["rw"] == "write" and row["bs"] == "4096"
                and row["numjobs"] == "1" and (o.instructions == "1" or row["sync"] == "1")
                and row["method"] in INSTR_METHODS):
            self.extra_run(row, "instr", 2, INSTR_IOS, "instructions (callgrind, %s I/Os)")

    def extra_run(self, row, kind, cost, ios, what):
        self.port += int(row["numjobs"])
        name = f"{row['id']}-{kind}"
        if self.kept(name, ".json"):
            return
        say("      %-4s %-11s %-4s %-5s bs %-6s iodepth %-3s jobs %s: %s" % (
            row["impl"], row["method"], row["workload"], row["rw"], row["bs"], row["iodepth"],
            row["numjobs"], what % ios))
        self.go(name, row, cost, ios)

    def go(self, name, row, cost, ios):
        """Run NAME (COST 0: measured, 1: the cost run, 2: instructions) of ROW."""
        tool = raw_tool(row["rw"], int(row["sync"])) if row["method"] == "raw" else "-"
        fields = [name, row["impl"], row["method"], row["rw"], row["bs"], row["iodepth"],
                  row["sync"], row["numjobs"], self.port, cost, row["hosts"], ios, row["load"], tool]
        if not self.run([str(f) for f in fields]):
            self.failed += 1

    def finish(self, prog):
        """The folder's status, and the runs' summary."""
        status = f"partial ({self.failed} of {self.done} runs failed)" if self.failed else "complete"
        with open(os.path.join(self.dir, "status"), "w") as f:
            f.write(status + "\n")
        kept = f" ({self.kept_runs} kept from before)" if self.o.resume else ""
        say(f"{prog}: {self.done} runs in {fmt_secs(int(time.time()) - self.start)}, "
            f"{self.failed} failed{kept}")


def result_suffix(row):
    """The result file of a measured run: perftest's output, or the client's fio JSON."""
    return ".perftest.txt" if row["method"] == "raw" else ".json"


def say(line):
    print(line, file=sys.stderr, flush=True)


def ask_runner(fields):
    """A run asked of run_matrix.sh (a line of words on stdout), its status read back (a
    line on stdin: 0 succeeded). No answer: the runner is gone (Ctrl-C, killed): quietly out."""
    print(" ".join(fields), flush=True)
    answer = sys.stdin.readline()
    if not answer:
        sys.exit(0)
    return answer.strip() == "0"


def cmd_schedule(args):
    # (Ctrl-C is the runner's to handle: it stops the servers, then this ends with it)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    sched = Schedule(args.dir, args, ask_runner)
    sched.measure()
    sched.finish(args.prog)
