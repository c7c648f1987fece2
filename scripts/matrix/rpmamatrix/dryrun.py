# SPDX-License-Identifier: BSD-3-Clause
"""run_matrix.sh --dry-run: the plan as a table, and how long it takes at most: runs x
(runtime + ramp + start-up), the cost runs, the pairs beyond --repeats."""
from .common import PLAN_COLUMNS
from .runargs import has_rdma_device, mem_words

# seconds each run costs besides its runtime + ramp (process start-up, connection)
OVERHEAD_HW = 1
OVERHEAD_VM = 3
# a cost run: start-up and a few seconds of I/O (2000 I/Os, 8 MiB at most)
COST_RUN_SECS = 3


def table(rows):
    """Rows of words in aligned columns, two spaces apart (as column -t lays them out)."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(w.ljust(n) for w, n in zip(row[:-1], widths)) + "  " * (len(row) > 1)
                     + row[-1] for row in rows)


def minutes(secs):
    return f"at most {secs // 60} min {secs % 60} s"


def dry_run(s):
    overhead = OVERHEAD_HW if has_rdma_device() else OVERHEAD_VM
    print(table([PLAN_COLUMNS] + [[str(pt[c]) for c in PLAN_COLUMNS] for pt in s.plan]))
    n, repeats, max_repeats = len(s.plan), int(s.repeats), int(s.max_repeats)
    run_secs = int(s.runtime) + int(s.ramp) + overhead
    secs = n * repeats * run_secs
    costs = 0
    if s.costs == "1":
        costs = sum(pt["method"] != "raw" and pt["load"] == 0 for pt in s.plan)
        secs += costs * (overhead + COST_RUN_SECS)
    settle = ""
    if s.settle != "0" and repeats > 2:
        settle = f" (2 where they agree within {s.settle}%: --settle)"
    print()
    print(f"{n} points x {repeats} runs{settle}, {s.runtime}s + {s.ramp}s ramp each "
          f"(+~{overhead}s start-up), {costs} cost runs: {minutes(secs)}")
    print(f"the server's memory: {mem_words(s)}")
    paired = sum(pt["impl"] == "peer" for pt in s.plan)
    if paired and max_repeats > repeats:
        secs += 2 * paired * (max_repeats - repeats) * run_secs
        print(f"{paired} points ours vs the peer: {repeats} to {max_repeats} pairs until decided "
              f"(--margin {s.margin}%): {minutes(secs)}")
