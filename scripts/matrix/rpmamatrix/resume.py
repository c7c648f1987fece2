# SPDX-License-Identifier: BSD-3-Clause
"""run_matrix.sh --resume's bookkeeping: the folder it continues and the arguments it was
started with (stored_run); the prune-runs subcommand: of an interrupted result folder's
runs, keep those that finished and remove the files of the others, which run again."""
import json
import os
import re

from . import common
from .common import die

# a run's files share its stem: <id>-r<k> (a measured run), <id>-cost, <id>-instr
RUN_FILE = re.compile(r"([^.]+-(?:r[0-9]+|cost|instr))\.")
MEASURED = re.compile(r"-r[0-9]+$")
PERFTEST_RESULT = re.compile(r"^\s*[0-9]+\s+[0-9]+\s+[0-9.]+", re.M)


def read_text(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return None


def finished(runs, stem, names):
    """A run finished: no .failed marker; perftest's output with its result line, or fio's
    JSON whole (fio may print notes before it); a cost or instructions run also has its
    .packets, the last file run_fio writes."""
    if stem + ".failed" in names:
        return False
    perftest = read_text(os.path.join(runs, stem + ".perftest.txt"))
    if perftest is not None:
        return PERFTEST_RESULT.search(perftest) is not None
    fio = read_text(os.path.join(runs, stem + ".json"))
    if fio is None:
        return False
    try:
        json.loads(fio[fio.index("{"):])
    except ValueError:  # (no document, or not whole)
        return False
    return MEASURED.search(stem) is not None or stem + ".packets" in names


def prune_runs(runs):
    """(measured runs kept, cost and instructions runs kept, runs removed to run again)."""
    stems = {}
    for name in os.listdir(runs):
        m = RUN_FILE.match(name)
        if m:
            stems.setdefault(m.group(1), []).append(name)
    kept = costs = redone = 0
    for stem, names in sorted(stems.items()):
        if not finished(runs, stem, names):
            for name in names:
                os.remove(os.path.join(runs, name))
            redone += 1
        elif MEASURED.search(stem):
            kept += 1
        else:
            costs += 1
    return kept, costs, redone


def cmd_prune_runs(args):
    print(*prune_runs(args.runs))


def stored_run(folder):
    """(is FOLDER's run complete?, options.json's "args": the arguments exactly as given)
    of a result folder of the runner's; a folder that is none (or from before --resume)
    named."""
    if not os.path.isdir(folder):
        die(f"--resume: '{folder}' is not a folder")
    for name in ("options.json", "plan.tsv"):
        if not os.path.isfile(os.path.join(folder, name)):
            die(f"--resume: '{folder}' has no {name}: not a result folder of {common.PROG}, "
                "nothing to resume")
    status = read_text(os.path.join(folder, "status")) or ""
    if "complete" in status.splitlines():
        return True, []
    try:
        args = json.loads(read_text(os.path.join(folder, "options.json"))).get("args")
    except (ValueError, AttributeError):
        args = None
    if not isinstance(args, list):
        die(f"--resume: {folder}/options.json holds no \"args\" (a run from before --resume): "
            "it cannot be resumed")
    return False, [a if isinstance(a, str) else json.dumps(a) for a in args]
