#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""tests/matrix/test_environment.py -- the env subcommand (run by tests/matrix/test_matrix.sh):
the RDMA devices' facts and transports from a made-up sysfs (Soft-RoCE, Soft-iWARP, an
InfiniBand CA), the git revision read from .git (a branch, packed refs, a detached head),
a server platform that could not be read, and env.json's keys in their order."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

from benchrun import MATRIX

sys.path.insert(0, os.path.dirname(MATRIX))
from rpmamatrix import environment  # noqa: E402


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text + "\n")


class Devices(unittest.TestCase):
    def test_transports_and_facts(self):
        with tempfile.TemporaryDirectory() as root:
            ib = os.path.join(root, "sys/class/infiniband")
            for dev, node_type, link in (("rxe0", "1: CA", "Ethernet"), ("siw0", "4: RNIC", "Ethernet"),
                                         ("mlx4_0", "1: CA", "InfiniBand")):
                write(f"{ib}/{dev}/node_type", node_type)
                write(f"{ib}/{dev}/ports/1/link_layer", link)
            write(f"{ib}/rxe0/fw_ver", "0.0.0")
            write(f"{ib}/rxe0/ports/1/rate", "100 Gb/sec (4X EDR)")
            got = environment.devices(root)
        self.assertEqual(got["rdma devices"], "mlx4_0 rxe0 siw0")
        self.assertEqual(got["transport"], "mlx4_0=InfiniBand rxe0=RoCE siw0=iWARP")
        self.assertEqual(got["firmware"], "mlx4_0=? rxe0=0.0.0 siw0=?")
        self.assertEqual(got["link rate"], "mlx4_0=? rxe0=100 Gb/sec (4X EDR) siw0=?")

    def test_none(self):
        with tempfile.TemporaryDirectory() as root:
            self.assertEqual(set(environment.devices(root).values()), {""})


class GitRevision(unittest.TestCase):
    def test_branch_packed_detached(self):
        with tempfile.TemporaryDirectory() as root:
            self.assertEqual(environment.git_revision(root), "unknown")
            write(f"{root}/.git/HEAD", "ref: refs/heads/main")
            write(f"{root}/.git/packed-refs", "# pack-refs\nabc123 refs/heads/main")
            self.assertEqual(environment.git_revision(root), "abc123")
            write(f"{root}/.git/refs/heads/main", "def456")
            self.assertEqual(environment.git_revision(root), "def456")
            write(f"{root}/.git/HEAD", "0123abcd")
            self.assertEqual(environment.git_revision(root), "0123abcd")


class Env(unittest.TestCase):
    def test_keys_in_order_server_platform_unread(self):
        done = subprocess.run([sys.executable, MATRIX, "env", "--root", "/nonexistent",
                               "--server-host", "h", "--server-kernel", "6.1",
                               "--server-platform=-oops\nno python3", "--server-platform-rc=127"],
                              capture_output=True, text=True, check=True)
        env = json.loads(done.stdout)
        self.assertEqual(list(env)[:5], ["date", "host", "kernel", "cpu", "cpus"])
        self.assertEqual((env["server host"], env["server kernel"], env["server cpu"]), ("h", "6.1", "same"))
        self.assertEqual((env["engines"], env["git revision"]), ("", "unknown"))
        self.assertEqual(env["server platform"], "could not be read: exit 127: no python3")


if __name__ == "__main__":
    unittest.main()
