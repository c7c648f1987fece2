# SPDX-License-Identifier: BSD-3-Clause
"""The uncompressed kernel (vmlinux, an ELF file) carved out of a vmlinuz.

Debian's vmlinuz is compressed (6.1: XZ, 6.12: zstd); under TCG the kernel's
own decompressor needs 1-3 s of every boot.  A kernel built with
CONFIG_PVH=y can instead be booted by QEMU straight from the ELF vmlinux,
so setup extracts it once, as the kernel's scripts/extract-vmlinux does:
find a compressed stream's magic, decompress from there, keep the first
result that is a whole ELF file.
"""

import lzma
import os
import shutil
import struct
import subprocess

# A kernel is far larger: a smaller ELF is a false start.
MIN_SIZE = 1 << 20
ELF_HEADER = 64  # ELF64's header, which holds the section table's place


def elf_problem(data):
    """Why DATA is not a whole 64-bit little-endian ELF kernel; None if it is."""
    if len(data) < ELF_HEADER or data[:4] != b"\x7fELF":
        return "not an ELF file"
    if data[4] != 2 or data[5] != 1:  # EI_CLASS ELFCLASS64, EI_DATA ELFDATA2LSB
        return "not a 64-bit little-endian ELF file"
    if len(data) < MIN_SIZE:
        return f"only {len(data)} bytes: too small for a kernel"
    (shoff,) = struct.unpack_from("<Q", data, 40)
    shentsize, shnum = struct.unpack_from("<HH", data, 58)
    if shoff == 0:
        return "no section header table"
    if shoff + shentsize * shnum > len(data):
        return "truncated: its section header table ends past the end of the file"
    return None


def elf_complete(data):
    return elf_problem(data) is None


def unxz(data):
    """The first XZ stream at the start of DATA, decompressed.

    What follows the stream (the rest of vmlinuz) is left alone; a corrupt
    stream -- a false magic -- gives what was decompressed before it.
    """
    d = lzma.LZMADecompressor(format=lzma.FORMAT_XZ)
    out = []
    try:
        for at in range(0, len(data), 1 << 20):
            out.append(d.decompress(data[at:at + (1 << 20)]))
            if d.eof:
                break
    except lzma.LZMAError:
        pass
    return b"".join(out)


def unzstd(data):
    """The zstd frame at the start of DATA, by the zstd tool.

    It fails on the data after the frame, so its status says nothing: the
    caller judges the output.
    """
    run = subprocess.run(["zstd", "-dcq"], input=data, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, check=False)
    return run.stdout


# (name, magic, decompress, the tool it needs or None)
FORMATS = (
    ("xz", b"\xfd7zXZ\x00", unxz, None),
    ("zstd", b"\x28\xb5\x2f\xfd", unzstd, "zstd"),
)


def offsets(data, magic):
    """Every place MAGIC starts in DATA."""
    at = data.find(magic)
    while at >= 0:
        yield at
        at = data.find(magic, at + 1)


def carve(data, formats=FORMATS):
    """The vmlinux inside vmlinuz DATA -> (vmlinux bytes or None, why not)."""
    missing = []
    for name, magic, decompress, tool in formats:
        found = list(offsets(data, magic))
        if found and tool and not shutil.which(tool):
            missing.append(tool)
            continue
        for at in found:
            out = decompress(data[at:])
            if elf_complete(out):
                return out, None
    if missing:
        return None, f"needs {' and '.join(missing)} to decompress it"
    names = " or ".join(f[0] for f in formats)
    return None, f"no {names} payload in it decompresses to a whole ELF file"


def extract(vmlinuz, out):
    """Write the vmlinux inside file VMLINUZ to OUT; None, or why it could not."""
    with open(vmlinuz, "rb") as f:
        vmlinux, why = carve(f.read())
    if vmlinux is None:
        return why
    with open(out + ".tmp", "wb") as f:
        f.write(vmlinux)
    os.replace(out + ".tmp", out)
    return None
