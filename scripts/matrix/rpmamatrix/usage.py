# SPDX-License-Identifier: BSD-3-Clause
"""scripts/run_matrix.sh --help: the runner's usage (the usage subcommand), with its
name, the project folder and the defaults the text names filled in."""

USAGE = """\
Usage: {prog} [OPTIONS]            measure, into a new result folder
       {prog} compare DIR_A DIR_B [OUT]   draw two result folders together
       {prog} report [--out DIR] [METHOD=]FIO_JSON...
                                  a result folder from fio JSON of the sweep job files
       {prog} durability [OPTIONS] rounds of writes, the server's power cut and the
                                  read-back of every acknowledged write, with a
                                  verdict per method (scripts/run_durability.sh --help)

Sweeps block size x queue depth x persistency method with the rpma-fio engines
and perftest, N runs per point, and writes raw JSON, results.csv, charts and
report.md / report.html (default folder build/matrix/<date-time>).

Presets (the sweep; every option below overrides its part):
  --quick              1 run per point, 1 s runs, 25 points: a smoke test (~4 min in the VM)
  (default)            2-3 runs per point (--settle 10), 2 s runs + 1 s ramp, 47 points
                       (~13 min in the VM)
  --full               3 runs, 10 s runs, bs 256 B..256 KiB, depth 1..128, mixed rw, 1/2/4 jobs

The sweep:
  --methods LIST       of apm,apm-native,gpspm-busy,gpspm-sleep,gpspm-adaptive,gpspm-hub,
                       noflush,raw (default: all but gpspm-adaptive and gpspm-hub;
                       apm-native only with --native). gpspm-hub: one busy-polling server
                       job (one thread) for all of a point's clients, at the --jobs points
                       above 1 (and with --clients, from 2 connections on)
  --impl LIST          ours,peer: whose engines run the methods (default ours): peer is
                       fio 3.33's in-tree librpma engines over upstream librpma 1.2.0
                       (make peer: build/peer/fio), for apm, gpspm-busy and gpspm-sleep
                       (not GPSPM reads: its client cannot read). With both, each point's
                       runs alternate (ours, peer, ours, peer...: pairs) and the report
                       gives ours/peer with the sign test's interval of the pairs'
                       median ratio and its exact coverage (95% or more from 6 pairs):
                       ahead or behind only when it lies beyond +-PCT% (--margin) of
                       1.00x, else equal within +-X%
  --max-repeats N      with --impl ours,peer: add pairs beyond --repeats, up to N, until
                       the IOPS verdict is decided (default 3 x --repeats; a verdict
                       needs 6 pairs at least)
  --margin PCT         ahead or behind only beyond +-PCT% of 1.00x; decided: ahead,
                       behind, or equal within +-PCT% (default 5)
  --no-costs           skip the cost run of each point (see below)
  --instructions       also count the user-space instructions per I/O of the engine and
                       library (valgrind's callgrind, 500 I/Os, our client sleeping) at the 4 KiB
                       write points of apm and gpspm-sleep (a server that sleeps, so that
                       its count is its work): slow (~1 min a run under TCG);
                       --instructions=sync: at the sync (iodepth 1) points only
  --native             the build with native RDMA FLUSH (make native: build/native/,
                       a newer rdma-core): adds apm-native (the device's own FLUSH)
                       beside apm (the flush emulated by a read); in the VM, kernel 6.12
  --rw LIST            write,read (default both)
  --lat-bs LIST        latency sweep (iodepth 1, sync) block sizes, e.g. 256,4k,64k
  --bw-bs LIST         bandwidth sweep block sizes (at --bw-qd)
  --read-bs LIST       block sizes of the read sweeps (none: no such points, for each
                       of --lat-bs, --bw-bs, --read-bs)
  --qd LIST            depth sweep at 4 KiB, e.g. 1,4,16,64
  --bw-qd N            iodepth of the bandwidth sweep (default 16)
  --mix                add a mixed 70/30 read/write point (4 KiB, --bw-qd)
  --jobs LIST          numjobs points (4 KiB writes at --bw-qd), e.g. 1,2,4
  --server-load LIST   percents, e.g. 50,100: each fio method's 4 KiB write at depth 1
                       (sync) and at --bw-qd again with the server host's CPUs kept that
                       busy (fio's cpuio engine, a job per CPU; in the VM the client's
                       CPUs too: one host), no cost run; charts and findings vs the load
  --repeats N          runs per point (median, min, max)
  --settle PCT         stop a point's runs after 2 when their IOPS agree within PCT%
                       (max - min over the median; default 10, --quick 0; 0: always
                       --repeats); points of ours vs the peer take pairs instead
  --runtime S          seconds of each measured run
  --ramp S             seconds of warm-up before each run

Per-I/O costs: after its measured runs, each fio point runs once more with exactly
2000 I/Os per job (8 MiB for larger blocks), no ramp, the client sleeping on its
completions (busy_wait_polling=0; the peer's client always busy-polls), under
tests/tools/verbs_count.c on both sides: post calls (doorbells), work requests and
completions per I/O, client and server; packets on the wire per I/O (the RDMA
devices' sent_pkts); CPU time per I/O from fio's usr+sys.

Where:
  --server HOST        start the server side on HOST over ssh (key-based, BatchMode)
  --remote-dir DIR     the project's folder on HOST (default: {root})
  --server-ip ADDR     the server's RDMA address (default with --server: HOST;
                       with a local RDMA device: required; in the VM: 192.168.77.1)
  --clients H1,H2,...  the clients on these hosts (or @FILE: one host a line), with
                       fio's client/server mode: `fio --server` started on each over
                       ssh (and stopped afterwards), this host the controller; each
                       fio point runs with the first 1, 2 .. N hosts at once, client i's
                       jobs on the server's jobs for it (ports); the report adds IOPS
                       and latency vs client hosts x jobs. Needs --server; no cost runs
  --rdma-dev DEV       the RDMA device for perftest (default: its first)
  --vm-kernel V        the Soft-RoCE VM's kernel: 6.1 (default) or 6.12
  --transport T        the VM's RDMA device: roce (Soft-RoCE, default) or iwarp
                       (Soft-iWARP, built for the guest's kernel on first use); with
                       an RNIC its own transport is used, and the report names it
  --port N             first TCP port used (default {port}; one per run)

Server memory:
  --mem malloc|PATH    DRAM (default), a device-DAX path (/dev/dax0.0) or a file on fsdax
  --mem-size SIZE      per server job (default {size}; device DAX: a multiple of 2m)
  --direct-write       the server advertises direct write to PMem (DDIO off / eADR):
                       APM then flushes with the persistent type
  --pmem               in the VM: use its emulated device DAX (--mem /dev/dax0.0)
  --cxl                in the VM: use device DAX on its emulated persistent CXL memory
                       (--mem /dev/dax1.0; the VM boots with CXL, docs/softroce-vm.md)

Output and control:
  --out DIR            the result folder (default build/matrix/<date-time>); outside
                       the project folder too (the VM's results are moved there)
  --resume DIR         continue an interrupted run into its folder DIR, with the options
                       it was started with (no other option): runs done are kept
  --dry-run            print the plan and its estimated duration, run nothing
  -h, --help           this help

report: the sweep job files (jobs/sweep.fio, docs/engines.md) run the points with
plain fio; give the client's --output-format=json output (one file per engine, or
several runs of one: they become the runs of each point). Each section becomes a
point: rw, bs and iodepth from its name (write-bs4k-qd16), sync from its options;
the method from the engine in the JSON (librpma_apm: apm, or noflush with
no_flush=1; librpma_gpspm: gpspm-busy, gpspm-sleep if the server's JSON says
busy_wait_polling=0, gpspm-adaptive if adaptive), or as METHOD= names it (gpspm-sleep=FILE). The server's
JSON next to the client's NAME.json, as NAME.server.json, adds the server's CPU.
Default --out: build/matrix/sweep-<date-time>.

Needs: fio, jq, gnuplot, python3, perftest, and the engines and the cost counter
(make engines tools).
Ctrl-C stops cleanly: servers and the VM are torn down, the partial results
are kept and the report says PARTIAL; --resume DIR continues it.
"""


def usage_text(prog, root, port, size):
    return USAGE.format(prog=prog, root=root, port=port, size=size)
