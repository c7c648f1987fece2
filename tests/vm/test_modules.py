# SPDX-License-Identifier: BSD-3-Clause
"""Unit tests of the module walk over modules.dep (scripts/softroce-vm.d/softroce_vm/modules.py).

Fake trees: a lib/modules/KVER folder with a modules.dep, a modules.builtin
and (empty) module files.
"""

import os
import subprocess
import sys
import tempfile
import unittest

PARTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "softroce-vm.d")
sys.path.insert(0, PARTS)

from softroce_vm import modules  # noqa: E402

# Shaped like a real kernel's: rdma_rxe needs ib_uverbs and ib_core, ...
DEP = """\
kernel/lib/crc32_generic.ko.xz:
kernel/arch/x86/crypto/crc32-pclmul.ko.xz:
kernel/drivers/infiniband/core/ib_core.ko.xz:
kernel/drivers/infiniband/core/ib_uverbs.ko.xz: kernel/drivers/infiniband/core/ib_core.ko.xz
kernel/net/ipv6/ip6_udp_tunnel.ko.xz:
kernel/net/ipv4/udp_tunnel.ko.xz:
kernel/drivers/infiniband/sw/rxe/rdma_rxe.ko.xz: kernel/drivers/infiniband/core/ib_uverbs.ko.xz \
kernel/net/ipv6/ip6_udp_tunnel.ko.xz kernel/net/ipv4/udp_tunnel.ko.xz kernel/drivers/infiniband/core/ib_core.ko.xz
kernel/drivers/net/dummy.ko:
"""
BUILTIN = "kernel/drivers/virtio/virtio_pci.ko\nkernel/fs/ext4/ext4.ko\n"


def tree(folder, dep=DEP, builtin=BUILTIN, files=True):
    """Write a modules folder into FOLDER; FILES: the module files too."""
    with open(os.path.join(folder, "modules.dep"), "w") as f:
        f.write(dep)
    if builtin is not None:
        with open(os.path.join(folder, "modules.builtin"), "w") as f:
            f.write(builtin)
    paths, _ = modules.parse_dep(dep.splitlines())
    for rel in paths.values() if files else ():
        os.makedirs(os.path.join(folder, os.path.dirname(rel)), exist_ok=True)
        open(os.path.join(folder, rel), "w").close()
    return folder


def names(order):
    return [(group, modules.mod_key(rel)) for group, rel in order]


class Folder(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.dir = tmp.name

    def resolve(self, *groups, **kw):
        return names(modules.resolve(modules.load(tree(self.dir, **kw)), groups))


class TestKey(unittest.TestCase):
    def test_keys(self):
        for path, key in (("kernel/arch/x86/crypto/crc32-pclmul.ko.xz", "crc32_pclmul"),
                          ("crc32-pclmul", "crc32_pclmul"), ("9p", "9p"),
                          ("kernel/fs/9p/9p.ko", "9p"), ("nd_pmem.ko.zst", "nd_pmem")):
            self.assertEqual(modules.mod_key(path), key)


class TestResolve(Folder):
    def test_dependencies_first_each_once(self):
        got = self.resolve(("base", ["rdma_rxe", "ib_uverbs", "dummy"]))
        self.assertEqual(got, [("base", k) for k in
                               ("ib_core", "ib_uverbs", "ip6_udp_tunnel", "udp_tunnel", "rdma_rxe", "dummy")])

    def test_later_groups_skip_what_is_loaded(self):
        got = self.resolve(("base", ["ib_uverbs"]), ("pmem", ["rdma_rxe"]))
        self.assertEqual(got, [("base", "ib_core"), ("base", "ib_uverbs"), ("pmem", "ip6_udp_tunnel"),
                               ("pmem", "udp_tunnel"), ("pmem", "rdma_rxe")])

    def test_dash_and_underscore_are_one(self):
        self.assertEqual(self.resolve(("g", ["crc32_pclmul", "crc32-generic"])),
                         [("g", "crc32_pclmul"), ("g", "crc32_generic")])

    def test_paths_as_in_modules_dep(self):
        order = modules.resolve(modules.load(tree(self.dir)), [("g", ["ib_uverbs"])])
        self.assertEqual(order, [("g", "kernel/drivers/infiniband/core/ib_core.ko.xz"),
                                 ("g", "kernel/drivers/infiniband/core/ib_uverbs.ko.xz")])

    def test_optional_and_builtin(self):
        got = self.resolve(("g", ["?virtio_pci", "virtio_pci", "ext4", "?missing", "dummy"]))
        self.assertEqual(got, [("g", "dummy")])

    def test_no_modules_builtin(self):
        with self.assertRaisesRegex(modules.ModuleError, "'ext4' is neither"):
            self.resolve(("g", ["ext4"]), builtin=None)

    def test_missing_module(self):
        with self.assertRaises(modules.ModuleError) as e:
            self.resolve(("g", ["dummy", "nfit"]))
        self.assertEqual(str(e.exception),
                         f"kernel module 'nfit' is neither in modules.dep nor built in ({self.dir})")

    def test_cycle(self):
        dep = "a.ko: b.ko\nb.ko: c.ko\nc.ko: b.ko\n"
        with self.assertRaises(modules.ModuleError) as e:
            self.resolve(("g", ["a"]), dep=dep)
        self.assertEqual(str(e.exception), "modules.dep has a dependency cycle: b -> c -> b")

    def test_self_dependency(self):
        with self.assertRaisesRegex(modules.ModuleError, "cycle: a -> a$"):
            self.resolve(("g", ["a"]), dep="a.ko: a.ko\n")

    def test_dependency_without_its_line(self):
        with self.assertRaisesRegex(modules.ModuleError, "names x/b.ko as a dependency of x/a.ko but has no line"):
            self.resolve(("g", ["a"]), dep="x/a.ko: x/b.ko\n", files=False)

    def test_no_modules_dep(self):
        with self.assertRaises(FileNotFoundError):
            modules.load(self.dir)


class TestTool(Folder):
    """tool.py modules as initramfs.sh calls it."""

    def tool(self, *args):
        return subprocess.run([sys.executable, os.path.join(PARTS, "tool.py"), "modules", *args],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def test_lines(self):
        run = self.tool(tree(self.dir), "--group", "base", "?crc32-pclmul", "ib_uverbs", "--group", "pmem", "dummy")
        self.assertEqual((run.returncode, run.stderr), (0, ""))
        self.assertEqual(run.stdout.splitlines(), [
            "base kernel/arch/x86/crypto/crc32-pclmul.ko.xz",
            "base kernel/drivers/infiniband/core/ib_core.ko.xz",
            "base kernel/drivers/infiniband/core/ib_uverbs.ko.xz",
            "pmem kernel/drivers/net/dummy.ko",
        ])

    def test_missing_module(self):
        run = self.tool(tree(self.dir), "--group", "base", "nfit")
        self.assertEqual((run.returncode, run.stdout), (2, ""))
        self.assertIn("softroce-vm: error: kernel module 'nfit' is neither", run.stderr)

    def test_missing_file(self):
        run = self.tool(tree(self.dir, files=False), "--group", "base", "dummy")
        self.assertEqual(run.returncode, 2)
        self.assertIn(f"kernel module file {self.dir}/kernel/drivers/net/dummy.ko is missing", run.stderr)

    def test_bad_arguments(self):
        for args in ([], [self.dir, "dummy"], [self.dir, "--group"]):
            run = self.tool(*args)
            self.assertEqual(run.returncode, 2, args)
            self.assertIn("usage: tool.py modules", run.stderr)
        self.assertIn("No such file", self.tool(self.dir, "--group", "g", "x").stderr)


if __name__ == "__main__":
    unittest.main()
