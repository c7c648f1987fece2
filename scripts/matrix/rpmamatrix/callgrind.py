# SPDX-License-Identifier: BSD-3-Clause
"""The instructions an engine's callbacks cost, from a callgrind output file of
an instructions run: its total, less the instructions of fio's own code that the
callbacks called. Ours stamp fio's issue time from inside their queue (fio's
clock: about 33 instructions an I/O), which fio stamps for the peer's sync I/Os
outside its callbacks: counted for one side only, it would weigh fio's work as
ours. fio's own code: functions of the fio executable (the file's cmd:) outside
an engines/ folder (the peer's engines are built into its fio)."""
import re

# "key=(id) name", "key=(id)" or "key=name": callgrind's compressed names
NAMED = re.compile(r"(ob|fl|fi|fe|fn|cob|cfi|cfl|cfn)=(?:\((\d+)\))?\s*(.*)$")


class Names:
    """Callgrind's name compression: a name is given once with its id, then the id."""

    def __init__(self):
        self.by_id = {}

    def resolve(self, ident, name):
        if ident is None:
            return name
        if name:
            self.by_id[ident] = name
        return self.by_id.get(ident, "")


def executable_of(cmd):
    """The program a cmd: line ran (its first word)."""
    words = cmd.split()
    return words[0] if words else ""


def is_fio_own(obj, src, fio):
    """Code of fio's own (not an engine's): in the fio executable, outside engines/."""
    if not fio or not obj:
        return False
    same = obj == fio or obj.endswith("/" + fio.lstrip("./"))
    return same and "/engines/" not in src


def parse(path):
    """(total, fio_own): the file's total instructions, and the inclusive cost of
    every call from code that is not fio's own into code that is."""
    names = {k: Names() for k in ("ob", "fl", "fn")}
    kind = {"ob": "ob", "cob": "ob", "fl": "fl", "fi": "fl", "fe": "fl", "cfi": "fl",
            "cfl": "fl", "fn": "fn", "cfn": "fn"}
    total, fio, ob, fl, fn = None, "", "", "", ""
    defined = {}     # function -> {(object, file)} where its cost was given
    self_cost = {}   # function -> instructions collected in its own code
    calls = []       # (caller, its object, its file, callee, callee's object or None, cost)
    callee = {}
    pending = None
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if pending is not None:
                cost = line.split()
                calls.append(pending + (int(cost[1]) if len(cost) > 1 else 0,))
                pending = None
                continue
            if line.startswith("cmd:"):
                fio = executable_of(line[4:])
                continue
            m = re.match(r"(?:totals|summary):\s+(\d+)", line)
            if m:
                total = int(m.group(1))
                continue
            m = NAMED.match(line)
            if m:
                key, ident, name = m.groups()
                value = names[kind[key]].resolve(ident, name)
                if key == "ob":
                    ob = value
                elif key == "fl":
                    fl = value
                elif key == "fn":
                    fn = value
                    defined.setdefault(fn, set()).add((ob, fl))
                elif key in ("cob", "cfn"):
                    callee[key] = value
                continue
            if line.startswith("calls="):
                pending = (fn, ob, fl, callee.get("cfn", ""), callee.get("cob"))
                callee = {}
                continue
            cost = line.split()
            if len(cost) > 1 and cost[1].isdigit():
                self_cost[fn] = self_cost.get(fn, 0) + int(cost[1])
    if total is None:
        raise ValueError(f"{path}: no totals line")
    return total, fio_own_of_calls(calls, defined, self_cost, fio)


def fio_own_of_calls(calls, defined, self_cost, fio):
    """The calls' inclusive costs where collected code of an engine or library called
    fio's own. (A caller that ran no collected instruction of its own is above the
    callbacks: fio's thread, or libc starting it.)"""
    own = 0
    for caller, caller_ob, caller_fl, name, callee_ob, cost in calls:
        if not self_cost.get(caller) or is_fio_own(caller_ob, caller_fl, fio):
            continue  # above the callbacks, or within fio's own code already counted
        homes = {(callee_ob, src) for _, src in defined.get(name, ())} if callee_ob else \
            defined.get(name, set())
        if homes and all(is_fio_own(o, src, fio) for o, src in homes):
            own += cost
    return own


def engine_instructions(path):
    """The callbacks' instructions without fio's own code they called."""
    total, own = parse(path)
    return total - own

