# SPDX-License-Identifier: BSD-3-Clause
"""scripts/run_durability.sh's exit status from its result folder (the
durability-status subcommand), as the report's verdicts say (durability.py): 1 a
method lost an acknowledged write; 0 only when every method SURVIVED and the run is
complete; else 3, something could not be judged (a round, a write not read back, a
run cut short)."""
import os
import sys

from .common import read_json
from .durability import count, load_rounds, max_quiet, read_text, verdicts

LOST, OPEN, SURVIVED = 1, 3, 0


def exit_status(folder):
    options = read_json(os.path.join(folder, "options.json"), {})
    methods = [m for m in options.get("methods", "").split(",") if m]
    rounds = load_rounds(folder, options.get("dram_canary", ""), options.get("canary_reset", ""))
    said = [v["verdict"] for v in verdicts(methods, rounds, options.get("power_cut", ""), max_quiet(options))]
    if any(count(row, "lost") > 0 for rd in rounds for row in rd["results"]) or \
            any(v.startswith("LOST") for v in said):
        return LOST
    complete = read_text(os.path.join(folder, "status")).startswith("complete")
    if methods and complete and all(v.startswith("SURVIVED") for v in said):
        return SURVIVED
    return OPEN


def cmd_durability_status(args):
    # (a folder this cannot read says nothing: 3, never 0, and not 1, a loss)
    try:
        return exit_status(args.dir)
    except Exception as e:  # noqa: BLE001
        print(f"durability-status: {args.dir}: {e!r}", file=sys.stderr)
        return OPEN
