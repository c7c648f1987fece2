#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# run_matrix.sh -- the project's main job: sweep block size x queue depth x
# persistency method (APM, GPSPM busy-polling and sleeping, the no-flush
# baseline and perftest's raw verbs) and leave a result folder with raw fio
# JSON, one tidy CSV, gnuplot charts and a Markdown + HTML report.
#
# Where it runs: without arguments on a machine with no RDMA device, in the
# Soft-RoCE VM (it re-runs itself inside); with a local RDMA device, on it;
# with --server HOST, the server side over ssh. Details: docs/matrix.md.
set -euo pipefail

PROG=${0##*/}
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
MATRIX=$ROOT/scripts/matrix/matrix
# shellcheck source=scripts/matrix/lib.sh
. "$ROOT/scripts/matrix/lib.sh"

PRESET=default
REPEATS='' RUNTIME='' RAMP='' MAX_REPEATS='' MARGIN=5 SETTLE=''
OUT=
SERVER_IP='' SSH_HOST='' REMOTE_DIR=$ROOT
CLIENTS_ARG='' CLIENT_HOSTS=()
SERVER_MEM=malloc SERVER_SIZE=64m DIRECT_WRITE=0
RDMA_DEV='' PORT_BASE=7400 PERFTEST_ITERS=1000
DRY_RUN=0 IN_VM=0 VM_PMEM=0 VM_KERNEL='' VM_TRANSPORT=''
# 1: continuing the run in --out (--resume DIR re-runs this script with --resumed)
RESUME=0
ORIG_ARGS=()
RUN_STEM=''		# the run in progress (runs/<id>-r<k>, -cost, -instr): on_interrupt marks it
NATIVE=0 RDMA_CORE_PREFIX=${RPMA_FIO_RDMA_CORE:-}
IMPLS=ours COSTS=1 INSTRUCTIONS=0
PEER_FIO=build/peer/fio
PLAN_ARGS=()
# seconds each run costs besides its runtime + ramp (process start-up, connection)
OVERHEAD_HW=1 OVERHEAD_VM=3

usage() {
	cat <<EOF
Usage: $PROG [OPTIONS]            measure, into a new result folder
       $PROG compare DIR_A DIR_B [OUT]   draw two result folders together
       $PROG report [--out DIR] [METHOD=]FIO_JSON...
                                  a result folder from fio JSON of the sweep job files
       $PROG durability [OPTIONS] rounds of writes, the server's power cut and the
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
                       ahead or behind only when it excludes 1.00x, else equal within +-X%
  --max-repeats N      with --impl ours,peer: add pairs beyond --repeats, up to N, until
                       the IOPS verdict is decided (default 3 x --repeats; a verdict
                       needs 6 pairs at least)
  --margin PCT         ... decided: ahead, behind, or equal within +-PCT% (default 5)
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
  --remote-dir DIR     the project's folder on HOST (default: $ROOT)
  --server-ip ADDR     the server's RDMA address (default with --server: HOST;
                       with a local RDMA device: required; in the VM: 192.168.77.1)
  --clients H1,H2,...  the clients on these hosts (or @FILE: one host a line), with
                       fio's client/server mode: \`fio --server\` started on each over
                       ssh (and stopped afterwards), this host the controller; each
                       fio point runs with the first 1, 2 .. N hosts at once, client i's
                       jobs on the server's jobs for it (ports); the report adds IOPS
                       and latency vs client hosts x jobs. Needs --server; no cost runs
  --rdma-dev DEV       the RDMA device for perftest (default: its first)
  --vm-kernel V        the Soft-RoCE VM's kernel: 6.1 (default) or 6.12
  --transport T        the VM's RDMA device: roce (Soft-RoCE, default) or iwarp
                       (Soft-iWARP, built for the guest's kernel on first use); with
                       an RNIC its own transport is used, and the report names it
  --port N             first TCP port used (default $PORT_BASE; one per run)

Server memory:
  --mem malloc|PATH    DRAM (default), a device-DAX path (/dev/dax0.0) or a file on fsdax
  --mem-size SIZE      per server job (default $SERVER_SIZE; device DAX: a multiple of 2m)
  --direct-write       the server advertises direct write to PMem (DDIO off / eADR):
                       APM then flushes with the persistent type
  --pmem               in the VM: use its emulated device DAX (--mem /dev/dax0.0)

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
EOF
}

parse_args() {
	while [ $# -gt 0 ]; do
		case "$1" in
		--quick) PRESET=quick ;;
		--full) PRESET=full ;;
		--methods|--lat-bs|--bw-bs|--read-bs|--qd|--bw-qd|--jobs|--server-load)
			need_value "$@"; PLAN_ARGS+=("$1" "$2"); shift ;;
		--rw) need_value "$@"; PLAN_ARGS+=(--rws "$2"); shift ;;
		--mix) PLAN_ARGS+=(--mix) ;;
		--repeats) need_value "$@"; REPEATS=$2; shift ;;
		--max-repeats) need_value "$@"; MAX_REPEATS=$2; shift ;;
		--margin) need_value "$@"; MARGIN=$2; shift ;;
		--settle) need_value "$@"; SETTLE=$2; shift ;;
		--runtime) need_value "$@"; RUNTIME=$2; shift ;;
		--ramp) need_value "$@"; RAMP=$2; shift ;;
		--server) need_value "$@"; SSH_HOST=$2; shift ;;
		--remote-dir) need_value "$@"; REMOTE_DIR=$2; shift ;;
		--server-ip) need_value "$@"; SERVER_IP=$2; shift ;;
		--clients) need_value "$@"; CLIENTS_ARG=$2; shift ;;
		--rdma-dev) need_value "$@"; RDMA_DEV=$2; shift ;;
		--vm-kernel) need_value "$@"; VM_KERNEL=$2; shift ;;
		--transport) need_value "$@"; VM_TRANSPORT=$2; shift ;;
		--port) need_value "$@"; PORT_BASE=$2; shift ;;
		--mem) need_value "$@"; SERVER_MEM=$2; shift ;;
		--mem-size) need_value "$@"; SERVER_SIZE=$2; shift ;;
		--direct-write) DIRECT_WRITE=1 ;;
		--pmem) VM_PMEM=1 ;;
		--native) NATIVE=1; PLAN_ARGS+=(--native) ;;
		--impl) need_value "$@"; IMPLS=$2; PLAN_ARGS+=(--impls "$2"); shift ;;
		--no-costs) COSTS=0 ;;
		--instructions) INSTRUCTIONS=1 ;;
		--instructions=sync) INSTRUCTIONS=sync ;;
		--out) need_value "$@"; OUT=$2; shift ;;
		--dry-run) DRY_RUN=1 ;;
		--in-vm) IN_VM=1 ;;
		--resumed) RESUME=1 ;;
		# (main takes --resume DIR alone: here it came with other options)
		--resume) die "--resume takes no other option: it continues DIR with the options it was started with" ;;
		-h|--help) usage; exit 0 ;;
		*) die "unknown option '$1' (see --help)" ;;
		esac
		shift
	done
	# (every option checked now, before anything runs, with one line each: first those
	# that need no plan)
	[[ $MARGIN =~ ^[1-9][0-9]?$ ]] || die "--margin: '$MARGIN' is not a whole percent in 1..99"
	[ -z "$SETTLE" ] || [[ $SETTLE =~ ^[0-9]{1,2}$ ]] || die "--settle: '$SETTLE' is not a whole percent in 0..99"
	if ! [[ $PORT_BASE =~ ^[0-9]+$ ]] || [ "$PORT_BASE" -lt 1024 ] || [ "$PORT_BASE" -gt 60000 ]; then
		die "--port: '$PORT_BASE' is not a port in 1024..60000"
	fi
	[[ $SERVER_SIZE =~ ^[1-9][0-9]*[kKmMgG]?$ ]] || die "--mem-size: '$SERVER_SIZE' is not a size like 64m"
	case $VM_KERNEL in ''|6.1|6.12) ;; *) die "--vm-kernel: '$VM_KERNEL' is neither 6.1 nor 6.12" ;; esac
	case $VM_TRANSPORT in ''|roce|iwarp) ;; *) die "--transport: '$VM_TRANSPORT' is neither roce nor iwarp" ;; esac
	[ -z "$VM_TRANSPORT" ] || [ -z "$SERVER_IP$SSH_HOST" ] || die "--transport picks the VM's device:" \
		"with an RNIC (--server, --server-ip) its own transport is used, and the report names it"
	check_places
	local defaults
	# (the whole plan checked here too)
	defaults=$(python3 "$MATRIX" plan --preset "$PRESET" "${PLAN_ARGS[@]}" --defaults)
	local k v
	for kv in $defaults; do
		k=${kv%%=*} v=${kv#*=}
		case $k in
		repeats) REPEATS=${REPEATS:-$v} ;;
		runtime) RUNTIME=${RUNTIME:-$v} ;;
		ramp) RAMP=${RAMP:-$v} ;;
		settle) SETTLE=${SETTLE:-$v} ;;
		esac
	done
	[[ $REPEATS =~ ^[1-9][0-9]*$ ]] || die "--repeats: '$REPEATS' is not a positive number"
	MAX_REPEATS=${MAX_REPEATS:-$((3 * REPEATS))}
	[[ $MAX_REPEATS =~ ^[1-9][0-9]*$ ]] || die "--max-repeats: '$MAX_REPEATS' is not a positive number"
	[ "$MAX_REPEATS" -ge "$REPEATS" ] || die "--max-repeats: $MAX_REPEATS is less than --repeats ($REPEATS)"
	[[ $RUNTIME =~ ^[1-9][0-9]*$ ]] || die "--runtime: '$RUNTIME' is not a whole number of seconds"
	[[ $RAMP =~ ^[0-9]+$ ]] || die "--ramp: '$RAMP' is not a whole number of seconds"
	if [ "$VM_PMEM" = 1 ]; then SERVER_MEM=/dev/dax0.0; fi
	check_local_mem
	[ -z "$CLIENTS_ARG" ] || parse_clients
	if [ "$NATIVE" = 1 ]; then
		# 6.1's rxe has no FLUSH
		[ "$VM_KERNEL" != 6.1 ] || die "--native: kernel 6.1's Soft-RoCE has no RDMA FLUSH: use --vm-kernel 6.12"
		VM_KERNEL=6.12
	fi
}

# --server, --server-ip, --remote-dir, --rdma-dev and --out: names that can work, before
# anything connects or runs
check_places() {
	check_hosts
	[[ $REMOTE_DIR == /* ]] || die "--remote-dir: '$REMOTE_DIR' is not an absolute path (the folder on --server)"
	[ -z "$RDMA_DEV" ] || [[ $RDMA_DEV =~ ^[A-Za-z0-9_.-]+$ ]] ||
		die "--rdma-dev: '$RDMA_DEV' is not an RDMA device name (ibv_devices lists them)"
	[ -z "$OUT" ] || [ ! -e "$OUT" ] || [ -d "$OUT" ] || die "--out: '$OUT' is not a folder"
}

# --mem PATH where the server runs here or in the VM (a --server's: check_remote_mem):
# the engine opens it, it never creates it
check_local_mem() {
	[ "$SERVER_MEM" != malloc ] && [ -z "$SSH_HOST" ] && [ "$IN_VM" = 0 ] || return 0
	if has_rdma_device; then
		[ -e "$SERVER_MEM" ] || die "--mem: '$SERVER_MEM' does not exist (a device-DAX device or a file on an fsdax mount)"
	elif [[ $SERVER_MEM == /dev/dax* ]]; then
		[ "$VM_PMEM" = 1 ] || die "--mem $SERVER_MEM: the VM has a device-DAX device only with --pmem (which implies --mem /dev/dax0.0)"
	else
		if ! { inside_project "$SERVER_MEM" && [ -e "$SERVER_MEM" ]; }; then
			die "--mem: '$SERVER_MEM' must be an existing file inside the project folder, the one folder the VM shares (or use --pmem)"
		fi
	fi
}

# --mem PATH on the --server host, before the first run
check_remote_mem() {
	[ "$SERVER_MEM" != malloc ] || return 0
	on_server test -e "$SERVER_MEM" ||
		die "--mem: '$SERVER_MEM' does not exist on $SSH_HOST (a device-DAX device or a file on an fsdax mount)"
}

# --clients H1,H2,... or @FILE -> CLIENT_HOSTS; what the mode cannot do is refused here
parse_clients() {
	local h list=()
	if [[ $CLIENTS_ARG == @* ]]; then
		[ -r "${CLIENTS_ARG#@}" ] || die "--clients: cannot read the host file '${CLIENTS_ARG#@}'"
		mapfile -t list < <(sed -e 's/#.*//' -e 's/[[:space:]]//g' "${CLIENTS_ARG#@}" | grep -v '^$')
	else
		IFS=, read -ra list <<<"$CLIENTS_ARG"
	fi
	[ ${#list[@]} -gt 0 ] || die "--clients: no host in '$CLIENTS_ARG'"
	for h in "${list[@]}"; do
		[[ $h =~ ^[A-Za-z0-9][A-Za-z0-9._:-]*$ ]] || die "--clients: '$h' is not a host name"
		[[ " ${CLIENT_HOSTS[*]} " != *" $h "* ]] || die "--clients: '$h' is named twice"
		CLIENT_HOSTS+=("$h")
	done
	[ -n "$SSH_HOST" ] || die "--clients needs --server HOST: the server side runs there"
	[ "$IMPLS" = ours ] || die "--clients: only our engines (--impl ours) run as job files on client hosts"
	[ "$INSTRUCTIONS" = 0 ] || die "--clients: --instructions counts one client: run it without --clients"
	[ "$NATIVE" = 0 ] || die "--clients: not with --native (its libibverbs is not on the client hosts)"
	# per-I/O costs are per connection: one host shows them (run without --clients)
	COSTS=0
	PLAN_ARGS+=(--hosts "${#CLIENT_HOSTS[@]}")
}

check_tools() {
	local t
	for t in fio jq gnuplot python3; do
		command -v "$t" >/dev/null || die "$t is missing: run scripts/deps.sh"
	done
	if grep -q raw <<<"$(plan_methods)"; then
		for t in ib_write_lat ib_read_lat ib_write_bw; do
			command -v "$t" >/dev/null || die "$t is missing (package perftest): run scripts/deps.sh"
		done
	fi
	if [ "$INSTRUCTIONS" != 0 ]; then
		command -v valgrind >/dev/null || die "--instructions: valgrind is missing: run scripts/deps.sh"
	fi
	if [[ ,$IMPLS, == *,peer,* ]]; then
		[ -x "$ROOT/$PEER_FIO" ] || die "--impl peer: $PEER_FIO is missing: run make peer"
	fi
	for t in build/librpma_apm.so build/librpma_gpspm.so build/tests/tools/libverbs_count.so; do
		[ -f "$ROOT/$ENGINE_DIR/${t#build/}" ] || die "$ENGINE_DIR/${t#build/} is missing: run make $MAKE_TARGET"
	done
	if [ "$NATIVE" = 1 ]; then
		[ -f "$ROOT/$ENGINE_DIR/jobs/apm-server.fio" ] || die "$ENGINE_DIR/jobs is missing: run make native"
		if [ -z "$RDMA_CORE_PREFIX" ]; then
			RDMA_CORE_PREFIX=$("$ROOT/scripts/rdma_core.sh") || die "--native: scripts/rdma_core.sh failed"
		fi
		[ -e "$RDMA_CORE_PREFIX/lib/libibverbs.so.1" ] ||
			die "--native: no libibverbs in '$RDMA_CORE_PREFIX/lib': run make native"
	fi
}

plan_methods() {
	python3 "$MATRIX" plan --preset "$PRESET" "${PLAN_ARGS[@]}" | awk -F'\t' 'NR > 1 { print $3 }' | sort -u
}

has_rdma_device() {
	compgen -G '/sys/class/infiniband/*' >/dev/null
}

# The plan, and how long it takes: runs x (runtime + ramp + start-up)
dry_run() {
	local plan overhead=$OVERHEAD_HW n
	plan=$(python3 "$MATRIX" plan --preset "$PRESET" "${PLAN_ARGS[@]}")
	has_rdma_device || overhead=$OVERHEAD_VM
	n=$(($(wc -l <<<"$plan") - 1))
	column -t -s $'\t' <<<"$plan"
	local secs=$((n * REPEATS * (RUNTIME + RAMP + overhead))) costs=0
	# a cost run: start-up and a few seconds of I/O (2000 I/Os, 8 MiB at most)
	if [ "$COSTS" = 1 ]; then
		costs=$(awk -F'\t' 'NR > 1 && $3 != "raw" && $11 == 0' <<<"$plan" | wc -l)
		secs=$((secs + costs * (overhead + 3)))
	fi
	echo
	local settle=''
	[ "$SETTLE" = 0 ] || [ "$REPEATS" -le 2 ] || settle=" (2 where they agree within $SETTLE%: --settle)"
	echo "$n points x $REPEATS runs$settle, ${RUNTIME}s + ${RAMP}s ramp each (+~${overhead}s start-up)," \
		"$costs cost runs: at most $((secs / 60)) min $((secs % 60)) s"
	local paired
	paired=$(awk -F'\t' 'NR > 1 && $2 == "peer"' <<<"$plan" | wc -l)
	if [ "$paired" -gt 0 ] && [ "$MAX_REPEATS" -gt "$REPEATS" ]; then
		secs=$((secs + 2 * paired * (MAX_REPEATS - REPEATS) * (RUNTIME + RAMP + overhead)))
		echo "$paired points ours vs the peer: $REPEATS to $MAX_REPEATS pairs until decided" \
			"(--margin $MARGIN%): at most $((secs / 60)) min $((secs % 60)) s"
	fi
}

# ---- measuring (here, or inside the VM) ----

# options.json: KEY VALUE pairs, and "args": the arguments exactly as given, a list (the
# joined "command" is for reading; "args" is what --resume runs again)
write_options() {
	user_args
	python3 -c 'import json, sys
a = sys.argv[1:]
# the pairs end at "--" in a key position (a value may be anything, "--" too)
n = next(i for i in range(0, len(a), 2) if a[i] == "--")
print(json.dumps(dict(zip(a[:n:2], a[1:n:2]), args=a[n + 1:]), indent=1))' \
		preset "$PRESET" repeats "$REPEATS" settle_pct "$SETTLE" runtime "$RUNTIME" ramp "$RAMP" \
		server_ip "$SERVER_IP" server_host "${SSH_HOST:-local}" server_mem "$SERVER_MEM" \
		server_size "$SERVER_SIZE" direct_write_to_pmem "$DIRECT_WRITE" \
		max_repeats "$MAX_REPEATS" margin_pct "$MARGIN" \
		plan_args "${PLAN_ARGS[*]:-}" perftest_iters "$PERFTEST_ITERS" impls "$IMPLS" costs "$COSTS" \
		client_hosts "${CLIENT_HOSTS[*]:-local}" \
		instructions "$INSTRUCTIONS" \
		command "$PROG ${ORIG_ARGS[*]:-}" -- "${USER_ARGS[@]}" >"$OUT/options.json"
}

# The arguments as the user gave them, into USER_ARGS: ORIG_ARGS without what this
# script adds when it runs itself again (--in-vm or --resumed, and the --out after it)
user_args() {
	local i
	USER_ARGS=()
	for ((i = 0; i < ${#ORIG_ARGS[@]}; i++)); do
		case ${ORIG_ARGS[i]} in
		--in-vm|--resumed) [ "${ORIG_ARGS[i + 1]:-}" != --out ] || i=$((i + 2)) ;;
		*) USER_ARGS+=("${ORIG_ARGS[i]}") ;;
		esac
	done
}

on_interrupt() {
	trap - INT TERM
	# the run in progress was cut short (fio may still write its JSON): it does not count,
	# and --resume runs it again (first: a second Ctrl-C while stopping ends this at once)
	[ -z "$RUN_STEM" ] || echo "interrupted: cut short by a signal" >"$RUN_STEM.failed"
	echo >&2
	echo "$PROG: interrupted: stopping the server and client, keeping the partial results" >&2
	stop_client
	stop_server
	stop_load "$RUN_STEM"
	stop_fio_daemons
	echo "partial (interrupted)" >"$OUT/status"
	# in the VM the host builds the report once the VM is down
	[ "$IN_VM" = 1 ] || build_report
	exit 130
}

measure() {
	mkdir -p "$OUT/runs"
	if [ "$RESUME" = 1 ]; then
		# the folder's plan stays: the runs kept are measurements of its points
		check_resume_plan
	else
		python3 "$MATRIX" plan --preset "$PRESET" "${PLAN_ARGS[@]}" >"$OUT/plan.tsv"
	fi
	echo "partial (running)" >"$OUT/status"
	if [ "$RESUME" = 1 ]; then
		# options.json stays (its "args" started the run) and so does env.json, the first
		# part's environment: each resume's goes beside it
		local n=1
		while [ -e "$OUT/env-resume-$n.json" ]; do n=$((n + 1)); done
		capture_env >"$OUT/env-resume-$n.json"
	else
		write_options
		capture_env >"$OUT/env.json"
	fi
	trap on_interrupt INT TERM
	local rows=() i j
	# (a file, not a pipe: the guest has no /dev/fd for process substitution)
	mapfile -t rows <"$OUT/plan.tsv"
	RUNS_DONE=0 RUNS_FAILED=0 RUNS_KEPT=0 NEXT_PORT=$PORT_BASE MEASURE_START=$(date +%s)
	RUNS_PLANNED=$(((${#rows[@]} - 1) * REPEATS))
	[ "$RESUME" = 0 ] || keep_finished_runs
	# a point's rows (ours and the peer's twin, plan.py puts them together) are one group
	for ((i = 1; i < ${#rows[@]}; i = j)); do
		for ((j = i + 1; j < ${#rows[@]}; j++)); do
			[ "$(point_key "${rows[i]}")" = "$(point_key "${rows[j]}")" ] || break
		done
		measure_point "${rows[@]:i:j-i}"
	done
	trap - INT TERM
	if [ "$RUNS_FAILED" -gt 0 ]; then
		echo "partial ($RUNS_FAILED of $RUNS_DONE runs failed)" >"$OUT/status"
	else
		echo complete >"$OUT/status"
	fi
	local kept=''
	[ "$RESUME" = 0 ] || kept=" ($RUNS_KEPT kept from before)"
	echo "$PROG: $RUNS_DONE runs in $(fmt_secs $(($(date +%s) - MEASURE_START))), $RUNS_FAILED failed$kept" >&2
}

# --resume: the plan of the stored options must be the one the folder was measured with
# (another revision of the runner may plan other points under the same ids)
check_resume_plan() {
	[ -f "$OUT/plan.tsv" ] || die "--resume: '$OUT' has no plan.tsv: nothing to resume"
	local plan
	plan=$(python3 "$MATRIX" plan --preset "$PRESET" "${PLAN_ARGS[@]}")
	[ "$plan" = "$(cat "$OUT/plan.tsv")" ] || die "--resume: the options of $OUT/options.json" \
		"now plan other points than its plan.tsv (the runner changed since?): resume with the" \
		"revision that started it (env.json's git revision), or start a new run"
}

# --resume: the runs the interrupted run finished stay; the others have their files
# (<stem>.*) removed, to run again: those with a .failed marker (on_interrupt's
# "interrupted" among them) and those cut short without one (killed, the VM torn down):
# a fio JSON that does not parse, perftest output without its result line, a cost or
# instructions run without .packets (the last file run_fio writes): `matrix prune-runs`.
keep_finished_runs() {
	local counts kept costs redone
	counts=$(python3 "$MATRIX" prune-runs "$OUT/runs") || die "--resume: cannot sort the runs in $OUT/runs"
	read -r kept costs redone <<<"$counts"
	echo "resuming $OUT: $kept runs kept (and $costs cost and instructions runs)," \
		"$redone failed or cut short: run again; $RUNS_PLANNED runs planned" >&2
}

# --resume: did the interrupted run finish this run (keep_finished_runs removed the rest)?
run_kept() { # STEM RESULT_FILE
	[ "$RESUME" = 1 ] && [ -e "$2" ] && [ ! -e "$1.failed" ]
}

# the result file of a measured run: perftest's output, or the client's fio JSON
run_result() { # STEM METHOD
	if [ "$2" = raw ]; then echo "$1.perftest.txt"; else echo "$1.json"; fi
}

# a plan row without its id and implementation: what is measured
point_key() {
	local row=$1
	row=${row#*$'\t'}
	echo "${row#*$'\t'}"
}

# The runs of one point, interleaved over its implementations (ours, peer, ours, peer,
# ...: a slow period of the host hits both), then each one's cost and instructions
# runs. With two implementations, pairs beyond --repeats are added (up to
# --max-repeats) until the IOPS verdict is decided: `matrix decide` says when
# (scripts/matrix/rpmamatrix/sequential.py).
measure_point() { # PLAN_ROW...
	local r row max=$REPEATS verdict
	[ $# -lt 2 ] || max=$MAX_REPEATS
	for ((r = 1; r <= max; r++)); do
		[ "$r" -le "$REPEATS" ] || RUNS_PLANNED=$((RUNS_PLANNED + $#))
		for row; do
			measure_run "$row" "$r"
		done
		# --resume: a next pair kept means the interrupted run found this one undecided
		# (decide would count the pairs after it, too): on to that pair
		if [ $# -ge 2 ] && [ "$r" -ge "$REPEATS" ] && [ "$r" -lt "$max" ] && pair_kept $((r + 1)) "$@"; then
			continue
		fi
		if [ $# -eq 1 ] && point_settled "$r" "$1"; then
			RUNS_PLANNED=$((RUNS_PLANNED - REPEATS + r))
			break
		fi
		if [ $# -ge 2 ] && [ "$r" -ge "$REPEATS" ]; then
			local ids=() rc=0
			for row; do ids+=("${row%%$'\t'*}"); done
			# one more pair or not is decide's (scripts/matrix/rpmamatrix/sequential.py):
			# exit 0 stop (decided, or the cap), 3 one more pair, anything else a failure
			verdict=$(python3 "$MATRIX" decide "$OUT" "${ids[0]}" "${ids[1]}" --margin "$MARGIN" \
				--pairs "$r" --min-pairs "$REPEATS" --max-pairs "$max") || rc=$?
			[ "$rc" -eq 0 ] || [ "$rc" -eq 3 ] ||
				die "matrix decide failed at ${ids[0]} and ${ids[1]} (status $rc)"
			echo "      $r pairs: $verdict" >&2
			[ "$rc" -eq 3 ] || break
		fi
	done
	for row; do
		measure_costs "$row"
	done
}

# --settle PCT: after run R (2 at least, fewer than --repeats) of a plan row, do its runs
# agree within PCT% (their IOPS' max - min over the median)? Then the rest are skipped.
point_settled() { # R PLAN_ROW
	local r=$1 verdict
	[ "${SETTLE:-0}" -gt 0 ] && [ "$r" -ge 2 ] && [ "$r" -lt "$REPEATS" ] || return 1
	# (--resume: a next run kept means the interrupted run found these unsettled)
	! pair_kept $((r + 1)) "$2" || return 1
	verdict=$(python3 "$MATRIX" settled "$OUT" "${2%%$'\t'*}" --within "$SETTLE") || return 1
	echo "      $r runs: $verdict: settled (--settle $SETTLE%)" >&2
}

# --resume: are run R of every plan row kept (the interrupted run finished them)?
pair_kept() { # R PLAN_ROW...
	local r=$1 row id method stem result
	shift
	for row; do
		IFS=$'\t' read -r id _ method _ <<<"$row"
		stem=$OUT/runs/$id-r$r
		run_kept "$stem" "$(run_result "$stem" "$method")" || return 1
	done
}

# Run R of a plan row
measure_run() { # PLAN_ROW R
	local id impl method workload rw bs qd sync nj hosts load r=$2
	IFS=$'\t' read -r id impl method workload rw bs qd sync nj hosts load <<<"$1"
	RUNS_DONE=$((RUNS_DONE + 1))
	# (a run kept takes its ports too: the others' stay those of an uninterrupted run)
	NEXT_PORT=$((NEXT_PORT + nj * hosts))
	local stem=$OUT/runs/$id-r$r result
	result=$(run_result "$stem" "$method")
	if run_kept "$stem" "$result"; then
		RUNS_KEPT=$((RUNS_KEPT + 1))
		return
	fi
	# the ETA from the runs measured now (a run kept took no time)
	local elapsed eta="" measured=$((RUNS_DONE - RUNS_KEPT))
	elapsed=$(($(date +%s) - MEASURE_START))
	[ "$measured" -gt 1 ] && [ "$RUNS_PLANNED" -ge "$RUNS_DONE" ] &&
		eta=" ETA $(fmt_secs $((elapsed * (RUNS_PLANNED - RUNS_DONE + 1) / (measured - 1))))"
	printf '[%d/%d] %-4s %-11s %-4s %-5s bs %-6s iodepth %-3s jobs %s%s%s run %d%s\n' \
		"$RUNS_DONE" "$RUNS_PLANNED" "$impl" "$method" "$workload" "$rw" "$bs" "$qd" "$nj" \
		"$([ ${#CLIENT_HOSTS[@]} = 0 ] || echo " hosts $hosts")" \
		"$([ "${load:-0}" = 0 ] || echo " server load $load%")" "$r" "$eta" >&2
	RUN_STEM=$stem
	start_load "${load:-0}" "$stem"
	if [ "$method" = raw ]; then
		run_perftest "$stem" "$(raw_tool "$rw" "$sync")" "$bs" "$qd" "$NEXT_PORT" ||
			RUNS_FAILED=$((RUNS_FAILED + 1))
	else
		run_fio "$stem" "$impl" "$method" "$rw" "$bs" "$qd" "$sync" "$nj" "$NEXT_PORT" 0 "$hosts" ||
			RUNS_FAILED=$((RUNS_FAILED + 1))
	fi
	stop_load "$stem"
	RUN_STEM=
	report_failure "$stem"
}

# The cost run and the instructions run (--instructions) of a plan row, where it has them
measure_costs() { # PLAN_ROW
	local id impl method workload rw bs qd sync nj hosts load stem
	IFS=$'\t' read -r id impl method workload rw bs qd sync nj hosts load <<<"$1"
	# (a point under --server-load is its idle twin's costs and a busier server: no cost run)
	[ "${load:-0}" = 0 ] || return 0
	if [ "$COSTS" = 1 ] && [ "$method" != raw ]; then
		NEXT_PORT=$((NEXT_PORT + nj))
		stem=$OUT/runs/$id-cost
		if ! run_kept "$stem" "$stem.json"; then
			printf '      %-4s %-11s %-4s %-5s bs %-6s iodepth %-3s jobs %s: cost run (%s I/Os a job)\n' \
				"$impl" "$method" "$workload" "$rw" "$bs" "$qd" "$nj" "$(cost_ios "$bs")" >&2
			RUN_STEM=$stem
			run_fio "$stem" "$impl" "$method" "$rw" "$bs" "$qd" "$sync" "$nj" "$NEXT_PORT" 1 ||
				RUNS_FAILED=$((RUNS_FAILED + 1))
			RUN_STEM=
			report_failure "$stem"
		fi
	fi
	if [ "$INSTRUCTIONS" != 0 ] && [ "$rw" = write ] && [ "$bs" = 4096 ] && [ "$nj" = 1 ] &&
			{ [ "$INSTRUCTIONS" = 1 ] || [ "$sync" = 1 ]; } &&
			[[ $method == apm || $method == gpspm-sleep ]]; then
		NEXT_PORT=$((NEXT_PORT + nj))
		stem=$OUT/runs/$id-instr
		if ! run_kept "$stem" "$stem.json"; then
			printf '      %-4s %-11s %-4s %-5s bs %-6s iodepth %-3s jobs %s: instructions (callgrind, %s I/Os)\n' \
				"$impl" "$method" "$workload" "$rw" "$bs" "$qd" "$nj" "$INSTR_IOS" >&2
			RUN_STEM=$stem
			run_fio "$stem" "$impl" "$method" "$rw" "$bs" "$qd" "$sync" "$nj" "$NEXT_PORT" 2 ||
				RUNS_FAILED=$((RUNS_FAILED + 1))
			RUN_STEM=
			report_failure "$stem"
		fi
	fi
}

report_failure() {
	[ -e "$1.failed" ] || return 0
	echo "  failed: $(cat "$1.failed") (logs: $1.*)" >&2
	tail -n 3 "$1".*.log 2>/dev/null | sed 's/^/  | /' >&2
}

raw_tool() {
	if [ "$2" = 1 ]; then
		echo "ib_${1}_lat"
	else
		echo "ib_${1}_bw"
	fi
}

build_report() {
	echo "$PROG: building the report" >&2
	python3 "$MATRIX" build "$OUT" >/dev/null
	show_summary
}

# the report's findings and summary table, its status and where it is
show_summary() {
	echo
	sed -n '/^## Findings/,/^## Points and methods/p' "$OUT/report.md" | sed -e '1d;$d' -e '/^!\[chart\]/d'
	sed -n '/^## Summary/,/^## Environment/p' "$OUT/report.md" | sed '1d;$d'
	echo "status: $(cat "$OUT/status")"
	echo "report: $OUT/report.html (and report.md, results.csv, charts/, runs/)"
}

# Re-run this script in the Soft-RoCE VM; the report is built here afterwards
# (also after Ctrl-C, from what the VM left). The guest writes only into the project
# folder (anything else dies with its overlay): a result folder outside it is measured
# into build/matrix/.staging-* and moved to --out afterwards.
run_in_vm() {
	echo "$PROG: no RDMA device here: running in the Soft-RoCE VM (scripts/softroce-vm)" >&2
	local vm_args=(-q --timeout 7200) dest=$OUT stage=''
	if ! inside_project "$OUT"; then
		stage=$ROOT/build/matrix/.staging-$(date +%Y%m%d-%H%M%S)-$$
		echo "$PROG: --out is outside the project folder, which is all the VM can write to:" \
			"measuring into $stage, moved to $dest at the end" >&2
		OUT=$stage
	fi
	[ -z "$VM_KERNEL" ] || vm_args+=(--kernel "$VM_KERNEL")
	[ "$VM_PMEM" = 0 ] || vm_args+=(--pmem)
	# (Soft-iWARP counts registrations against the locked-memory limit, also root's)
	[ "$VM_TRANSPORT" != iwarp ] || vm_args+=(--transport iwarp --env RPMA_FIO_MEMLOCK=unlimited)
	mkdir -p "$OUT" "$dest"
	# --resume: the runs done so far go into the stage, to be kept there
	if [ -n "$stage" ] && [ "$RESUME" = 1 ]; then
		cp -a "$dest/." "$stage/" || die "--resume: cannot copy $dest into $stage for the VM"
	fi
	local status=0
	trap 'echo "$PROG: interrupted: the VM is being torn down" >&2' INT TERM
	# (our --out last: it wins over the one the user gave)
	"$ROOT/scripts/softroce-vm" run "${vm_args[@]}" -- env RPMA_FIO_RDMA_CORE="$RDMA_CORE_PREFIX" \
		"$ROOT/scripts/run_matrix.sh" "${ORIG_ARGS[@]}" --in-vm --out "$OUT" || status=$?
	trap - INT TERM
	if [ ! -e "$OUT/status" ]; then
		if [ "$status" -eq 0 ]; then
			echo "partial (the VM run ended without writing any result into $OUT)" >"$OUT/status"
		else
			echo "partial (the VM run failed with status $status)" >"$OUT/status"
		fi
	fi
	grep -q '^complete' "$OUT/status" || [ "$status" -eq 0 ] ||
		echo "partial (the VM run ended with status $status)" >"$OUT/status"
	if [ -n "$stage" ]; then
		cp -a "$stage/." "$dest/" || die "cannot move the results from $stage to $dest: they stay in $stage"
		# --resume: the files of the runs run again (removed in the stage) go from dest too
		if [ "$RESUME" = 1 ]; then
			local f
			while IFS= read -r -d '' f; do
				[ -e "$stage/$f" ] || rm -f "$dest/$f"
			done < <(cd "$dest" && find . -type f -print0)
		fi
		rm -rf "$stage"
		OUT=$dest
	fi
	if [ -e "$OUT/plan.tsv" ]; then
		build_report
	fi
	return "$status"
}

# --resume DIR: DIR's interrupted run continued: this script again with the arguments
# it was started with, --resumed --out DIR (measure keeps the runs done, runs the rest)
resume() { # DIR
	local dir=$1
	case $dir in /*) ;; *) dir=$PWD/$dir ;; esac
	check_resume_folder "$dir"
	if grep -qx complete "$dir/status" 2>/dev/null; then
		echo "$PROG: $dir is complete: nothing to resume; rebuilding its report" >&2
		OUT=$dir
		build_report
		return
	fi
	read_stored_args "$dir"
	local shown='(none: the defaults)'
	[ ${#STORED_ARGS[@]} -eq 0 ] || shown=$(printf '%q ' "${STORED_ARGS[@]}")
	echo "$PROG: continuing $dir with the options it was started with: ${shown% }" >&2
	exec "$ROOT/scripts/run_matrix.sh" "${STORED_ARGS[@]}" --resumed --out "$dir"
}

# a result folder of this script's (what --resume continues), or die naming what it lacks
check_resume_folder() { # DIR
	[ -d "$1" ] || die "--resume: '$1' is not a folder"
	local f
	for f in options.json plan.tsv; do
		[ -f "$1/$f" ] || die "--resume: '$1' has no $f: not a result folder of $PROG, nothing to resume"
	done
}

# options.json's "args" (the arguments exactly as given) into STORED_ARGS
read_stored_args() { # DIR
	command -v jq >/dev/null || die "jq is missing: run scripts/deps.sh"
	jq -e '.args | type == "array"' "$1/options.json" >/dev/null 2>&1 ||
		die "--resume: $1/options.json holds no \"args\" (a run from before --resume): it cannot be resumed"
	# (NUL-separated: an argument may hold any character but NUL)
	mapfile -d '' -t STORED_ARGS < <(jq -j '.args[] | tostring + "\u0000"' "$1/options.json")
}

# report [--out DIR] [METHOD=]FIO_JSON...: a result folder from fio JSON of jobs/sweep.fio
report() {
	local files=() args=("$@") t
	while [ $# -gt 0 ]; do
		case "$1" in
		--out) need_value "$@"; OUT=$2; shift ;;
		-h|--help) usage; exit 0 ;;
		-*) die "report: unknown option '$1' (see --help)" ;;
		*) files+=("$1") ;;
		esac
		shift
	done
	[ ${#files[@]} -gt 0 ] ||
		die "report needs the fio JSON of a sweep: $PROG report [--out DIR] [METHOD=]FIO_JSON..."
	for t in python3 gnuplot; do
		command -v "$t" >/dev/null || die "$t is missing: run scripts/deps.sh"
	done
	[ -n "$OUT" ] || OUT=$ROOT/build/matrix/sweep-$(date +%Y%m%d-%H%M%S)
	case $OUT in /*) ;; *) OUT=$PWD/$OUT ;; esac
	[ ! -e "$OUT/plan.tsv" ] || die "--out: '$OUT' already holds results: give a new folder"
	python3 "$MATRIX" report --out "$OUT" --command "$PROG report ${args[*]}" "${files[@]}" >/dev/null
	show_summary
}

main() {
	if [ "${1:-}" = durability ]; then
		shift
		exec "$ROOT/scripts/run_durability.sh" "$@"
	fi
	if [ "${1:-}" = report ]; then
		shift
		report "$@"
		return
	fi
	if [ "${1:-}" = compare ]; then
		shift
		[ $# -ge 2 ] || die "compare needs two result folders: $PROG compare DIR_A DIR_B [OUT]"
		local out=${3:-$ROOT/build/matrix/compare-$(date +%Y%m%d-%H%M%S)}
		python3 "$MATRIX" compare "$1" "$2" "$out"
		return
	fi
	if [ "${1:-}" = --resume ]; then
		need_value "$@"
		[ $# -eq 2 ] || die "--resume takes no other option: it continues DIR with the options it was started with"
		resume "$2"
		return
	fi
	ORIG_ARGS=("$@")
	parse_args "$@"
	ENGINE_DIR=build MAKE_TARGET="engines tools"
	[ "$NATIVE" = 0 ] || ENGINE_DIR=build/native MAKE_TARGET=native
	VERBS_COUNT=$ENGINE_DIR/tests/tools/libverbs_count.so
	cd "$ROOT"
	# a dry run only prints the plan: it needs neither the engines nor the tools
	if [ "$DRY_RUN" = 1 ]; then
		command -v python3 >/dev/null || die "python3 is missing: run scripts/deps.sh"
		dry_run
		return
	fi
	check_tools
	[ -n "$OUT" ] || OUT=$ROOT/build/matrix/$(date +%Y%m%d-%H%M%S)
	case $OUT in /*) ;; *) OUT=$PWD/$OUT ;; esac
	if [ "$IN_VM" = 0 ] && [ "$RESUME" = 0 ] && [ -e "$OUT/plan.tsv" ]; then
		die "--out: '$OUT' already holds results: give a new folder (or --resume it)"
	fi
	# (here, before a VM boots; measure checks it again)
	if [ "$IN_VM" = 0 ] && [ "$RESUME" = 1 ]; then check_resume_plan; fi
	if [ "$IN_VM" = 1 ]; then
		SERVER_IP=${RPMA_TEST_ADDR:?not inside the Soft-RoCE VM}
		[ "${RPMA_FIO_MEMLOCK:-}" != unlimited ] || ulimit -l unlimited
		measure
		return
	fi
	if [ -n "$SSH_HOST" ]; then
		SERVER_IP=${SERVER_IP:-$SSH_HOST}
		ssh -o BatchMode=yes -o ConnectTimeout=10 "$SSH_HOST" true ||
			die "cannot ssh to '$SSH_HOST' without a password (key-based, BatchMode=yes)"
		check_remote_mem
	elif [ -z "$SERVER_IP" ]; then
		has_rdma_device || { run_in_vm; return; }
		die "this machine has an RDMA device: give its address with --server-ip"
	fi
	mkdir -p "$OUT"
	[ ${#CLIENT_HOSTS[@]} = 0 ] || start_fio_daemons
	measure
	stop_fio_daemons
	build_report
}

# (sourced by tests/matrix/test_schedule.sh, which drives measure() with fake runs)
[ "${BASH_SOURCE[0]}" != "$0" ] || main "$@"
