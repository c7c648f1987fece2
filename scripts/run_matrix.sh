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
REPEATS='' RUNTIME='' RAMP='' MAX_REPEATS='' MARGIN=5
OUT=
SERVER_IP='' SSH_HOST='' REMOTE_DIR=$ROOT
CLIENTS_ARG='' CLIENT_HOSTS=()
SERVER_MEM=malloc SERVER_SIZE=64m DIRECT_WRITE=0
RDMA_DEV='' PORT_BASE=7400 PERFTEST_ITERS=1000
DRY_RUN=0 IN_VM=0 VM_PMEM=0 VM_KERNEL='' VM_TRANSPORT=''
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
  (default)            3 runs per point, 2 s runs + 1 s ramp, 37 points (~10-12 min in the VM)
  --full               3 runs, 10 s runs, bs 256 B..256 KiB, depth 1..128, mixed rw, 1/2/4 jobs

The sweep:
  --methods LIST       of apm,apm-native,gpspm-busy,gpspm-sleep,gpspm-adaptive,noflush,raw
                       (default: all but gpspm-adaptive; apm-native only with --native)
  --impl LIST          ours,peer: whose engines run the methods (default ours): peer is
                       fio 3.33's in-tree librpma engines over upstream librpma 1.2.0
                       (make peer: build/peer/fio), for apm, gpspm-busy and gpspm-sleep
                       (not GPSPM reads: its client cannot read). With both, each point's
                       runs alternate (ours, peer, ours, peer...: pairs) and the report
                       gives ours/peer with a 95% confidence interval over the pairs:
                       ahead or behind only when it excludes 1.00x, else equal within +-X%
  --max-repeats N      with --impl ours,peer: add pairs beyond --repeats, up to N, until
                       the IOPS verdict is decided (default 3 x --repeats; an interval
                       needs 5 pairs at least)
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
  --repeats N          runs per point (median, min, max)
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
are kept and the report says PARTIAL.
EOF
}

parse_args() {
	while [ $# -gt 0 ]; do
		case "$1" in
		--quick) PRESET=quick ;;
		--full) PRESET=full ;;
		--methods|--lat-bs|--bw-bs|--read-bs|--qd|--bw-qd|--jobs)
			need_value "$@"; PLAN_ARGS+=("$1" "$2"); shift ;;
		--rw) need_value "$@"; PLAN_ARGS+=(--rws "$2"); shift ;;
		--mix) PLAN_ARGS+=(--mix) ;;
		--repeats) need_value "$@"; REPEATS=$2; shift ;;
		--max-repeats) need_value "$@"; MAX_REPEATS=$2; shift ;;
		--margin) need_value "$@"; MARGIN=$2; shift ;;
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
		-h|--help) usage; exit 0 ;;
		*) die "unknown option '$1' (see --help)" ;;
		esac
		shift
	done
	local defaults
	# (the whole plan checked now, before anything runs: every option with one line)
	defaults=$(python3 "$MATRIX" plan --preset "$PRESET" "${PLAN_ARGS[@]}" --defaults)
	local k v
	for kv in $defaults; do
		k=${kv%%=*} v=${kv#*=}
		case $k in
		repeats) REPEATS=${REPEATS:-$v} ;;
		runtime) RUNTIME=${RUNTIME:-$v} ;;
		ramp) RAMP=${RAMP:-$v} ;;
		esac
	done
	[[ $REPEATS =~ ^[1-9][0-9]*$ ]] || die "--repeats: '$REPEATS' is not a positive number"
	MAX_REPEATS=${MAX_REPEATS:-$((3 * REPEATS))}
	[[ $MAX_REPEATS =~ ^[1-9][0-9]*$ ]] || die "--max-repeats: '$MAX_REPEATS' is not a positive number"
	[ "$MAX_REPEATS" -ge "$REPEATS" ] || die "--max-repeats: $MAX_REPEATS is less than --repeats ($REPEATS)"
	[[ $MARGIN =~ ^[1-9][0-9]?$ ]] || die "--margin: '$MARGIN' is not a whole percent in 1..99"
	[[ $RUNTIME =~ ^[1-9][0-9]*$ ]] || die "--runtime: '$RUNTIME' is not a whole number of seconds"
	[[ $RAMP =~ ^[0-9]+$ ]] || die "--ramp: '$RAMP' is not a whole number of seconds"
	if ! [[ $PORT_BASE =~ ^[0-9]+$ ]] || [ "$PORT_BASE" -lt 1024 ] || [ "$PORT_BASE" -gt 60000 ]; then
		die "--port: '$PORT_BASE' is not a port in 1024..60000"
	fi
	[[ $SERVER_SIZE =~ ^[1-9][0-9]*[kKmMgG]?$ ]] || die "--mem-size: '$SERVER_SIZE' is not a size like 64m"
	case $VM_KERNEL in ''|6.1|6.12) ;; *) die "--vm-kernel: '$VM_KERNEL' is neither 6.1 nor 6.12" ;; esac
	case $VM_TRANSPORT in ''|roce|iwarp) ;; *) die "--transport: '$VM_TRANSPORT' is neither roce nor iwarp" ;; esac
	[ -z "$VM_TRANSPORT" ] || [ -z "$SERVER_IP$SSH_HOST" ] || die "--transport picks the VM's device:" \
		"with an RNIC (--server, --server-ip) its own transport is used, and the report names it"
	if [ "$VM_PMEM" = 1 ]; then SERVER_MEM=/dev/dax0.0; fi
	check_local_mem
	[ -z "$CLIENTS_ARG" ] || parse_clients
	if [ "$NATIVE" = 1 ]; then
		# 6.1's rxe has no FLUSH
		[ "$VM_KERNEL" != 6.1 ] || die "--native: kernel 6.1's Soft-RoCE has no RDMA FLUSH: use --vm-kernel 6.12"
		VM_KERNEL=6.12
	fi
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
		costs=$(awk -F'\t' 'NR > 1 && $3 != "raw"' <<<"$plan" | wc -l)
		secs=$((secs + costs * (overhead + 3)))
	fi
	echo
	echo "$n points x $REPEATS runs, ${RUNTIME}s + ${RAMP}s ramp each (+~${overhead}s start-up)," \
		"$costs cost runs: about $((secs / 60)) min $((secs % 60)) s"
	local paired
	paired=$(awk -F'\t' 'NR > 1 && $2 == "peer"' <<<"$plan" | wc -l)
	if [ "$paired" -gt 0 ] && [ "$MAX_REPEATS" -gt "$REPEATS" ]; then
		secs=$((secs + 2 * paired * (MAX_REPEATS - REPEATS) * (RUNTIME + RAMP + overhead)))
		echo "$paired points ours vs the peer: $REPEATS to $MAX_REPEATS pairs until decided" \
			"(--margin $MARGIN%): at most $((secs / 60)) min $((secs % 60)) s"
	fi
}

# ---- measuring (here, or inside the VM) ----

write_options() {
	python3 -c 'import json, sys; print(json.dumps(dict(zip(sys.argv[1::2], sys.argv[2::2])), indent=1))' \
		preset "$PRESET" repeats "$REPEATS" runtime "$RUNTIME" ramp "$RAMP" \
		server_ip "$SERVER_IP" server_host "${SSH_HOST:-local}" server_mem "$SERVER_MEM" \
		server_size "$SERVER_SIZE" direct_write_to_pmem "$DIRECT_WRITE" \
		max_repeats "$MAX_REPEATS" margin_pct "$MARGIN" \
		plan_args "${PLAN_ARGS[*]:-}" perftest_iters "$PERFTEST_ITERS" impls "$IMPLS" costs "$COSTS" \
		client_hosts "${CLIENT_HOSTS[*]:-local}" \
		instructions "$INSTRUCTIONS" \
		command "$PROG ${ORIG_ARGS[*]:-}" >"$OUT/options.json"
}

on_interrupt() {
	trap - INT TERM
	echo >&2
	echo "$PROG: interrupted: stopping the server and client, keeping the partial results" >&2
	stop_client
	stop_server
	stop_fio_daemons
	echo "partial (interrupted)" >"$OUT/status"
	# in the VM the host builds the report once the VM is down
	[ "$IN_VM" = 1 ] || build_report
	exit 130
}

measure() {
	mkdir -p "$OUT/runs"
	python3 "$MATRIX" plan --preset "$PRESET" "${PLAN_ARGS[@]}" >"$OUT/plan.tsv"
	echo "partial (running)" >"$OUT/status"
	write_options
	capture_env >"$OUT/env.json"
	trap on_interrupt INT TERM
	local rows=() i j
	# (a file, not a pipe: the guest has no /dev/fd for process substitution)
	mapfile -t rows <"$OUT/plan.tsv"
	RUNS_DONE=0 RUNS_FAILED=0 NEXT_PORT=$PORT_BASE MEASURE_START=$(date +%s)
	RUNS_PLANNED=$(((${#rows[@]} - 1) * REPEATS))
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
	echo "$PROG: $RUNS_DONE runs in $(fmt_secs $(($(date +%s) - MEASURE_START))), $RUNS_FAILED failed" >&2
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
# --max-repeats) until the IOPS verdict is decided (scripts/matrix/rpmamatrix/verdicts.py).
measure_point() { # PLAN_ROW...
	local r row max=$REPEATS verdict
	[ $# -lt 2 ] || max=$MAX_REPEATS
	for ((r = 1; r <= max; r++)); do
		[ "$r" -le "$REPEATS" ] || RUNS_PLANNED=$((RUNS_PLANNED + $#))
		for row; do
			measure_run "$row" "$r"
		done
		if [ $# -ge 2 ] && [ "$r" -ge "$REPEATS" ]; then
			local ids=()
			for row; do ids+=("${row%%$'\t'*}"); done
			if verdict=$(python3 "$MATRIX" decide "$OUT" "${ids[0]}" "${ids[1]}" --margin "$MARGIN"); then
				echo "      $r pairs: $verdict: decided" >&2
				break
			fi
			[ "$r" -eq "$max" ] || echo "      $r pairs: $verdict: one more pair" >&2
			[ "$r" -lt "$max" ] || echo "      $r pairs: $verdict: --max-repeats reached" >&2
		fi
	done
	for row; do
		measure_costs "$row"
	done
}

# Run R of a plan row
measure_run() { # PLAN_ROW R
	local id impl method workload rw bs qd sync nj hosts r=$2
	IFS=$'\t' read -r id impl method workload rw bs qd sync nj hosts <<<"$1"
	RUNS_DONE=$((RUNS_DONE + 1))
	NEXT_PORT=$((NEXT_PORT + nj * hosts))
	local elapsed eta=""
	elapsed=$(($(date +%s) - MEASURE_START))
	[ "$RUNS_DONE" -gt 1 ] && [ "$RUNS_PLANNED" -ge "$RUNS_DONE" ] &&
		eta=" ETA $(fmt_secs $((elapsed * (RUNS_PLANNED - RUNS_DONE + 1) / (RUNS_DONE - 1))))"
	printf '[%d/%d] %-4s %-11s %-4s %-5s bs %-6s iodepth %-3s jobs %s%s run %d%s\n' \
		"$RUNS_DONE" "$RUNS_PLANNED" "$impl" "$method" "$workload" "$rw" "$bs" "$qd" "$nj" \
		"$([ ${#CLIENT_HOSTS[@]} = 0 ] || echo " hosts $hosts")" "$r" "$eta" >&2
	local stem=$OUT/runs/$id-r$r
	if [ "$method" = raw ]; then
		run_perftest "$stem" "$(raw_tool "$rw" "$sync")" "$bs" "$qd" "$NEXT_PORT" ||
			RUNS_FAILED=$((RUNS_FAILED + 1))
	else
		run_fio "$stem" "$impl" "$method" "$rw" "$bs" "$qd" "$sync" "$nj" "$NEXT_PORT" 0 "$hosts" ||
			RUNS_FAILED=$((RUNS_FAILED + 1))
	fi
	report_failure "$stem"
}

# The cost run and the instructions run (--instructions) of a plan row, where it has them
measure_costs() { # PLAN_ROW
	local id impl method workload rw bs qd sync nj hosts
	IFS=$'\t' read -r id impl method workload rw bs qd sync nj hosts <<<"$1"
	if [ "$COSTS" = 1 ] && [ "$method" != raw ]; then
		NEXT_PORT=$((NEXT_PORT + nj))
		printf '      %-4s %-11s %-4s %-5s bs %-6s iodepth %-3s jobs %s: cost run (%s I/Os a job)\n' \
			"$impl" "$method" "$workload" "$rw" "$bs" "$qd" "$nj" "$(cost_ios "$bs")" >&2
		run_fio "$OUT/runs/$id-cost" "$impl" "$method" "$rw" "$bs" "$qd" "$sync" "$nj" "$NEXT_PORT" 1 ||
			RUNS_FAILED=$((RUNS_FAILED + 1))
		report_failure "$OUT/runs/$id-cost"
	fi
	if [ "$INSTRUCTIONS" != 0 ] && [ "$rw" = write ] && [ "$bs" = 4096 ] && [ "$nj" = 1 ] &&
			{ [ "$INSTRUCTIONS" = 1 ] || [ "$sync" = 1 ]; } &&
			[[ $method == apm || $method == gpspm-sleep ]]; then
		NEXT_PORT=$((NEXT_PORT + nj))
		printf '      %-4s %-11s %-4s %-5s bs %-6s iodepth %-3s jobs %s: instructions (callgrind, %s I/Os)\n' \
			"$impl" "$method" "$workload" "$rw" "$bs" "$qd" "$nj" "$INSTR_IOS" >&2
		run_fio "$OUT/runs/$id-instr" "$impl" "$method" "$rw" "$bs" "$qd" "$sync" "$nj" "$NEXT_PORT" 2 ||
			RUNS_FAILED=$((RUNS_FAILED + 1))
		report_failure "$OUT/runs/$id-instr"
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

# the report's summary table, its status and where it is
show_summary() {
	echo
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
		rm -rf "$stage"
		OUT=$dest
	fi
	if [ -e "$OUT/plan.tsv" ]; then
		build_report
	fi
	return "$status"
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
	if [ "$IN_VM" = 0 ] && [ -e "$OUT/plan.tsv" ]; then
		die "--out: '$OUT' already holds results: give a new folder"
	fi
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
