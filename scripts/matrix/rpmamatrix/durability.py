# SPDX-License-Identifier: BSD-3-Clause
"""The report of a durability run (scripts/run_durability.sh): per method a verdict on
whether every acknowledged write survived the server's power cuts, the rounds, every
lost write with what fio read in its place, the environment. Reads the result folder's
options.json, env.json, status, canary-control/{kept,error} and rounds/rN/{shape,result,
lost}.tsv, power-lost, error and rnic-{before,at-cut}.txt."""
import csv
import glob
import os

from .common import env_items, read_json, table_head
from .durability_plan import warm_cut, warm_cut_note
from .durability_rnic import retries, section as rnic_section
from .readback import RESULT_COLUMNS as ROUND_COLUMNS
from .report_html import write_reports

# --max-quiet's default (ms): run_durability.sh's, and the report's for a run that
# recorded none
DEFAULT_MAX_QUIET = 1000


def read_tsv(path, columns):
    try:
        with open(path) as f:
            return [dict(zip(columns, line.rstrip("\n").split("\t"))) for line in f if line.strip()]
    except OSError:
        return []


def read_text(path):
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return ""


def canary_control(folder):
    """--canary-reset's outcome: ("kept", how), ("failed", why) or ("", "") where it did not run."""
    kept = read_text(os.path.join(folder, "canary-control", "kept"))
    error = read_text(os.path.join(folder, "canary-control", "error"))
    if error or (os.path.isdir(os.path.join(folder, "canary-control")) and not kept):
        return "failed", error or "it did not finish"
    return ("kept", kept) if kept else ("", "")


def load_rounds(folder, canary="", canary_reset=""):
    """Each round's shape, its per-method results and losses, or why it was not judged;
    with a DRAM CANARY a round is judged only where it shows that the power went, and
    with its control (CANARY_RESET) only where a reset was shown to keep the token."""
    rounds = []
    control = canary_control(folder)[0] if canary_reset else "kept"
    dirs = glob.glob(os.path.join(folder, "rounds", "r*"))
    for d in sorted(dirs, key=lambda p: int(os.path.basename(p)[1:] or 0)):
        shape = read_tsv(os.path.join(d, "shape.tsv"), ["round", "bs", "iodepth", "batch", "rate", "seed",
                                                                    "pattern"])
        results = read_tsv(os.path.join(d, "result.tsv"), ROUND_COLUMNS)
        # a round that says why it was not judged was not, whatever else it left
        power_lost = read_text(os.path.join(d, "power-lost"))
        error = read_text(os.path.join(d, "error")) or malformed(results)
        if not error and results and canary and not power_lost:
            error = f"no record that the DRAM canary ({canary}) lost its token in the cut (power-lost)"
        if not error and results and control != "kept":
            error = "no record that the DRAM canary kept its token across --canary-reset (canary-control/kept)"
        if error:
            results = []
        rounds.append({
            "shape": shape[0] if shape else {"round": os.path.basename(d)[1:]},
            "results": results,
            "lost": read_tsv(os.path.join(d, "lost.tsv"), ["method", "round", "offset", "message"]),
            "error": error or ("" if results else "not finished"),
            "power_lost": power_lost,
            "rnic": retries(d),
        })
    return rounds


FIGURES = ("acknowledged", "read_back", "lost", "unread", "issued")


def malformed(rows):
    """Why result.tsv's rows cannot be read as the judge writes them, or "": a row cut
    short or a figure that is no number vouches for nothing (the quiet time is none
    only where nothing was acknowledged)."""
    for r in rows:
        bad = [c for c in FIGURES if not (r.get(c) or "").isdigit()]
        if not bad and not (r.get("quiet_ms") or "").isdigit() and \
                not (r.get("quiet_ms") == "" and r["acknowledged"] == "0"):
            bad = ["quiet_ms"]
        if bad:
            return (f"result.tsv: method {r.get('method', '?')}'s {', '.join(bad)} "
                    f"{'is' if len(bad) == 1 else 'are'} not a number")
    return ""


def count(row, column):
    """A figure of result.tsv (load_rounds keeps only rows whose figures are numbers)."""
    return int(row[column])


def max_quiet(options):
    """--max-quiet of the run (ms), its default where options.json has none."""
    value = str(options.get("max_quiet", DEFAULT_MAX_QUIET))
    return int(value) if value.isdigit() else DEFAULT_MAX_QUIET


def quiet_note(rows, limit):
    """Why rows whose method was quiet for longer than LIMIT ms before the power went
    leave the verdict open, or ""."""
    quiet = [r for r in rows if int(r["quiet_ms"] or 0) > limit]
    if not quiet:
        return ""
    worst = max(int(r["quiet_ms"]) for r in quiet)
    return (f"NOT JUDGED: its last write was acknowledged up to {worst} ms before the power went, in "
            f"round(s) {', '.join(r['round'] for r in quiet)} (more than --max-quiet {limit} ms): the "
            "writes nearest the cut, which a platform loses first, were not tested there")


def verdicts(methods, rounds, power_cut="", limit=DEFAULT_MAX_QUIET):
    """Per method: rounds judged, writes acknowledged, read back and lost, its longest
    quiet before a cut, and the verdict. SURVIVED only where every round was judged,
    every acknowledged write read back and none lost, and the method was quiet for at
    most LIMIT ms before each cut: a round not judged, a write not read back or a job
    that stalled before the cut leaves the question open, and so does a POWER_CUT that
    reads as a reboot or a warm reset."""
    out = []
    for m in methods:
        rows = [r for rd in rounds for r in rd["results"] if r["method"] == m]
        acked = sum(count(r, "acknowledged") for r in rows)
        back = sum(count(r, "read_back") for r in rows)
        lost = sum(count(r, "lost") for r in rows)
        unread = acked - back
        lost_rounds = [r["round"] for r in rows if count(r, "lost") > 0]
        open_rounds = len(rounds) - len(rows)
        quiet = max((int(r["quiet_ms"] or 0) for r in rows), default=0)
        too_quiet = quiet_note(rows, limit)
        if lost:
            verdict = f"LOST {lost} acknowledged write(s) in round(s) {', '.join(lost_rounds)}"
        elif not rows:
            verdict = "NOT JUDGED: no round completed"
        elif unread > 0 or any(count(r, "acknowledged") == 0 for r in rows):
            verdict = (f"NOT JUDGED: {unread} acknowledged write(s) not read back"
                       if unread > 0 else "NOT JUDGED: a round acknowledged no write")
        elif open_rounds:
            verdict = (f"NOT JUDGED: {open_rounds} of {len(rounds)} round(s) could not be judged "
                       f"(nothing lost in the other {len(rows)})")
        elif too_quiet:
            verdict = too_quiet
        elif warm_cut(power_cut):
            verdict = (f"NOT JUDGED: every acknowledged write read back intact, but the power cut reads "
                       f"as a reboot or a warm reset ({warm_cut(power_cut)})")
        else:
            verdict = (f"SURVIVED: every acknowledged write read back intact, {len(rows)} power cut(s), "
                       f"quiet for {quiet} ms at most before each")
        out.append({"method": m, "verdict": verdict, "judged": len(rows), "acknowledged": acked,
                    "read_back": back, "lost": lost, "quiet": quiet if rows else ""})
    return out


def write_csvs(folder, rounds):
    with open(os.path.join(folder, "results.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(ROUND_COLUMNS + ["rate", "seed", "pattern"])
        for rd in rounds:
            for r in rd["results"]:
                w.writerow([r.get(c, "") for c in ROUND_COLUMNS] +
                           [rd["shape"].get(k, "") for k in ("rate", "seed", "pattern")])
    with open(os.path.join(folder, "lost.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["round", "method", "offset", "fio_says"])
        for rd in rounds:
            for x in rd["lost"]:
                w.writerow([x["round"], x["method"], x["offset"], x.get("message", "")])


def power_loss_line(options, rounds, control):
    """Whether the run shows that the power went in each round it judged, and whether
    the canary was shown able to fail (CONTROL: canary_control's)."""
    canary = options.get("dram_canary", "")
    judged = [rd for rd in rounds if not rd["error"]]
    if not canary:
        return ("Loss of power: **not shown** (no `--dram-canary`): a reset that keeps memory and "
                "writes caches back would pass for a power cut.")
    shown = sum(1 for rd in judged if rd["power_lost"])
    line = (f"Loss of power: shown in {shown} of {len(judged)} judged round(s) by the DRAM canary "
            f"`{canary}`: the round's token, written there before the cut and read back, was gone "
            "after it (a round whose memory kept it is not judged).")
    state, text = control
    if state == "kept":
        return line + (" Before the rounds a reset (`--canary-reset`) kept a token there: on this "
                       "platform the canary's loss tells a power cut from a reset.")
    if state == "failed":
        return line + f" **The canary's control failed**: {text}."
    return line + (" **Not shown** that a reset keeps the canary's token on this platform (no "
                   "`--canary-reset`): where its firmware clears memory at boot, a reset would look the same.")


def what_it_shows(env, options):
    if env.get("in Soft-RoCE VM", "no").startswith("yes"):
        return ["In the Soft-RoCE VM the server's PMem is an emulated NVDIMM backed by a file of the host: "
                "a power cut (its QEMU killed) loses the guest's RAM (the DRAM canary shows it) but nothing "
                "a real platform's PMem could. This run shows the workflow and the checker, not a platform "
                "(docs/hardware.md has how to qualify one)."]
    warm = warm_cut_note(options.get("power_cut", ""))
    lines = [f"**Not a power cut**: {warm[0].upper()}{warm[1:]}."] if warm else []
    lines += [f"The server declared direct_write_to_pmem={options.get('direct_write_to_pmem', '?')}. "
             "With 0, APM's client flushes for visibility only, which does not make writes persistent: "
             "an APM loss then says nothing against the platform. With 1, APM's writes are durable only "
             "where RDMA writes reach the persistence domain directly (DDIO off for the RNIC's port, or "
             "eADR): a loss then is the platform's. GPSPM's server persists every flush itself "
             "(docs/hardware.md)."]
    return lines


def cmd_durability(args):
    folder = args.dir
    options = read_json(os.path.join(folder, "options.json"), {})
    env = read_json(os.path.join(folder, "env.json"), {})
    status = read_text(os.path.join(folder, "status")) or "partial (no status)"
    methods = [m for m in options.get("methods", "").split(",") if m]
    rounds = load_rounds(folder, options.get("dram_canary", ""), options.get("canary_reset", ""))
    control = canary_control(folder)
    write_csvs(folder, rounds)
    md = ["# Durability across the server's power cuts", ""]
    if not status.startswith("complete"):
        md += [f"PARTIAL: {status}", ""]
    if control[0] == "failed":
        md += [f"The DRAM canary's control (`--canary-reset`) failed: {control[1]}", ""]
    md += [f"{len(rounds)} round(s) of {options.get('rounds', '?')}: writes with fio's verify pattern for "
           f"{options.get('write_time', '?')} s, the server's power cut (`{options.get('power_cut', '?')}`), "
           "then every write fio saw acknowledged read back over RDMA and checked.", ""]
    md += ["## Verdicts", ""]
    md += table_head(["method", "verdict", "rounds judged", "acknowledged", "read back", "lost",
                      "quiet before a cut (ms)"])
    limit = max_quiet(options)
    for v in verdicts(methods, rounds, options.get("power_cut", ""), limit):
        md.append(f"| {v['method']} | **{v['verdict']}** | {v['judged']} | {v['acknowledged']} | "
                  f"{v['read_back']} | {v['lost']} | {v['quiet']} |")
    md += ["", "Acknowledged counts the writes fio saw complete (each job's write log), up to the "
           "power cut, which came while they were going (each job ended with its writes failing); "
           "those in flight then were never acknowledged. Read back, those of them the read-back "
           "read again. Quiet: how long the method's last write was acknowledged before the cut's "
           "command began (or before the round's last completion, if later), the least it was "
           "before the power went: a platform that loses the writes of its last moments loses none of "
           "a method that had stopped being acknowledged. SURVIVED needs every round judged, every "
           f"acknowledged write read back intact and every quiet at most {limit} ms (`--max-quiet`).",
           "", power_loss_line(options, rounds, control), ""]
    md += ["## Rounds", ""]
    md += ["Each round wrote with a random seed and a verify pattern of its own: fio compared every "
           "block read back with its header (the offset) and that pattern byte for byte, so no block "
           "that an earlier round, an earlier run or another program left could pass for one of the "
           "round's writes. Each job appends a byte of its own to the pattern (apm 01, gpspm 02, "
           "apm-native 03): the jobs share the seed (their offsets may meet), and a region holding "
           "another job's blocks fails too.", ""]
    md += table_head(["round", "bs", "iodepth", "batch", "rate (IOPS)", "seed", "pattern", "method",
                      "issued", "acknowledged", "read back", "lost", "quiet (ms)"])
    for rd in rounds:
        s = rd["shape"]
        for r in rd["results"]:
            md.append(f"| {r['round']} | {r['bs']} | {r['iodepth']} | {r['batch']} | {s.get('rate', '')} | "
                      f"{s.get('seed', '')} | `{s.get('pattern', '')}` | {r['method']} | {r.get('issued', '')} | "
                      f"{r['acknowledged']} | {r['read_back']} | {r['lost']} | {r['quiet_ms']} |")
    not_judged = [rd for rd in rounds if rd["error"]]
    if not_judged:
        md += ["", "Rounds not judged:", ""]
        md += [f"- round {rd['shape'].get('round', '?')}: {rd['error']}" for rd in not_judged]
    md += ["", "### The client's RNIC during the writes", ""] + rnic_section(rounds)
    md += ["", "## Lost writes", ""]
    lost = [x for rd in rounds for x in rd["lost"]]
    if lost:
        md += table_head(["round", "method", "offset", "what fio read"])
        md += [f"| {x['round']} | {x['method']} | {x['offset']} | {x.get('message', '')} |" for x in lost]
    else:
        md.append("none")
    md += ["", "## What this run shows", ""] + what_it_shows(env, options)
    md += ["", "## Environment", ""] + table_head(["", ""])
    for k in ("server_host", "server_ip", "server_mem", "server_size", "direct_write_to_pmem", "native",
              "methods", "power_cut", "wait_up", "before_restart", "dram_canary", "canary_reset", "max_quiet",
              "command"):
        md.append(f"| {k} | `{options.get(k, '')}` |")
    md += [f"| {k} | {str(v).replace('|', '/')} |" for k, v in env_items(env)]
    md += ["", f"status: {status}"]
    write_reports(folder, "Durability", md)
