# SPDX-License-Identifier: BSD-3-Clause
"""scripts/run_durability.sh --help: its text, the defaults filled in."""
import string

# ($NAME: the program, the project's folder, an option's default)
USAGE = string.Template("""\
Usage: $PROG [OPTIONS]

Rounds of a durability qualification: writes with fio's verify pattern to the
server's persistent memory, the server's power cut while they go on, fio logging
every write it saw complete; once the server is back, every acknowledged write is
read back over RDMA and checked. Writes a result folder (default build/durability/<date-time>)
with report.html / report.md: per method and round the writes acknowledged, read
back and lost (offset, what was read), and a verdict per method.

Where (without --server and without an RDMA device here: two guests of the
Soft-RoCE VM, node1 the server, its power cut by killing its QEMU):
  --server HOST          the PMem server host, over ssh (key-based, BatchMode)
  --remote-dir DIR       the project's folder on HOST (default: $ROOT)
  --server-ip ADDR       the server's RDMA address (default: HOST)
  --power-cut CMD        cuts the server's power, run here (sh -c): e.g. 'ipmitool -I
                         lanplus -H BMC -U USER -E chassis power off && sleep 10 &&
                         ipmitool ... chassis power on' (off long enough for DRAM to
                         forget); required with --server; the round fails if it
                         exits non-zero; a reboot or warm reset (reboot, power
                         reset, ...) is no power cut: warned of, never SURVIVED
  --wait-up CMD          returns once the server is back (default: until ssh HOST
                         answers with a new boot id); either way the server must have
                         booted again (its boot id)
  --dram-canary PATH[@OFFSET]
                         proof that the power went: a 4 KiB block of the server's
                         RAM that a reset keeps and a power loss does not, e.g.
                         /dev/pmemN of memmap=16M!ADDR (docs/hardware.md); before
                         each cut a token of the round is written there, after it
                         the token must be gone, else the round is not judged (in
                         the VM: node1's reserved RAM, /dev/mem@0x8000000)
  --canary-reset CMD     the canary's control, once before the rounds: a reset of
                         the server that keeps its RAM, run here (sh -c): e.g.
                         'ssh HOST systemctl reboot --force' (its status aside: the
                         boot id must change); the token must survive it, else
                         the platform clears memory at boot, the canary cannot
                         tell a reset from a power cut, and no round runs (in the
                         VM: QEMU's system_reset of node1)
  --wait-up-timeout S    at most this long (default $WAIT_UP_TIMEOUT)
  --before-restart CMD   run here once the server is back, before its jobs start
                         again (DURABILITY_ROUND, DURABILITY_ROUND_DIR in its
                         environment): e.g. a check of the platform's logs

The rounds:
  --methods LIST         of apm,gpspm,apm-native (default $METHODS; apm-native: the
                         RNIC's own RDMA FLUSH, with --native; apm is the emulation)
  --rounds N             power cuts (default $ROUNDS)
  --bs LIST              block sizes (default $BS_LIST)
  --iodepth LIST         I/Os in flight per job (default $QD_LIST): round i runs the
                         i-th of the combinations bs x iodepth, cycling
  --batch N              writes posted together, one flush per batch (default $BATCH,
                         at most the iodepth)
  --write-time S         seconds of writes before the cut (default $WRITE_TIME)
  --rate IOPS            writes per second per method (default: a quarter of the
                         region's blocks over --write-time: the writes must not
                         cover the region before the power goes, else there is
                         nothing in flight, and the cut's command takes time)
  --max-quiet MS         SURVIVED only where no method was quiet for longer before
                         a cut (default $MAX_QUIET): its last write acknowledged
                         that long before --power-cut's command began (or before
                         the round's last completion); a job that stalled
                         on a lost packet or failed before the cut tested none of
                         the writes a platform loses first

Each round writes with a random seed and a verify pattern of its own (fio checks
every byte of a block against it), so that no block an earlier round, an earlier
run or another program left can pass for one of this round's writes. The read-back
reads every write the round issued, fio going on past a bad block; fio's I/O logs of
the writes and of the read-back stay in the round's folder.

Server memory:
  --mem PATH             the server's PMem: device DAX (/dev/dax0.0) or a file on an
                         fsdax mount (required with --server; in the VM /dev/dax0.0)
  --mem-size SIZE        bytes per method (default 1g; in the VM 16m); the methods'
                         regions lie one after the other from the start of --mem
  --direct-write         the server declares direct write to PMem (DDIO off or eADR;
                         always in the VM, whose NVDIMM is a file of the host)
  --native               the native build (make native: build/native/); in the VM
                         kernel 6.12 (its rxe has RDMA FLUSH)
  --vm-kernel V          the VM's kernel: 6.1 (default) or 6.12

Output and control:
  --port N               first port (default $PORT_BASE; method i uses N + i)
  --out DIR              the result folder
  --dry-run              print the rounds, run nothing
  -h, --help             this help

Exit status: 0 every acknowledged write survived, 1 a method lost writes, 2 bad
usage, 3 a round could not be judged (the cut, the server's return or the read-back
failed: its reason in the report). Ctrl-C stops cleanly: the client and servers are
stopped and the report of the rounds done so far is written, marked PARTIAL.
""")


def usage(prog, root, defaults):
    return USAGE.substitute(defaults, PROG=prog, ROOT=root)
