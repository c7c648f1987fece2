#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""softroce-vm.d/tool.py -- what scripts/softroce-vm asks of its Python side.

  tool.py parse ARG...            softroce-vm's command line -> bash assignments
                                  on stdout (to eval), or an error (exit 2)
  tool.py vmlinux VMLINUZ OUT     write the uncompressed kernel inside VMLINUZ
                                  to OUT; exit 1 and why not on stderr
  tool.py modules DIR --group G MODULE... [--group G MODULE...]
                                  "G PATH" lines: the modules and their
                                  dependencies in load order, PATH relative to
                                  DIR (lib/modules/KVER); exit 2 if one is missing
  tool.py warm-reset SOCKET       reset a guest through its QEMU's QMP socket,
                                  its RAM kept (power.sh reset); exit 1 and why
  tool.py no-reboot SOCKET        once it is up again: a reset ends QEMU again

The logic is in the softroce_vm package next to this file (unit tests:
tests/vm/test_cli.py, test_vmlinux.py, test_modules.py,
test_qmp.py; make test-vm-unit).
"""

import os
import sys

from softroce_vm import cli, modules, qmp, usage, vmlinux

ROOT = os.path.realpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))


def error(message, status=2):
    print(f"{usage.PROG}: error: {message}", file=sys.stderr)
    return status


def do_parse(args):
    settings = cli.settings_here(ROOT)
    try:
        sys.stdout.write(cli.to_shell(cli.parse(args, settings)))
    except cli.NoCommand:
        print(usage.main_text(settings), file=sys.stderr)
        return 2
    except cli.UsageError as e:
        return error(str(e))
    return 0


def do_vmlinux(args):
    if len(args) != 2:
        return error("usage: tool.py vmlinux VMLINUZ OUT")
    try:
        why = vmlinux.extract(args[0], args[1])
    except OSError as e:
        why = str(e)
    if why:
        print(why, file=sys.stderr)
        return 1
    return 0


def module_groups(args):
    """--group G MODULE... [--group G MODULE...] -> [(G, [MODULE...])]."""
    groups = []
    rest = iter(args)
    for arg in rest:
        if arg == "--group":
            name = next(rest, None)
            if name is None:
                raise ValueError("--group needs a name")
            groups.append((name, []))
        elif groups:
            groups[-1][1].append(arg)
        else:
            raise ValueError(f"'{arg}' before the first --group")
    return groups


def do_modules(args):
    try:
        folder, groups = args[0], module_groups(args[1:])
    except (IndexError, ValueError) as e:
        return error(f"usage: tool.py modules DIR --group G MODULE... ({e})")
    try:
        order = modules.resolve(modules.load(folder), groups)
    except (modules.ModuleError, OSError) as e:
        return error(str(e))
    for group, rel in order:
        if not os.path.isfile(os.path.join(folder, rel)):
            return error(f"kernel module file {folder}/{rel} is missing")
        print(group, rel)
    return 0


def qmp_verb(verb, steps):
    def do(args):
        if len(args) != 1:
            return error(f"usage: tool.py {verb} SOCKET")
        try:
            qmp.run(args[0], steps)
        except qmp.QmpError as e:
            print(f"{verb}: {e}", file=sys.stderr)
            return 1
        return 0
    return do


VERBS = {"parse": do_parse, "vmlinux": do_vmlinux, "modules": do_modules,
         "warm-reset": qmp_verb("warm-reset", qmp.WARM_RESET), "no-reboot": qmp_verb("no-reboot", qmp.NO_REBOOT)}


def main(argv):
    if not argv or argv[0] not in VERBS:
        return error(f"usage: tool.py {'|'.join(VERBS)} ARG...")
    return VERBS[argv[0]](argv[1:])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
