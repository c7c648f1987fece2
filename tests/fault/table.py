#!/usr/bin/env python3
"""Turn tests/e2e/faults.sh's results (TSV) into a Markdown table for docs/reliability.md.

usage: tests/fault/table.py [RESULTS.tsv]   (default build/fault/results.tsv)

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
    elif "peer waited" in row["verdict"]:
        what += f"; {peer} kept waiting for it, stopped by the test"
    else:
        what += f"; {peer} exit {p}"
    return what


def main(argv):
    if len(argv) > 1 and argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0
    path = argv[1] if len(argv) > 1 else "build/fault/results.tsv"
    try:
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f, delimiter="\t"))
    except OSError as e:
        print(f"{argv[0]}: cannot read results '{path}': {e.strerror}", file=sys.stderr)
        return 1
    print("| pair | side | N | failed call | outcome | verdict | first message |")
    print("|---|---|---|---|---|---|---|")
    merged = []
    for r in rows:
        key = (r["pair"], r["side"], r["call"], outcome(r), r["verdict"].replace(", memcheck", ""))
        if merged and merged[-1]["key"] == key and int(r["N"]) == merged[-1]["last"] + 1:
            merged[-1]["last"] = int(r["N"])
            merged[-1]["memcheck"] |= "memcheck" in r["verdict"]
            continue
        merged.append({"key": key, "first": int(r["N"]), "last": int(r["N"]),
                       "memcheck": "memcheck" in r["verdict"], "msg": r["message"]})
    for m in merged:
        pair, side, call, what, verdict = m["key"]
        n = str(m["first"]) if m["first"] == m["last"] else f'{m["first"]}-{m["last"]}'
        if m["memcheck"]:
            verdict += " (+ memcheck clean)"
        msg = m["msg"].replace("|", "\\|")
        # the log's timestamp says nothing here
        if msg[:4].isdigit() and " librpma " in msg:
            msg = msg[msg.index(" librpma ") + 1:]
        print(f"| {pair} | {side} | {n} | `{call}` | {what} | {verdict} | {msg} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
