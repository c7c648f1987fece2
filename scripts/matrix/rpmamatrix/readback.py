# SPDX-License-Identifier: BSD-3-Clause
"""A durability round's judgement (scripts/run_durability.sh): which writes fio saw
acknowledged, and which of them read back intact after the power cut.

The round's folder holds what the write run left -- a log per job of every write
that completed without an error (write_iops.N.log, the N-th job: Unix time in
milliseconds, 1, direction, size, offset; fio logs a completion only when the engine
reported it done, and a power cut lands while the jobs still write), when the cut's
command began and ended (power-cut.time: two Unix times in milliseconds, by this
host's clock, fio's), and the verify state fio saved as each job ended
(local-JOB-I-verify.state: how many writes it issued, the offsets of its last
completions) -- and what the read-back left: fio re-issuing the same offsets, in the
same order, as reads, checking each block against the round's own pattern and going
on past a bad one, one job after the other (readback.iolog: every read;
readback.json, readback.log: every bad block named "at file JOB.0.0 offset N", and
how many reads each job made).

Acknowledged: every offset of the job's write log, up to the last completion
before the power went (each offset once: the jobs cover their region once). The
saved state must agree with it (each of its completions in the log, no more
completions than writes issued), or the round is not judged. Writes read but
never acknowledged (in flight at the cut) are not judged. The bad blocks named must
be as many as the verify errors fio counted (its JSON's total_err), or the round is
not judged.

Quiet: how long at least before the power went a method's last write was
acknowledged, counted to the start of the cut's command or to the round's last
completion of any job, whichever came later (the power cannot have gone before either).
A job that stalled (a lost packet's retries) or failed before the cut tested none of
the writes a platform would lose first; durability.py's verdicts weigh it.

Leaves result.tsv (per method: acknowledged, read back, lost, unread, issued, quiet)
and lost.tsv (each lost write's offset and what fio said of it)."""
import json
import os
from collections import Counter
import re
import struct
import sys

# fio's verify state file (verify-state.h, version 3): a header, then one thread's list
STATE_HEADER = struct.Struct("<QQQ")        # version, size, crc
STATE_LIST = struct.Struct("<QIIQQ")        # no_comps, depth, nofiles, numberio, index
STATE_FIXED = STATE_LIST.size + 56 + 64     # ... rand state (use64 + 6 words), name[64]
STATE_COMP = struct.Struct("<QQ")           # fileno, offset
STATE_VERSION = 3

RESULT_COLUMNS = ["method", "round", "bs", "iodepth", "batch", "acknowledged", "read_back", "lost",
                  "unread", "issued", "quiet_ms"]
# a Unix time in milliseconds after 2001: fio's per-I/O log with --log_unix_epoch=1
EPOCH_MS_MIN = 10 ** 12


class RoundError(Exception):
    """The round cannot be judged: its reason, for the report."""


def read_state(path):
    """(issued, depth, completed offsets) of one job's saved verify state."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise RoundError(f"no saved verify state {os.path.basename(path)}: {e.strerror}") from e
    if len(data) < STATE_HEADER.size + STATE_FIXED:
        raise RoundError(f"{os.path.basename(path)}: {len(data)} bytes, too short for fio's verify state")
    version, size, _crc = STATE_HEADER.unpack_from(data, 0)
    if version != STATE_VERSION:
        raise RoundError(f"{os.path.basename(path)}: verify state version {version}, "
                         f"this reader knows {STATE_VERSION}")
    no_comps, depth, nofiles, numberio, _index = STATE_LIST.unpack_from(data, STATE_HEADER.size)
    # (a job whose file was closed when fio saved its state: no completion listed)
    if nofiles > 1 or no_comps > depth * nofiles or size != STATE_FIXED + depth * nofiles * STATE_COMP.size or \
            len(data) < STATE_HEADER.size + size:
        raise RoundError(f"{os.path.basename(path)}: not a one-file job's verify state "
                         f"(files {nofiles}, completions {no_comps}, depth {depth}, size {size})")
    first = STATE_HEADER.size + STATE_FIXED
    comps = {STATE_COMP.unpack_from(data, first + i * STATE_COMP.size)[1] for i in range(no_comps)}
    return numberio, depth if nofiles else 0, comps


def logged(iolog, fname, action):
    """The offsets of FNAME's ACTION lines in fio's I/O log, in order (version 3:
    TIME FILE ACTION OFFSET LENGTH)."""
    out = []
    try:
        with open(iolog) as f:
            for line in f:
                w = line.split()
                if len(w) == 5 and w[1] == fname and w[2] == action and w[3].isdigit():
                    out.append(int(w[3]))
    except OSError as e:
        raise RoundError(f"no I/O log {os.path.basename(iolog)}: {e.strerror}") from e
    return out


def completed(path, method):
    """(Unix ms, direction, offset) of each I/O a job's write log (fio's --write_iops_log
    with --log_offset=1 and --log_unix_epoch=1) saw complete, in order."""
    out = []
    try:
        with open(path) as f:
            for n, line in enumerate(f, 1):
                w = [x.strip() for x in line.split(",")]
                if len(w) < 5 or not all(x.isdigit() for x in w[:5]):
                    raise RoundError(f"{os.path.basename(path)}, line {n}: not fio's per-I/O log "
                                     f"with offsets: {line.strip()[:80]!r}")
                out.append((int(w[0]), int(w[2]), int(w[4])))
    except OSError as e:
        raise RoundError(f"no write log of job {method} ({os.path.basename(path)}): {e.strerror}") from e
    if out and out[-1][0] < EPOCH_MS_MIN:
        raise RoundError(f"{os.path.basename(path)}: its times are not Unix times ({out[-1][0]} ms; fio's "
                         f"--log_unix_epoch=1): how long before the power cut job {method} was last "
                         "acknowledged cannot be told")
    return out


def cut_start_ms(folder):
    """When the power cut's command began (Unix ms; power-cut.time: its start and end):
    the power cannot have gone before, so a quiet counted from it is never too long."""
    try:
        with open(os.path.join(folder, "power-cut.time")) as f:
            words = f.read().split()
    except OSError as e:
        raise RoundError(f"no power-cut.time ({e.strerror}): when the power went cannot be told, nor "
                         "how long before it each method was last acknowledged") from e
    if len(words) != 2 or not all(w.isdigit() and int(w) >= EPOCH_MS_MIN for w in words) or \
            int(words[1]) < int(words[0]):
        raise RoundError(f"power-cut.time: {' '.join(words)[:60]!r} is not the cut's start and end "
                         "(two Unix times in milliseconds)")
    return int(words[0])


def acknowledged(method, writes, numberio, comps):
    """The acknowledged offsets of METHOD: its completed WRITES, checked against what
    fio saved as the job ended (NUMBERIO issued, COMPS its last completions)."""
    if len(set(writes)) != len(writes):
        twice = sorted(o for o, n in Counter(writes).items() if n > 1)[:3]
        raise RoundError(f"job {method} wrote offset(s) {twice} twice in one round: which write a "
                         "block should hold cannot be told (the region was covered more than once)")
    if len(writes) > numberio:
        raise RoundError(f"job {method}'s log has {len(writes)} completed writes, fio saved "
                         f"{numberio} issued: the log is not this round's")
    missing = comps - set(writes)
    if missing:
        raise RoundError(f"job {method}'s saved state names {len(missing)} completion(s) its write "
                         f"log does not (e.g. offset {min(missing)}): the log is incomplete")
    return writes


def reads_of(iolog, method, total):
    """The offsets METHOD's read-back read, each once, and those beyond TOTAL (fio's count
    of its reads) left out; a log with fewer reads than fio counted cannot be trusted."""
    issued = logged(iolog, f"{method}.0.0", "read")
    once = list(dict.fromkeys(issued))  # (a read fio queued again is logged again)
    if len(once) < total:
        raise RoundError(f"the read-back's I/O log has {len(once)} reads of job {method}, fio "
                         f"counted {total}: readback.iolog is incomplete")
    return set(once[:total])


def fio_json(text):
    """fio's JSON from an --output file that also holds its messages (a message may end
    on the line where the JSON starts)."""
    at = text.find('"fio version"')
    start = text.rfind("{", 0, at) if at >= 0 else -1
    if start < 0:
        return None
    try:
        return json.loads(text[start:])
    except ValueError:
        return None


def bad_blocks(text, fname):
    """offset -> what fio said of it, for every block of FNAME fio found bad."""
    bad = {}
    lines = text.splitlines()
    where = re.compile(r"at file " + re.escape(fname) + r" offset (\d+)")
    for i, line in enumerate(lines):
        m = where.search(line)
        if not m or int(m.group(1)) in bad:
            continue
        said = line
        if line.startswith("pattern:") and i >= 2:  # fio names the byte two lines before
            said = f"{lines[i - 2]}; {line}"
        bad[int(m.group(1))] = said.replace("\t", " ")[:300]
    return bad


def check_bad_count(method, counted, bad):
    """The bad blocks fio's messages name must be as many as the verify errors fio
    counted (its JSON's total_err, one per bad read): else a message this parser does
    not know (another fio's wording, a log cut short) would hide a lost write."""
    if not isinstance(counted, int):
        raise RoundError(f"the read-back's JSON gives job {method} no total_err (fio counts "
                         "verify errors only with continue_on_error): its bad blocks cannot be "
                         "checked against fio's count")
    if counted != len(bad):
        raise RoundError(f"fio counted {counted} verify error(s) in job {method}, its messages "
                         f"name {len(bad)} bad block(s): which writes were lost cannot be told "
                         "(readback.log)")


def fio_output(folder, names):
    """The text of fio's output files NAMES (messages and JSON), and its JSON or None."""
    texts = ""
    for name in names:
        try:
            with open(os.path.join(folder, name), errors="replace") as f:
                texts += f.read() + "\n"
        except OSError:
            pass
    return texts, fio_json(texts)


def check_cut_while_writing(folder, methods):
    """Every job must have ended with an error, its writes failing as the power went:
    a job that ended without one had stopped writing before the cut (its region
    covered), or was interrupted, and a cut in a pause tests nothing. Nor may a job
    have read: fio reads a job's region back to verify it once its writes covered it,
    and the power going then fails a read, never a write."""
    _, doc = fio_output(folder, ["write.log", "write.json"])
    if doc is None:
        raise RoundError("the write run left no fio JSON: write.log")
    jobs = {j.get("jobname"): j for j in doc.get("jobs", [])}
    for m in methods:
        if m not in jobs:
            raise RoundError(f"the write run has no job {m}: write.log")
        if not jobs[m].get("error"):
            raise RoundError(f"job {m}'s writes ended without an error: they were not going when the "
                             "power went (a region covered before the cut: a lower --rate or a "
                             "shorter --write-time; write.log, write-end.log)")
        reads = jobs[m].get("read", {}).get("total_ios", 0)
        if reads:
            raise RoundError(f"job {m} wrote its whole region before the power cut and was reading it back "
                             f"({reads} reads of fio's verify): none of its writes was going when the power "
                             "went (a lower --rate, a shorter --write-time or a larger --mem-size)")


def last_acknowledged(folder, methods):
    """Per method: its completed writes, and the Unix ms of its last completion of any
    kind ("" where none)."""
    logs = {m: completed(os.path.join(folder, f"write_iops.{i + 1}.log"), m) for i, m in enumerate(methods)}
    writes = {m: [(t, o) for t, d, o in log if d == 1] for m, log in logs.items()}
    return writes, {m: max((t for t, _, _ in log), default="") for m, log in logs.items()}


def quiet_ms(folder, writes, lasts):
    """Per method: ms from its last acknowledged write to the start of the cut's
    command, or to the round's last completion where that came later (the server was
    up until then): the least it can have been quiet before the power went."""
    went = max([cut_start_ms(folder)] + [t for t in lasts.values() if t != ""])
    return {m: (went - max(t for t, _ in w) if w else "") for m, w in writes.items()}


def judge(folder, methods):
    """Per method (in the job files' order): (row of RESULT_COLUMNS, [(offset, message)] lost)."""
    with open(os.path.join(folder, "shape.tsv")) as f:
        shape = f.read().split("\t")
    check_cut_while_writing(folder, methods)
    writes, lasts = last_acknowledged(folder, methods)
    quiet = quiet_ms(folder, writes, lasts)
    texts, doc = fio_output(folder, ["readback.log", "readback.json"])
    if doc is None:
        raise RoundError("the read-back left no fio JSON: readback.log")
    reads = {j.get("jobname"): j.get("read", {}).get("total_ios", 0) for j in doc.get("jobs", [])}
    errors = {j.get("jobname"): j.get("total_err") for j in doc.get("jobs", [])}
    out = []
    for i, m in enumerate(methods):
        if m not in reads:
            raise RoundError(f"the read-back has no job {m}: readback.log")
        bad = bad_blocks(texts, f"{m}.0.0")
        check_bad_count(m, errors[m], bad)
        numberio, _depth, comps = read_state(os.path.join(folder, f"local-{m}-{i}-verify.state"))
        acked = acknowledged(m, [o for _, o in writes[m]], numberio, comps)
        read = reads_of(os.path.join(folder, "readback.iolog"), m, reads[m])
        lost = [(o, bad[o]) for o in acked if o in read and o in bad]
        unread = [o for o in acked if o not in read]
        row = [m, shape[0], shape[1], shape[2], shape[3], len(acked), len(acked) - len(unread), len(lost),
               len(unread), numberio, quiet[m]]
        out.append((row, lost))
    return out


def most_issued(folder, methods):
    return max(read_state(os.path.join(folder, f"local-{m}-{i}-verify.state"))[0] for i, m in enumerate(methods))


def cmd_judge_round(args):
    methods = [m for m in args.methods.split(",") if m]
    try:
        if args.issued:
            print(most_issued(args.dir, methods))
            return 0
        judged = judge(args.dir, methods)
    except RoundError as e:
        with open(os.path.join(args.dir, "error"), "w") as f:
            print(e, file=f)
        return 1
    with open(os.path.join(args.dir, "result.tsv"), "w") as res, open(os.path.join(args.dir, "lost.tsv"), "w") as lost:
        for row, losses in judged:
            print("\t".join(map(str, row)), file=res)
            for off, said in losses:
                print(f"{row[0]}\t{row[1]}\t{off}\t{said}", file=lost)
    # (the runner's console: a line per method)
    for row, _ in judged:
        print(f"  {row[0]:<10} {row[5]:>7} writes acknowledged, {row[6]:>7} read back, {row[7]} lost; "
              f"quiet {row[10]} ms before the cut", file=sys.stderr)
    return 0
