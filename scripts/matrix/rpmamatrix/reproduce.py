# SPDX-License-Identifier: BSD-3-Clause
"""reproduce.py -- do two make bench runs agree? The IOPS verdicts of docs/BENCHMARKS.md
as the previous run left it against this run's, point by point (matrix benchmarks
--previous). The previous run's raw results are not kept in the tree, its document is:
so both sides are read from the Markdown the generator writes. Both runs' intervals are
judged by this run's rule (its margin): a verdict printed under an older rule is shown
beside the one it gets now."""
import re

from .verdicts import Interval, interval_verdict

# a ratio with its sign test interval: '1.07x (0.98..1.13, n=12, 96.1%)'
INTERVAL = re.compile(r"^([0-9.]+)x \(([0-9.]+)\.\.([0-9.]+), n=([0-9]+), ([0-9.]+)%\)$")

# a row of an IOPS table: | point | ours | peer | ratio (interval, n, coverage) | verdict |
ROW = re.compile(r"^\| ([^|]+?) \| [^|]+ \| [^|]+ \| ([^|]+?) \| ([^|]+?) \|$")
HEADING = re.compile(r"^(#+) (.+)$")


def verdict_class(text):
    """ahead, behind, equal or undecided from a verdict cell ('equal within +-5%')."""
    for word in ("ahead", "behind", "equal", "undecided"):
        if text.startswith(word):
            return word
    return None


def iops_verdicts(lines):
    """{(section, point): (verdict, ratio text)} of every IOPS table: section 'main' for
    the first, else the heading above its own (### IOPS under '## GPSPM on ...')."""
    out, section, in_iops, top = {}, "main", False, None
    for line in lines:
        m = HEADING.match(line)
        if m:
            level, title = len(m.group(1)), m.group(2)
            if level == 2 and title != "IOPS":
                top = title
            in_iops = title == "IOPS"
            if in_iops:
                section = "main" if level == 2 else top
            continue
        m = ROW.match(line) if in_iops else None
        if m and verdict_class(m.group(3)):
            out[(section, m.group(1))] = (m.group(3), m.group(2))
    return out


def judged(ratio_text, printed, margin_pct):
    """The verdict (its words, as the tables print them) of a ratio's interval at
    MARGIN_PCT; the printed one when the text has no interval to judge."""
    m = INTERVAL.match(ratio_text)
    if not m:
        return printed
    ratio, lo, hi, n, cov = m.groups()
    return interval_verdict(Interval(float(ratio), float(lo), float(hi), int(n), float(cov) / 100),
                            +1, margin_pct)


def run_facts(lines):
    """The run's date and git revision, from its 'How it was made' list."""
    facts = {}
    for line in lines:
        for key in ("date", "git revision"):
            if line.startswith(f"- {key}: "):
                facts.setdefault(key, line.split(": ", 1)[1])
    return facts


def reproduce_section(previous_lines, lines, margin_pct):
    """The Markdown comparing this run's IOPS verdicts (LINES) with the previous run's,
    both judged at MARGIN_PCT; [] when the previous document has none."""
    before, now = iops_verdicts(previous_lines), iops_verdicts(lines)
    common = [k for k in now if k in before]
    if not common:
        return []
    facts = run_facts(previous_lines)
    rows, same = [], 0
    for k in common:
        (p0, r0), (p1, r1) = before[k], now[k]
        v0, v1 = judged(r0, p0, margin_pct), judged(r1, p1, margin_pct)
        agree = verdict_class(v0.strip("*")) == verdict_class(v1.strip("*"))
        same += agree
        name = k[1] if k[0] == "main" else f"{k[1]} ({k[0].split(' (')[0]})"
        then = "" if verdict_class(v0.strip("*")) == verdict_class(p0.strip("*")) else f" (printed: {p0})"
        rows.append(f"| {name} | {v0}: {r0}{then} | {v1}: {r1} | {'same' if agree else '**differs**'} |")
    return ["## Against the previous run", "",
            f"The IOPS verdicts of the run before this one (docs/BENCHMARKS.md as it stood: "
            f"{facts.get('date', 'date unknown')}, git revision "
            f"{facts.get('git revision', 'unknown')[:7]}) beside this run's, at the points both "
            f"measured, both runs' intervals judged by this run's rule (margin +-{margin_pct:g}%): "
            f"**the same verdict at {same} of {len(common)}** (ahead, behind or equal; an equal's "
            "margin may differ). A verdict the previous run printed under another rule is "
            "given beside (printed: ...).", "",
            "| point | previous | this run | |", "|---|---|---|---|"] + rows + [""]
