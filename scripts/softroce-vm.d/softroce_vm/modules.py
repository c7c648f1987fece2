# SPDX-License-Identifier: BSD-3-Clause
"""The kernel modules an initramfs needs, in the order to load them.

The initramfs has no modprobe, so its /init loads plain files with insmod:
each module must come after the modules it depends on.  depmod's
modules.dep gives those dependencies ("kernel/a.ko.xz: kernel/b.ko.xz ...")
and modules.builtin the modules compiled into the kernel.
"""

import os
from dataclasses import dataclass


class ModuleError(Exception):
    """A module that cannot be had, or a modules.dep that cannot be ordered."""


def mod_key(path_or_name):
    """A module's name as depmod compares it: no folder or suffix, '-' == '_'."""
    base = path_or_name.rsplit("/", 1)[-1]
    return base.split(".ko", 1)[0].replace("-", "_")


@dataclass
class ModuleDb:
    """One kernel's modules: where each is, what each needs."""

    folder: str  # lib/modules/KVER, for messages
    paths: dict  # key -> path in modules.dep (relative to folder)
    deps: dict  # path -> [paths it needs]
    builtin: set  # keys of the modules built into the kernel


def parse_dep(lines):
    """modules.dep lines -> (paths by key, dependencies by path)."""
    paths, deps = {}, {}
    for line in lines:
        rel, colon, needs = line.rstrip("\n").partition(":")
        if not colon:
            continue
        paths[mod_key(rel)] = rel
        deps[rel] = needs.split()
    return paths, deps


def load(folder):
    """The ModuleDb of FOLDER (lib/modules/KVER with depmod's files)."""
    with open(os.path.join(folder, "modules.dep"), encoding="utf-8") as f:
        paths, deps = parse_dep(f)
    builtin = set()
    try:
        with open(os.path.join(folder, "modules.builtin"), encoding="utf-8") as f:
            builtin = {mod_key(line.strip()) for line in f if line.strip()}
    except FileNotFoundError:
        pass
    return ModuleDb(folder, paths, deps, builtin)


class Walk:
    """A depth-first walk: each module after its dependencies, each once.

    `done` is shared by all the groups of one initramfs, so a later group
    lists only what an earlier one has not loaded yet.
    """

    def __init__(self, db):
        self.db = db
        self.done = set()
        self.stack = []  # the chain being visited, to name a cycle

    def want(self, name):
        """The path of module NAME ('?NAME': may be missing), or None to skip it."""
        optional = name.startswith("?")
        name = name[1:] if optional else name
        key = mod_key(name)
        if key in self.db.paths:
            return self.db.paths[key]
        if key in self.db.builtin or optional:
            return None
        raise ModuleError(
            f"kernel module '{name}' is neither in modules.dep nor built in ({self.db.folder})")

    def visit(self, rel, out):
        if rel in self.done:
            return
        if rel in self.stack:
            chain = self.stack[self.stack.index(rel):] + [rel]
            raise ModuleError("modules.dep has a dependency cycle: "
                              + " -> ".join(mod_key(r) for r in chain))
        if rel not in self.db.deps:
            raise ModuleError(f"modules.dep names {rel} as a dependency"
                              f" of {self.stack[-1]} but has no line for it")
        self.stack.append(rel)
        for dep in self.db.deps[rel]:
            self.visit(dep, out)
        self.stack.pop()
        self.done.add(rel)
        out.append(rel)


def resolve(db, groups):
    """[(group, [names])] -> [(group, path)]: every module in load order."""
    walk = Walk(db)
    order = []
    for group, names in groups:
        for name in names:
            rel = walk.want(name)
            if rel is None:
                continue
            found = []
            walk.visit(rel, found)
            order.extend((group, r) for r in found)
    return order
