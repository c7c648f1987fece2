#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""tests/multinode/pmem_image.py -- a platform that loses what it acknowledged, played
on the server host's device DAX by tests/multinode/durability.sh (run there over ssh,
while the durability servers are down):

  pmem_image.py DEV save IMAGE SIZE            the first SIZE bytes of DEV into IMAGE
  pmem_image.py DEV revert IMAGE START LEN     bytes START..START+LEN back to IMAGE's
  pmem_image.py DEV blocks IMAGE BS OFF...     the BS-byte blocks at OFF back to IMAGE's
  pmem_image.py DEV tear OFF...                one byte at OFF changed (a torn write)
"""
import mmap
import os
import sys


def main():
    dev, what, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    fd = os.open(dev, os.O_RDWR)
    size = int(args[1]) if what == "save" else 64 << 20
    m = mmap.mmap(fd, size, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
    if what == "save":
        with open(args[0], "wb") as f:
            f.write(m[:size])
    elif what == "tear":
        for off in map(int, args):
            m[off] ^= 0x5a
    else:
        with open(args[0], "rb") as f:
            image = f.read()
        if what == "revert":
            start, length = int(args[1]), int(args[2])
            m[start:start + length] = image[start:start + length]
        else:
            bs = int(args[1])
            for off in map(int, args[2:]):
                m[off:off + bs] = image[off:off + bs]
    m.close()
    os.close(fd)


if __name__ == "__main__":
    main()
