#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""tests/matrix/test_platform.py -- `matrix platform`'s facts (scripts/matrix/rpmamatrix/
platform.py) read from fake sysfs/procfs trees: DDIO from a root port's perfctrlsts_0 and
every reason it stays unknown, the RNICs' firmware, link and NUMA node, the CPU governors,
a device-DAX's node. Run directly: python3 tests/matrix/test_platform.py."""
import os
import shutil
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "scripts", "matrix"))
from rpmamatrix import platform  # noqa: E402

XEON_SCALABLE = "vendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 85\nmodel name\t: Xeon\n"
AMD_EPYC = "vendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: 1\nmodel name\t: EPYC\n"
ROOT_PORT = "sys/devices/pci0000:16/0000:16:00.0"
RNIC = ROOT_PORT + "/0000:17:00.0"


def root_port_config(perfctrlsts_0, size=4096):
    """A root port's config space as root reads it: SIZE bytes, the register at 0x180."""
    config = bytearray(size)
    if size >= 0x184:
        config[0x180:0x184] = perfctrlsts_0.to_bytes(4, "little")
    return bytes(config)


class FakeTree(unittest.TestCase):
    """A sysroot in a tempdir, with helpers that write files and links into it."""

    def setUp(self):
        self.root = tempfile.mkdtemp(prefix="platform-test-")

    def tearDown(self):
        shutil.rmtree(self.root)

    def write(self, path, content):
        full = os.path.join(self.root, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "wb" if isinstance(content, bytes) else "w") as f:
            f.write(content)

    def link(self, path, target):
        """A relative symlink, as sysfs has them (so that it resolves inside the tree)."""
        full = os.path.join(self.root, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        os.symlink(os.path.relpath(os.path.join(self.root, target), os.path.dirname(full)), full)

    def mlx5(self, cpuinfo=XEON_SCALABLE, config=None, vendor="0x8086"):
        """An RNIC mlx5_0 at 0000:17:00.0 below root port 0000:16:00.0."""
        self.write("proc/cpuinfo", cpuinfo)
        self.write(ROOT_PORT + "/vendor", vendor + "\n")
        self.write(ROOT_PORT + "/config", root_port_config(0x80) if config is None else config)
        ib = RNIC + "/infiniband/mlx5_0"
        self.write(RNIC + "/numa_node", "1\n")
        self.write(ib + "/fw_ver", "20.31.1014\n")
        self.write(ib + "/ports/1/state", "4: ACTIVE\n")
        self.write(ib + "/ports/1/rate", "100 Gb/sec (4X EDR)\n")
        self.write(ib + "/ports/1/link_layer", "Ethernet\n")
        self.link(ib + "/device", RNIC)
        self.link("sys/class/infiniband/mlx5_0", ib)

    def facts(self, mem="malloc", direct_write=False):
        return platform.facts(self.root, mem, direct_write)


class Ddio(FakeTree):
    def test_on_when_allocating_flow_bit_set(self):
        self.mlx5(config=root_port_config(0x88))
        self.assertEqual(self.facts()["DDIO"],
                         "mlx5_0 root port 0000:16:00.0: on (perfctrlsts_0=0x00000088: "
                         "Use_Allocating_Flow_Wr=1, NoSnoopOpWrEn=1)")

    def test_off_when_allocating_flow_bit_clear(self):
        self.mlx5(config=root_port_config(0x08))
        self.assertIn("mlx5_0 root port 0000:16:00.0: off (perfctrlsts_0=0x00000008: "
                      "Use_Allocating_Flow_Wr=0", self.facts()["DDIO"])

    def test_direct_write_declaration_stays_visible(self):
        self.mlx5()
        self.assertTrue(self.facts(direct_write=True)["DDIO"].endswith(
            ": on (perfctrlsts_0=0x00000080: Use_Allocating_Flow_Wr=1, NoSnoopOpWrEn=0)"
            "; the server declares direct write to PMem"))

    def test_unprivileged_config_needs_root(self):
        self.mlx5(config=bytes(64))
        self.assertEqual(self.facts()["DDIO"], "mlx5_0 root port 0000:16:00.0: unknown "
                         "(the root port's config space past 64 bytes needs root)")

    def test_amd_cpu_names_the_vendor(self):
        self.mlx5(cpuinfo=AMD_EPYC)
        ddio = self.facts()["DDIO"]
        self.assertIn("unknown (the CPU is AuthenticAMD, not Intel", ddio)
        self.assertEqual(self.facts()["cpu model"], "AuthenticAMD family 25 model 1")

    def test_other_intel_model_is_undocumented(self):
        self.mlx5(cpuinfo=XEON_SCALABLE.replace(": 85", ": 106"))
        self.assertIn("unknown (CPU family 6 model 106 is not one where perfctrlsts_0 is "
                      "documented", self.facts()["DDIO"])

    def test_root_port_not_intel(self):
        self.mlx5(vendor="0x1022")
        self.assertIn("unknown (the root port's PCI vendor is 0x1022, not Intel's 0x8086)",
                      self.facts()["DDIO"])

    def test_root_port_above_a_switch(self):
        # RNIC behind a PCIe switch: the register is the root port's, not the switch's
        self.mlx5()
        self.link("sys/class/infiniband/mlx5_1/device", ROOT_PORT + "/0000:17:00.0/0000:18:00.0")
        self.write(ROOT_PORT + "/0000:17:00.0/0000:18:00.0/numa_node", "1\n")
        self.assertIn("mlx5_1 root port 0000:16:00.0: on", self.facts()["DDIO"])

    def test_rxe_is_a_software_device(self):
        self.write("proc/cpuinfo", XEON_SCALABLE)
        self.write("sys/devices/virtual/infiniband/rxe0/fw_ver", "0.0.0\n")
        self.link("sys/class/infiniband/rxe0", "sys/devices/virtual/infiniband/rxe0")
        facts = self.facts()
        self.assertEqual(facts["DDIO"], "rxe0: unknown (not a PCI device: rxe0 is a software "
                                        "RDMA device)")
        self.assertEqual(facts["RNIC NUMA node"], "rxe0=none (a software RDMA device)")

    def test_no_rdma_device(self):
        self.write("proc/cpuinfo", XEON_SCALABLE)
        facts = self.facts()
        self.assertEqual(facts["DDIO"], "unknown (no RDMA device: no /sys/class/infiniband)")
        self.assertEqual(facts["RNIC link"], "unknown (no RDMA device: no /sys/class/infiniband)")


class Rnic(FakeTree):
    def test_firmware_link_and_numa(self):
        self.mlx5()
        facts = self.facts()
        self.assertEqual(facts["RNIC firmware"], "mlx5_0=20.31.1014")
        self.assertEqual(facts["RNIC link"], "mlx5_0/1 ACTIVE 100 Gb/sec (4X EDR) Ethernet")
        self.assertEqual(facts["RNIC NUMA node"], "mlx5_0=1")
        self.assertEqual(facts["cpu model"], "GenuineIntel family 6 model 85")

    def test_numa_minus_one_is_not_reported(self):
        self.mlx5()
        self.write(RNIC + "/numa_node", "-1\n")
        self.assertEqual(self.facts()["RNIC NUMA node"], "mlx5_0=none reported")


class Governor(FakeTree):
    def test_mixed(self):
        for cpu in range(4):
            self.write(f"sys/devices/system/cpu/cpu{cpu}/cpufreq/scaling_governor",
                       "performance\n" if cpu < 3 else "powersave\n")
        self.assertEqual(self.facts()["CPU frequency governor"], "performance 3, powersave 1")

    def test_all_the_same(self):
        for cpu in range(2):
            self.write(f"sys/devices/system/cpu/cpu{cpu}/cpufreq/scaling_governor", "performance\n")
        self.assertEqual(self.facts()["CPU frequency governor"], "performance (all 2 CPUs)")

    def test_absent(self):
        self.write("sys/devices/system/cpu/cpu0/online", "1\n")
        self.assertEqual(self.facts()["CPU frequency governor"],
                         "none (no cpufreq: a VM or a fixed-frequency platform)")


class Memory(FakeTree):
    def test_devdax_target_node_and_size(self):
        self.write("sys/bus/dax/devices/dax1.0/target_node", "1\n")
        self.write("sys/bus/dax/devices/dax1.0/size", str(16 << 30) + "\n")
        self.assertEqual(self.facts(mem="/dev/dax1.0")["server memory placement"],
                         "device-DAX dax1.0: NUMA node 1, 16.0 GiB")

    def test_devdax_on_a_cxl_region(self):
        # sysfs: the DAX device's folder below its region, below the nvdimm bus of the
        # CXL memory device (provider CXL)
        bus = "sys/devices/platform/ACPI0017:00/root0/nvdimm-bridge0/ndbus1"
        dev = bus + "/region1/dax1.0/dax1.0"
        self.write(bus + "/provider", "CXL\n")
        self.write(dev + "/target_node", "1\n")
        self.write(dev + "/size", str(128 << 20) + "\n")
        self.link("sys/bus/dax/devices/dax1.0", dev)
        self.assertEqual(self.facts(mem="/dev/dax1.0")["server memory placement"],
                         "device-DAX dax1.0: NUMA node 1, 128 MiB, on CXL memory, region1 of "
                         "ndbus1 (provider CXL)")

    def test_devdax_on_an_nvdimm(self):
        bus = "sys/devices/LNXSYSTM:00/LNXSYBUS:00/ACPI0012:00/ndbus0"
        dev = bus + "/region0/dax0.0/dax0.0"
        self.write(bus + "/provider", "ACPI.NFIT\n")
        self.write(dev + "/target_node", "0\n")
        self.write(dev + "/size", str(16 << 30) + "\n")
        self.link("sys/bus/dax/devices/dax0.0", dev)
        self.assertEqual(self.facts(mem="/dev/dax0.0")["server memory placement"],
                         "device-DAX dax0.0: NUMA node 0, 16.0 GiB, on region0 of ndbus0 "
                         "(provider ACPI.NFIT)")

    def test_devdax_missing(self):
        self.assertEqual(self.facts(mem="/dev/dax0.0")["server memory placement"],
                         "unknown (device-DAX dax0.0: no /sys/bus/dax/devices/dax0.0)")

    def test_file_on_fsdax_longest_mount(self):
        self.write("proc/mounts", "/dev/vda1 / ext4 rw 0 0\n"
                                  "/dev/pmem0 /mnt/pmem\\0400 xfs rw,dax=always 0 0\n")
        self.write("sys/block/pmem0/device/numa_node", "0\n")
        self.assertEqual(self.facts(mem="/mnt/pmem 0/file")["server memory placement"],
                         "file on /mnt/pmem 0 (/dev/pmem0, xfs, dax=always): pmem0 NUMA node 0")

    def test_malloc(self):
        self.assertTrue(self.facts()["server memory placement"].startswith("DRAM (malloc"))


class Tools(FakeTree):
    def test_not_run_under_a_fake_sysroot(self):
        facts = self.facts()
        self.assertEqual(facts["PMem regions and namespaces"], "not read (--sysroot)")
        self.assertEqual(facts["device-DAX devices"], "not read (--sysroot)")
        self.assertEqual(facts["CXL memory devices and regions"], "not read (--sysroot)")

    def test_cxl_listing_summarised(self):
        # cxl list -M -R: memory devices and regions (a region's mappings name a memdev
        # and its decoder: not a device of their own)
        listing = ('[{"memdevs":[{"memdev":"mem0","pmem_size":268435456,"serial":0,'
                   '"host":"0000:0d:00.0"},{"memdev":"mem1","ram_size":4294967296}]},'
                   '{"regions":[{"region":"region1","resource":8321499136,"size":268435456,'
                   '"interleave_ways":1,"interleave_granularity":256,"decode_state":"commit",'
                   '"mappings":[{"position":0,"memdev":"mem0","decoder":"decoder2.0"}]}]}]')
        lines = [platform.cxl_line(o) for o in platform.cxl_objects(platform.json_values(listing))]
        self.assertEqual(lines, ["mem0 persistent 256 MiB host 0000:0d:00.0", "mem1 volatile 4.0 GiB",
                                 "region1 256 MiB 1-way commit"])

    def test_ndctl_listing_summarised(self):
        # ndctl prints one object after another, regions holding their namespaces
        listing = ('{"dev":"region0","size":34359738368,"type":"pmem","numa_node":0,'
                   '"persistence_domain":"memory_controller","namespaces":[{"dev":"namespace0.0",'
                   '"mode":"devdax","size":33285996544,"chardev":"dax0.0"}]}\n{"dev":"region1"}')
        lines = [platform.nd_line(o) for o in platform.nd_objects(platform.json_values(listing))]
        self.assertEqual(lines, ["region0 pmem 32.0 GiB numa_node 0 persistence_domain memory_controller",
                                 "namespace0.0 devdax 31.0 GiB chardev dax0.0", "region1"])


def main():
    result = unittest.main(exit=False, verbosity=0).result
    failed = len(result.failures) + len(result.errors)
    print(f"test_platform: {result.testsRun - failed} of {result.testsRun} passed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
