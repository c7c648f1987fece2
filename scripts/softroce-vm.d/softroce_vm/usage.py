# SPDX-License-Identifier: BSD-3-Clause
"""The --help texts of scripts/softroce-vm, one function a command.

Each takes the Settings (cli.py): the texts name the cache, the project root
and the rxe address as they are on this machine.
"""

PROG = "softroce-vm"


def main_text(s):
    return f"""\
Usage: scripts/{PROG} COMMAND [OPTIONS]

Run commands inside a throw-away QEMU VM with a Soft-RoCE (rxe) RDMA device
and, optionally, emulated persistent memory (NVDIMM).

Commands:
  setup    download a Debian kernel into the cache and build the initramfs
  run      boot the VM and run a command in it:  run [OPTIONS] -- COMMAND...
  status   show the cache, the kernels set up and the host's tools
  clean    remove the cache and/or leftover run directories
  help     show this help, or `help COMMAND`

Examples:
  sudo scripts/deps.sh vm              # once: install QEMU, rdma-core, ...
  scripts/softroce-vm setup            # once: fetch kernel 6.1, build initramfs
  scripts/softroce-vm run -- ibv_devices
  scripts/softroce-vm run --pmem -- sh -c 'ls -l $RPMA_TEST_DEVDAX'

Environment:
  SOFTROCE_VM_CACHE   cache directory (default: ~/.cache/rpma-fio/softroce-vm)
  SOFTROCE_VM_ACCEL   force the accelerator: kvm or tcg (default: kvm when
                      /dev/kvm can run the guest -- decided by a short probe
                      boot, remembered in the cache -- else tcg)
  SOFTROCE_VM_PROBE_TIMEOUT  seconds the KVM probe boot may take (default 10)
  SOFTROCE_VM_QEMU    the QEMU binary (default: QEMU 10 from bookworm-backports,
                      fetched into the cache once; else qemu-system-x86_64 on PATH)
  SOFTROCE_VM_CPU     the guest's CPU model under TCG (default: qemu64)
  SOFTROCE_VM_APPEND  extra guest kernel parameters (debugging)

Run `scripts/{PROG} COMMAND --help` for a command's options; see docs/softroce-vm.md."""


def setup_text(s):
    return f"""\
Usage: scripts/{PROG} setup [--kernel 6.1|6.12] [--transport iwarp] [--refresh]

Download Debian's kernel package (apt-get download + dpkg -x, never installed
on the host) into the cache and build the guest's initramfs.  With the cache
already in place this is quick and needs no network.

Options:
  --kernel V   6.1 (bookworm, default) or 6.12 (bookworm-backports; needs the
               backports apt source: sudo scripts/deps.sh vm)
  --transport iwarp
               also build Soft-iWARP (siw.ko) for the kernel, as the first
               `run --transport iwarp` would: Debian does not build it; it is
               built from Debian's linux-source and linux-headers packages of
               the kernel's release (unpacked into the cache, ~30 s)
  --refresh    ask apt for the newest kernel package and fetch it if it
               differs from the cached one (needs an up-to-date apt index)
  -h, --help   show this help

Cache: {s.cache}"""


def run_text(s):
    return f"""\
Usage: scripts/{PROG} run [OPTIONS] -- COMMAND [ARG...]

Boot the VM, set up Soft-RoCE (or Soft-iWARP) and run COMMAND as root inside it.  Exits with
COMMAND's exit status; 124 if --timeout hit; 125 if the guest stopped before
COMMAND finished; 2 for a usage or setup error.  If the kernel is not in the
cache yet, `setup --kernel V` runs first.

Inside the guest:
  - the host's / is visible read-only (writes go to a RAM overlay; /tmp is
    empty), the shared folder (the project) is read-write at the same path;
  - COMMAND runs in the caller's working directory if it is inside the shared
    folder, else in the shared folder;
  - rxe0 is bound to a dummy netdev; its address is in RPMA_TEST_ADDR
    ({s.rxe_addr}); there is no network device, nothing leaves the guest;
  - SOFTROCE_VM=1; with --pmem also RPMA_TEST_DEVDAX and RPMA_TEST_FSDAX_DIR;
  - COMMAND's stdin is /dev/null; its stdout/stderr come back to the caller's.

With --nodes N (2..4), N guests share one virtual network (QEMU's socket netdev
on a multicast group of the host's loopback): node I is hostname nodeI with
{s.rxe_addr[:-1]}(1+I) on its virtio NIC eth0 and rxe0 on it, dropbear for sshd
with a key made for the run; every node reaches every other with
`ssh nodeI` (BatchMode, the run's known_hosts).  COMMAND runs on node0 once all
answer over ssh (SOFTROCE_VM_NODE, SOFTROCE_VM_NODES are set); remote commands
get the same variables (/etc/softroce-vm.env).  Every node has --pmem's devices,
and 1 MiB of RAM at 128 MiB reserved (memmap=), SOFTROCE_VM_DRAM_CANARY=/dev/mem@0x8000000:
scripts/softroce-vm.d/power.sh's power cut (cut) loses it, its warm reset (reset) keeps it.

Options:
  --kernel V        guest kernel: 6.1 (default) or 6.12
  --transport T     the RDMA device(s): rxe (Soft-RoCE, default), iwarp
                    (Soft-iWARP: siw0 instead of rxe0, on the same address), or
                    rxe,iwarp (both: siw0 on a netdev of its own -- a dummy, or
                    with --nodes a second NIC, eth1, on a network of its own -- at {s.rxe_addr.rsplit('.', 2)[0]}.{int(s.rxe_addr.split('.')[2]) + 1}.(1+I),
                    in RPMA_TEST_IWARP_ADDR); RPMA_TEST_TRANSPORT says which
  --nodes N         guests on one network, 1 to 4 (default 1); see above
  --cpus N          virtual CPUs of each guest (default 2; 1 with --nodes)
  --mem MiB         RAM of each guest (default 2048)
  --timeout SEC     kill the guest after SEC seconds, boot included
                    (default 600; 0 = no limit); exit status 124
  --pmem            add an emulated NVDIMM: devdax /dev/dax0.0 and an ext4
                    file system mounted with -o dax at /mnt/pmem
  --pmem-size MiB   NVDIMM size, a multiple of 64, at least 128 (default 512);
                    half of it is the devdax namespace
  --cxl             (with --pmem) add a persistent CXL type-3 memory device of
                    256 MiB on a q35 machine: a CXL region made of it, and a
                    devdax namespace there (128 MiB) in RPMA_TEST_CXL_DEVDAX
  --env NAME=VALUE  set an environment variable for COMMAND (repeatable);
                    --env NAME passes the caller's value of NAME
  --share DIR       folder shared read-write (default: the project root,
                    {s.root})
  --log FILE        also save the guest log (console + kernel log) to FILE
  --keep-logs       keep the per-run directory (guest log, stdout, stderr);
                    it is always kept when the exit status is not 0
  -q, --quiet       do not print the harness' own notes
  -h, --help        show this help

Builds run inside the guest must not use -march=native (see docs/softroce-vm.md)."""


def status_text(s):
    return f"""\
Usage: scripts/{PROG} status

Show the cache directory, the kernels that are set up, the accelerator that
`run` would use, missing host tools and leftover run directories."""


def clean_text(s):
    return f"""\
Usage: scripts/{PROG} clean [--kernel V | --runs | --all]

  (no option)  remove the whole cache ({s.cache})
               and the leftover run directories
  --kernel V   remove only kernel V (6.1 or 6.12) from the cache
  --runs       remove only the leftover run directories in ${{TMPDIR:-/tmp}}
               (kept after failed runs or with --keep-logs)
  --all        same as no option
  -h, --help   show this help"""


TEXTS = {
    "setup": setup_text,
    "run": run_text,
    "status": status_text,
    "clean": clean_text,
}


def text(topic, settings):
    """The help of command TOPIC; the overview for any other topic."""
    return TEXTS.get(topic, main_text)(settings)
