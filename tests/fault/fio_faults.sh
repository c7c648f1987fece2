#!/usr/bin/env bash
# tests/fault/fio_faults.sh -- provider faults under fio: the engines, both methods
# (build/librpma_apm.so, build/librpma_gpspm.so) and both sides, facing a failing
# libibverbs/librdmacm call, inside the VM:
#   scripts/softroce-vm run -- tests/fault/fio_faults.sh [--help]
#
# Provider faults. Per side, per method: a run without a fault traces that
# side's calls (build/fault/libfault.so, RPMAFIO_FAULT_TRACE=1); then one run per
# call picked from the trace fails it by name and rank (RPMAFIO_FAULT_CALL +
# RPMAFIO_FAULT_AT). A fio run costs seconds under TCG, so the calls are picked:
# for APM the first call of each name (the set-up, connection and tear-down code
# is the engines' shared code, engines/client, engines/server, engines/common);
# for GPSPM the calls its trace adds to APM's (its message buffers, its
# completion channel: diff of the two traces), ibv_get_cq_event only as the first
# of its kind; ibv_dereg_mr in the registered-memory runs below (each of them,
# judged alike). Every planned fault must fire. Each run must end by itself: the
# faulted side within RUN_TIMEOUT s, by exit (no signal), non-zero with the
# engine's message ("librpma_apm: job 1: ...") -- a failed release (dereg,
# destroy, dealloc) may end 0 -- and the healthy side too:
#   - a client's waits end by themselves: connect_timeout (CONNECT_TIMEOUT ms)
#     bounds its connecting and its waiting for completions;
#   - a server waits for its client as long as it is let (fio's runtime does not
#     start before a client connected): where the failed client never got through
#     (client faults before its request left: device lookup, rpma_conn_req_new,
#     rpma_conn_req_connect up to rdma_connect), waiting is right. Such a server,
#     still running GRACE s after the fault, is kept: the next client fault runs
#     against it, and after the last of a method's client faults a fresh client
#     (no shim) must be served by it -- both exit 0 -- a run of its own in the
#     results (N=0). So one server shows it outlives every failed client and still
#     serves, and each row saves a fio start (seconds under TCG). A server whose
#     client got through must end by itself.
#
# Registered memory (RPMAFIO_FAULT_CHECK_FREE=1 on both sides: the shim aborts
# when memory still registered is freed or unmapped). Per method: a run without
# a fault; per side, one run per deregistration the side makes (ibv_dereg_mr
# failed as the 1st, 2nd, ... of its kind: the memory must then stay allocated,
# a peer may still write into it); and the APM server with its memory in a
# file (libpmem2 unmaps it) failing that memory's deregistration.
#
# The client-side and the server-side runs go side by side (two lanes).
# Results: one line per run in $FIO_FAULTS_RESULTS (default
# build/fault/fio-results.tsv), the columns of faults.sh's (tests/fault/table.py).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1

case "${1:-}" in
-h|--help)
	awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"
	echo "Environment: FIO_FAULTS_METHODS=\"apm gpspm\", FIO_FAULTS_PARTS=\"faults check\", FIO_FAULTS_RESULTS=FILE"
	exit 0 ;;
"") ;;
*) echo "$0: unknown argument '$1' (see --help)" >&2; exit 2 ;;
esac
# shellcheck source=tests/fault/lib.sh
. tests/fault/lib.sh
METHODS=${FIO_FAULTS_METHODS:-apm gpspm}
PARTS=${FIO_FAULTS_PARTS:-faults check}
for m in $METHODS; do
	[ -f "build/librpma_$m.so" ] || { echo "$0: build/librpma_$m.so is missing: make engines" >&2; exit 1; }
done
RESULTS=${FIO_FAULTS_RESULTS:-build/fault/fio-results.tsv}
CONNECT_TIMEOUT_MS=3000
RUN_TIMEOUT=30		# the faulted side
GRACE=1			# how long the healthy side may take to notice
# the healthy side: at most two waits of connect_timeout (connecting or the
# completions, then the disconnection), plus fio's start and end under TCG
PEER_LIMIT=$((2 * CONNECT_TIMEOUT_MS / 1000 + 10))
KEEP_WAITING_SERVER=1	# see the header
# every run short: 100 ms of I/O, no ramp, 1 MiB of server memory, and a GPSPM
# server sleeping on its completion channel (two lanes share two vCPUs)
COMMON_VARS=("SERVER_IP=$A" RUNTIME=100ms RAMP=0 SERVER_SIZE=1m SERVER_BUSY_WAIT=0
	"CONNECT_TIMEOUT=$CONNECT_TIMEOUT_MS")
SERVER_VARS=()
CHECK_ENV=()
fault_results_header

# run_pair METHOD SIDE FAULT_AT VG DIR: server and client of METHOD, SIDE with the
# shim failing the FAULT_AT-th call of FAULT_CALL (0: none); with CHECK_ENV set,
# that side checks frees -- both sides when FAULT_AT=0 (VG: unused, the engines
# run without valgrind here)
run_pair() {
	METHOD=$1
	FAULTED_ENV=(LD_PRELOAD="$SHIM" RPMAFIO_FAULT_AT="$3" RPMAFIO_FAULT_CALL="${FAULT_CALL:-}"
		RPMAFIO_FAULT_TRACE=1 "${CHECK_ENV[@]}")
	HEALTHY_ENV=()
	# (the run without a fault checks both sides)
	[ ${#CHECK_ENV[@]} -gt 0 ] && [ "$3" = 0 ] && HEALTHY_ENV=(LD_PRELOAD="$SHIM" "${CHECK_ENV[@]}")
	fault_pair "$2" "$5" "$RUN_TIMEOUT" "$PEER_LIMIT"
}

# the commands of fault_pair (tests/fault/lib.sh)
fault_argv() { # ROLE PORT DIR
	if [ "$1" = server ]; then
		FAULT_ARGV=(env "${COMMON_VARS[@]}" PORT="$2" "${SERVER_VARS[@]}" fio "jobs/$METHOD-server.fio")
	else
		FAULT_ARGV=(env "${COMMON_VARS[@]}" PORT="$2" fio --ioengine=external:"build/librpma_$METHOD.so"
			jobs/randwrite.fio)
	fi
}
fault_listening() { # DIR PID LIMIT
	e2e_wait_line "$1/server.log" 'listening on' "$3" "$2"
}

# what fault_judge asks: the engine's message of a failure -- its first line
# ("librpma_apm: job 1: ...") that is not one of its progress notes -- or else
# librpma's error
fault_message() {
	{ grep -E '^librpma_(apm|gpspm): job [0-9]+: ' "$1" 2>/dev/null |
		grep -v -E ': job [0-9]+: (listening on |the server does not advertise direct write|served [0-9]+ flush requests|direct_write_to_pmem=1 but)'
	  grep -E 'librpma \*ERROR\*' "$1" 2>/dev/null; } | head -n1
}
fault_peer_message() { fault_message "$1"; }
# May the faulted side end with 0? After a failed release or disconnection at the
# tear-down (the job's I/O is done, the connection goes anyway), if its output
# names the failed call (librpma's error, the engine's note); and after a failed
# ibv_get_cq_event, which librpma 1.x reports as RPMA_E_NO_COMPLETION from
# rpma_cq_wait() (as upstream does: librpma/src/cq.c) -- "no event yet" to the
# engine, which waits on: the run must go on and end well.
fault_exit_0_ok() { # CALL LOG
	case $1 in
	ibv_get_cq_event) return 0 ;;
	rdma_disconnect) grep -q "$1() failed" "$2" ;;
	# the QP's extended interface not found: it posts the other way, and says so
	ibv_qp_to_qp_ex) grep -q "$1() failed" "$2" ;;
	# a server's call for a connection request it took: that request refused (its
	# client retries, and is served), the server listening on, and saying so
	*) grep -q "$1() failed" "$2" &&
		{ is_release "$1" || grep -q "connection request (.*): refused it, listening on" "$2"; } ;;
	esac
}
fault_valgrind() { return 1; }

# pick_fio_calls PREV_TRACE TRACE: the N worth failing (see the header), one a
# line; not ibv_dereg_mr: the registered-memory runs fail every one of them
pick_fio_calls() {
	if [ "$1" = /dev/null ]; then
		awk '$0 != "ibv_dereg_mr" && !seen[$0]++ { print FNR }' "$2"
	else
		diff --unchanged-line-format= --old-line-format= --new-line-format='%dn %L' "$1" "$2" |
			awk '{ n[$2]++ } $2 != "ibv_dereg_mr" && ($2 != "ibv_get_cq_event" || n[$2] == 1) { print $1 }'
	fi
}

# check_frees METHOD SIDE TRACE: the registered-memory runs of SIDE (see the header)
check_frees() {
	local m=$1 side=$2 k nregs
	CHECK_ENV=(RPMAFIO_FAULT_CHECK_FREE=1)
	nregs=$(grep -cx ibv_dereg_mr "$3")
	echo "fault $m-check $side: $nregs deregistrations, failing each in turn with the free check on"
	FAULT_CALL=ibv_dereg_mr
	if [ "$side" = client ]; then
		# (both sides check in this one)
		FAULT_NTH=0
		run_pair "$m" "$side" 0 0 "$E2E_TMP/$m-check-$side-0"
		fault_judge "$m-check" "$side" 0 0 "$E2E_TMP/$m-check-$side-0"
	fi
	for k in $(seq 1 "$nregs"); do
		FAULT_NTH=$k
		run_pair "$m" "$side" "$k" 0 "$E2E_TMP/$m-check-$side-$k"
		fault_judge "$m-check" "$side" "$k" 0 "$E2E_TMP/$m-check-$side-$k"
	done
	if [ "$side" = server ] && [ "$m" = apm ]; then
		# the memory in a file: libpmem2 unmaps it; its registration is the last
		local file=/tmp/rpma-fio-faults-mem-$m
		truncate -s 1m "$file"
		SERVER_VARS=(SERVER_MEM="$file")
		FAULT_NTH=$nregs
		run_pair "$m" "$side" "$nregs" 0 "$E2E_TMP/$m-check-file-$side"
		fault_judge "$m-check-file" "$side" "$nregs" 0 "$E2E_TMP/$m-check-file-$side"
		SERVER_VARS=()
		rm -f "$file"
	fi
	CHECK_ENV=()
}

# fio_side SIDE: every method's runs on SIDE, one after the other
fio_side() {
	local side=$1 prev=/dev/null m trace
	for m in $METHODS; do
		trace=$E2E_TMP/$m-$side.trace
		fault_trace "$m" "$side" "$trace" || continue
		if [[ " $PARTS " = *" faults "* ]]; then
			pick_fio_calls "$prev" "$trace" >"$trace.picked"
			fault_calls "$m" "$side" "$trace" "$trace.picked"
			fault_serve_kept
		fi
		[[ " $PARTS " = *" check "* ]] && check_frees "$m" "$side" "$trace"
		prev=$trace
	done
}

start=$SECONDS
fault_lanes fio_side 7300 7700
fault_summary faults-engines "$start"
