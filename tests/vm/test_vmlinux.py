# SPDX-License-Identifier: BSD-3-Clause
"""Unit tests of the vmlinux extraction (scripts/softroce-vm.d/softroce_vm/vmlinux.py).

Fake kernels: a small ELF64 header padded past 1 MiB, compressed with XZ or
zstd and wrapped in junk the way vmlinuz wraps its payload.
"""

import lzma
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import unittest

PARTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "softroce-vm.d")
sys.path.insert(0, PARTS)

from softroce_vm import vmlinux  # noqa: E402

XZ_MAGIC = b"\xfd7zXZ\x00"
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"


SIZE = vmlinux.MIN_SIZE + 4096


def fake_elf(size=SIZE, shoff=None, shentsize=64, shnum=8, ident=b"\x7fELF\x02\x01"):
    """An ELF64 header whose section table ends SIZE bytes in (by default)."""
    if shoff is None:
        shoff = size - shentsize * shnum
    header = bytearray(64)
    header[:len(ident)] = ident
    struct.pack_into("<Q", header, 40, shoff)
    struct.pack_into("<HH", header, 58, shentsize, shnum)
    return bytes(header) + b"\x90" * (size - 64)


def xz(data):
    return lzma.compress(data, format=lzma.FORMAT_XZ, preset=0)


def zstd(data):
    return subprocess.run(["zstd", "-q", "-c"], input=data, stdout=subprocess.PIPE, check=True).stdout


# What surrounds the payload in a vmlinuz: setup code, then junk after it.
HEAD = b"MZ" + b"\x00" * 500
TAIL = b"\x01\x02\x03\x04" * 64


class TestElf(unittest.TestCase):
    def test_whole(self):
        self.assertIsNone(vmlinux.elf_problem(fake_elf()))
        self.assertTrue(vmlinux.elf_complete(fake_elf()))

    def test_problems(self):
        cases = {
            "not an ELF file": (b"", b"MZ" + fake_elf()[2:], fake_elf()[:63]),
            "not a 64-bit little-endian ELF file": (fake_elf(ident=b"\x7fELF\x01\x01"),
                                                    fake_elf(ident=b"\x7fELF\x02\x02")),
            "no section header table": (fake_elf(shoff=0),),
            "truncated: its section header table ends past the end of the file":
                (fake_elf()[:-1], fake_elf(shoff=SIZE - 64 * 8, shnum=9)),
        }
        for why, datas in cases.items():
            for data in datas:
                self.assertEqual(vmlinux.elf_problem(data), why)
                self.assertFalse(vmlinux.elf_complete(data))

    def test_too_small_for_a_kernel(self):
        small = fake_elf(size=4096)
        self.assertEqual(vmlinux.elf_problem(small), "only 4096 bytes: too small for a kernel")


class TestCarve(unittest.TestCase):
    def test_xz_between_junk(self):
        elf = fake_elf()
        got, why = vmlinux.carve(HEAD + xz(elf) + TAIL)
        self.assertEqual((got, why), (elf, None))

    def test_false_magic_first(self):
        elf = fake_elf()
        decoy = XZ_MAGIC + b"not a stream" * 10
        got, _ = vmlinux.carve(HEAD + decoy + xz(elf) + TAIL)
        self.assertEqual(got, elf)

    def test_small_elf_first(self):
        # a compressed stream that is an ELF but no kernel is passed over
        elf = fake_elf()
        got, _ = vmlinux.carve(HEAD + xz(fake_elf(size=4096)) + xz(elf) + TAIL)
        self.assertEqual(got, elf)

    def test_truncated_payload(self):
        got, why = vmlinux.carve(HEAD + xz(fake_elf())[:-200])
        self.assertIsNone(got)
        self.assertEqual(why, "no xz or zstd payload in it decompresses to a whole ELF file")

    def test_payload_of_a_truncated_elf(self):
        got, why = vmlinux.carve(HEAD + xz(fake_elf()[:-100]) + TAIL)
        self.assertIsNone(got)
        self.assertIn("decompresses to a whole ELF file", why)

    def test_no_payload(self):
        self.assertEqual(vmlinux.carve(HEAD + TAIL),
                         (None, "no xz or zstd payload in it decompresses to a whole ELF file"))

    @unittest.skipUnless(shutil.which("zstd"), "needs the zstd tool")
    def test_zstd_between_junk(self):
        elf = fake_elf()
        got, why = vmlinux.carve(HEAD + ZSTD_MAGIC + b"junk" + zstd(elf) + TAIL)
        self.assertEqual((got, why), (elf, None))

    def test_tool_missing(self):
        formats = (("zstd", ZSTD_MAGIC, vmlinux.unzstd, "no-such-zstd-tool"),)
        got, why = vmlinux.carve(HEAD + ZSTD_MAGIC + TAIL, formats)
        self.assertEqual((got, why), (None, "needs no-such-zstd-tool to decompress it"))

    def test_tool_missing_but_no_magic(self):
        formats = (("zstd", ZSTD_MAGIC, vmlinux.unzstd, "no-such-zstd-tool"),)
        self.assertEqual(vmlinux.carve(HEAD + TAIL, formats),
                         (None, "no zstd payload in it decompresses to a whole ELF file"))


class TestExtract(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.dir = tmp.name
        self.out = os.path.join(self.dir, "vmlinux")

    def vmlinuz(self, data):
        path = os.path.join(self.dir, "vmlinuz")
        with open(path, "wb") as f:
            f.write(data)
        return path

    def test_writes_the_elf(self):
        elf = fake_elf()
        self.assertIsNone(vmlinux.extract(self.vmlinuz(HEAD + xz(elf) + TAIL), self.out))
        with open(self.out, "rb") as f:
            self.assertEqual(f.read(), elf)
        self.assertEqual(sorted(os.listdir(self.dir)), ["vmlinux", "vmlinuz"])  # no .tmp left

    def test_writes_nothing_on_failure(self):
        self.assertIsNotNone(vmlinux.extract(self.vmlinuz(HEAD + TAIL), self.out))
        self.assertEqual(os.listdir(self.dir), ["vmlinuz"])

    def test_tool(self):
        tool = os.path.join(PARTS, "tool.py")
        ok = subprocess.run([sys.executable, tool, "vmlinux", self.vmlinuz(HEAD + xz(fake_elf())), self.out])
        self.assertEqual(ok.returncode, 0)
        bad = subprocess.run([sys.executable, tool, "vmlinux", self.vmlinuz(TAIL), self.out + "2"],
                             stderr=subprocess.PIPE, text=True)
        self.assertEqual((bad.returncode, bad.stderr),
                         (1, "no xz or zstd payload in it decompresses to a whole ELF file\n"))
        missing = subprocess.run([sys.executable, tool, "vmlinux", self.dir + "/none", self.out],
                                 stderr=subprocess.PIPE, text=True)
        self.assertEqual(missing.returncode, 1)
        self.assertIn("No such file", missing.stderr)


if __name__ == "__main__":
    unittest.main()
