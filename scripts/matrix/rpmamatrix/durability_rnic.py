# SPDX-License-Identifier: BSD-3-Clause
"""What the client's RNIC counted while a durability round wrote: its ports'
counters (sysfs hw_counters and counters) from before the writes
(rnic-before.txt) and from the cut (rnic-at-cut.txt), as scripts/run_durability.sh
keeps them in each round's folder. A packet lost on the way stalls a job until
the RNIC's ACK timeout sends it again, and a job quiet before the cut leaves the
verdict open: the counters that tell of it (retries, timeouts, sequence errors,
RNR NAKs, duplicates) are shown per round."""
import os
import re

# the names of the counters that count a packet lost or sent again: Soft-RoCE's
# (completer_retry_err, rcvd_seq_err, duplicate_request, ...), mlx5's
# (local_ack_timeout_err, packet_seq_err, out_of_sequence, rnr_nak_retry_err, ...)
RETRY_LIKE = re.compile(r"retry|timeout|seq|nak|rnr|duplicate", re.IGNORECASE)


def snapshot(path):
    """COUNTER -> value of one snapshot file ("DEVICE/ports/PORT/DIR/NAME VALUE" lines),
    None where the file is missing."""
    try:
        with open(path) as f:
            lines = f.read().splitlines()
    except OSError:
        return None
    out = {}
    for line in lines:
        words = line.split()
        if len(words) == 2 and words[1].isdigit():
            out[words[0]] = int(words[1])
    return out


def retries(folder):
    """[(counter, how much it grew)] of a round's retry-like counters that grew during
    its writes, or None where the round kept no snapshots or its RNIC no counters."""
    before = snapshot(os.path.join(folder, "rnic-before.txt"))
    after = snapshot(os.path.join(folder, "rnic-at-cut.txt"))
    if not before or not after:
        return None
    return [(name, after[name] - before[name]) for name in sorted(after)
            if name in before and after[name] > before[name] and RETRY_LIKE.search(os.path.basename(name))]


def section(rounds):
    """The report's lines: per round what grew, or why nothing can be said."""
    counted = [(rd["shape"].get("round", "?"), rd["rnic"]) for rd in rounds]
    if all(grew is None for _, grew in counted):
        return ["No counters of the client's RNIC were kept (its ports expose none in sysfs, or the rounds "
                "ran before they were kept)."]
    lines = ["The client's RNIC while each round wrote (from before its writes to the cut; every counter: "
             "`rounds/rN/rnic-before.txt`, `rnic-at-cut.txt`), its counters of packets lost or sent again: "
             "a job that waits for a retry is quiet before the cut.", ""]
    for r, grew in counted:
        if grew is None:
            lines.append(f"- round {r}: no counters kept")
        elif not grew:
            lines.append(f"- round {r}: none grew")
        else:
            lines.append(f"- round {r}: " + ", ".join(f"`{name}` +{n}" for name, n in grew))
    return lines
