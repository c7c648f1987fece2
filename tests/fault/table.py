#!/usr/bin/env python3
"""Turn the results (TSV) of tests/fault/faults.sh (the examples, build/fault/results.tsv)
or tests/fault/fio_faults.sh (the engines, build/fault/fio-results.tsv) into a Markdown
table for docs/reliability.md.

usage: tests/fault/table.py [--into DOC.md] [RESULTS.tsv [SUITE]]
                              (default build/fault/results.tsv)

--into replaces the table between the lines <!-- table SUITE --> and
<!-- end of table SUITE --> of DOC.md instead of printing it.

SUITE, the e2e result that suite records for itself (faults-examples,
faults-engines), fills a "shown by" column that tests/checks/docs/check_claims.py
holds to a passing run.

One row per run; consecutive runs of one pair and side with the same call and
the same outcome are merged into one row with a range of N.
"""
import csv
import sys


def outcome(row):
    f, p = row["faulted_rc"], row["peer_rc"]
    side = row["side"]
    peer = "server" if side == "client" else "client"
    what = f"{side} exit {f}"
    if p == "-":
        what += f" before listening ({peer} not started)"
    elif "served a fresh" in row["verdict"]:
        what += f"; {peer} kept waiting for it, then served a fresh {side}: both exit 0"
    elif "gave up" in row["verdict"]:
        what += f"; {peer} gave up by itself: exit {p}"
    elif "kept waiting for a" in row["verdict"]:
        what += f"; {peer} kept waiting for a {side}, took the next one"
    elif "peer waited" in row["verdict"]:
        # (results of the suite before it judged the healthy side)
        what += f"; {peer} kept waiting for it, stopped by the test"
    else:
        what += f"; {peer} exit {p}"
    return what


def peer_seconds(row):
    """Seconds from the fault to the healthy side's end (None: not recorded)."""
    try:
        return float(row.get("peer_seconds") or "")
    except ValueError:
        return None


def table(rows, suite):
    """The Markdown lines of the table of these results."""
    shown = f" `e2e:{suite}` |" if suite else ""
    timed = any("peer_seconds" in r for r in rows)
    lines = ["| pair | side | N | failed call | outcome |" + (" peer ended (s after the fault) |" if timed else "")
             + " verdict | first message |" + (" shown by |" if suite else ""),
             "|---|---|---|---|---|" + ("---|" if timed else "") + "---|---|" + ("---|" if suite else "")]
    merged = []
    for r in rows:
        key = (r["pair"], r["side"], r["call"], outcome(r), r["verdict"].replace(", memcheck", ""))
        secs = peer_seconds(r)
        if merged and merged[-1]["key"] == key and int(r["N"]) == merged[-1]["last"] + 1:
            merged[-1]["last"] = int(r["N"])
            merged[-1]["memcheck"] |= "memcheck" in r["verdict"]
            if secs is not None:
                merged[-1]["secs"].append(secs)
            continue
        merged.append({"key": key, "first": int(r["N"]), "last": int(r["N"]),
                       "memcheck": "memcheck" in r["verdict"], "msg": r["message"],
                       "secs": [] if secs is None else [secs]})
    for m in merged:
        pair, side, call, what, verdict = m["key"]
        n = str(m["first"]) if m["first"] == m["last"] else f'{m["first"]}-{m["last"]}'
        if m["memcheck"]:
            verdict += " (+ memcheck clean)"
        msg = m["msg"].replace("|", "\\|")
        # the log's timestamp says nothing here
        if msg[:4].isdigit() and " librpma " in msg:
            msg = msg[msg.index(" librpma ") + 1:]
        secs = ""
        if timed:
            lo, hi = (min(m["secs"]), max(m["secs"])) if m["secs"] else (None, None)
            secs = " - |" if lo is None else (f" {lo:.1f} |" if lo == hi else f" {lo:.1f}-{hi:.1f} |")
        lines.append(f"| {pair} | {side} | {n} | `{call}` | {what} |{secs} {verdict} | {msg} |{shown}")
    return lines


def replace_block(doc, suite, lines):
    """Put lines between the markers <!-- table SUITE --> and <!-- end of table SUITE -->."""
    begin, end = f"<!-- table {suite} -->", f"<!-- end of table {suite} -->"
    with open(doc, encoding="utf-8") as f:
        text = f.read()
    i, j = text.find(begin), text.find(end)
    if i < 0 or j < i:
        raise ValueError(f"{doc} has no '{begin}' ... '{end}' block")
    text = text[:i + len(begin)] + "\n" + "\n".join(lines) + "\n" + text[j:]
    with open(doc, "w", encoding="utf-8") as f:
        f.write(text)


def main(argv):
    args = argv[1:]
    if args and args[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0
    doc = None
    if len(args) >= 2 and args[0] == "--into":
        doc, args = args[1], args[2:]
    path = args[0] if args else "build/fault/results.tsv"
    suite = args[1] if len(args) > 1 else ""
    if doc and not suite:
        print(f"{argv[0]}: --into needs the SUITE the table cites", file=sys.stderr)
        return 2
    try:
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f, delimiter="\t"))
    except OSError as e:
        print(f"{argv[0]}: cannot read results '{path}': {e.strerror}", file=sys.stderr)
        return 1
    lines = table(rows, suite)
    if doc is None:
        print("\n".join(lines))
        return 0
    try:
        replace_block(doc, suite, lines)
    except (OSError, ValueError) as e:
        print(f"{argv[0]}: {e}", file=sys.stderr)
        return 1
    print(f"{doc}: table {suite} of {len(lines) - 2} rows from {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
