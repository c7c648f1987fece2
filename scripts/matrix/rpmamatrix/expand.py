# SPDX-License-Identifier: BSD-3-Clause
"""The expand-job subcommand: a fio job file for a client host of fio's client/server
mode (run_matrix.sh --clients), its includes inlined and every ${VAR} given a value,
since such a host is sent the file but not an environment."""
import os
import re

from .common import die

JOB_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


def expand_job(path, values, seen=()):
    """The lines of fio job file PATH with its includes inlined and every ${VAR} replaced
    from VALUES: what a client host of fio's client/server mode is sent (it cannot be
    given an environment of its own)."""
    if path in seen:
        die(f"{path}: includes itself")
    try:
        with open(path) as f:
            text = f.read()
    except OSError as e:
        die(f"{path}: {e.strerror}")
    out = []
    for line in text.splitlines():
        words = line.split(None, 1)
        if not words or words[0][0] in "#;":
            continue  # fio's comments (they may name ${VARIABLES})
        if words[0] == "include" and len(words) == 2:
            out += expand_job(os.path.join(os.path.dirname(path), words[1].strip()), values,
                              seen + (path,))
            continue

        def value(m):
            if m.group(1) not in values:
                die(f"{path}: ${{{m.group(1)}}} has no value (give {m.group(1)}=VALUE)")
            return values[m.group(1)]
        out.append(JOB_VAR.sub(value, line))
    return out


def cmd_expand_job(args):
    values = {}
    for kv in args.vars:
        name, eq, val = kv.partition("=")
        if not eq or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
            die(f"expand-job: '{kv}' is not VAR=VALUE")
        values[name] = val
    lines = expand_job(args.job, values)
    at = next((i + 1 for i, l in enumerate(lines) if l.strip() == "[global]"), None)
    extra = [f"{o}" for o in args.set or []]
    if at is None:
        lines = ["[global]"] + extra + lines
    else:
        lines[at:at] = extra
    with open(args.out, "w") as f:
        f.write("\n".join(lines) + "\n")
