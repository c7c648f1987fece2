#!/usr/bin/env bash
# tests/e2e/faults.sh -- provider fault injection, end to end, inside the VM:
#   scripts/softroce-vm run -- tests/e2e/faults.sh [--help]
#
# For two example pairs (02 write + flush + read, 04 send/recv) and each side,
# first traces the provider calls that side makes (build/fault/libfault.so,
# RPMAFIO_FAULT_TRACE=1), then reruns the pair once per call N with
# RPMAFIO_FAULT_AT=N on that side. Calls are skipped only where they repeat:
# the leading calls a side makes exactly as in the previous pair (the same
# set-up code), and the middle of a run of one call (of 100 ibv_get_cq_event
# in a row, the first and the last fail). Every run must: end by itself within
# its timeout (no hang), end by exit (no signal), and, when the injected
# failure makes a program fail, say why on its output (a line that is not the
# shim's). Every FAULTS_VALGRIND_EVERY-th run (default 12; 0: none) of a fault in
# a call that is not a release has the faulted side under valgrind memcheck: no
# error, no definite/possible leak (see is_release).
# The client-side and the server-side faults run side by side (two loops).
# Results: one line per run in $FAULTS_RESULTS (default build/fault/results.tsv).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1

usage() {
	sed -n '2,17s/^# \{0,1\}//p' "$0"
	echo "Environment: FAULTS_VALGRIND_EVERY=k (0: no valgrind), FAULTS_PAIRS=\"02 04\", FAULTS_RESULTS=FILE"
}
case "${1:-}" in
-h|--help) usage; exit 0 ;;
"") ;;
*) echo "$0: unknown argument '$1' (see --help)" >&2; exit 2 ;;
esac

: "${RPMA_TEST_ADDR:?run me inside the Soft-RoCE VM (scripts/softroce-vm run -- ...)}"
. tests/e2e/lib.sh
A=$RPMA_TEST_ADDR
SHIM=$PWD/build/fault/libfault.so
[ -f "$SHIM" ] || { echo "$0: $SHIM is missing: make fault-shim" >&2; exit 1; }
VALGRIND_EVERY=${FAULTS_VALGRIND_EVERY:-12}
[[ "$VALGRIND_EVERY" =~ ^[0-9]+$ ]] || { echo "$0: FAULTS_VALGRIND_EVERY='$VALGRIND_EVERY' is not a number" >&2; exit 2; }
RESULTS=${FAULTS_RESULTS:-build/fault/results.tsv}
RUN_TIMEOUT=${FAULTS_RUN_TIMEOUT:-30}	# a run without valgrind
VG_TIMEOUT=${FAULTS_VG_TIMEOUT:-90}	# a run with the faulted side under valgrind
GRACE=${FAULTS_GRACE:-1}		# how long the healthy side may take to notice
PEER_WAIT=${FAULTS_PEER_WAIT:-8}	# EXAMPLE_TIMEOUT_S of a run without valgrind
VG_PEER_WAIT=${FAULTS_VG_PEER_WAIT:-30}	# ... with valgrind (the other side's runs go on too)
# shellcheck disable=SC2054 # the commas are valgrind's
MEMCHECK=(valgrind -q --error-exitcode=99 --suppressions=tests/e2e/valgrind.supp
	--leak-check=full --show-leak-kinds=definite,possible --errors-for-leak-kinds=definite,possible)
mkdir -p "$(dirname "$RESULTS")"
printf 'pair\tside\tN\tcall\tfaulted_rc\tpeer_rc\tseconds\tverdict\tmessage\n' >"$RESULTS"

# example binary for a pair number
pair_bin() {
	case "$1" in
	02) echo build/examples/02-write-flush-read ;;
	04) echo build/examples/04-messages ;;
	*) echo "$0: unknown pair '$1'" >&2; return 1 ;;
	esac
}

# Wait for pid $1 at most $2 seconds; its exit status, or 124 after killing it.
wait_bounded() {
	local pid=$1 limit=$2 t=0 rc=0
	while kill -0 "$pid" 2>/dev/null && [ "$t" -lt $((limit * 10)) ]; do
		sleep 0.1
		t=$((t + 1))
	done
	if kill -0 "$pid" 2>/dev/null; then
		kill -TERM "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
		return 124
	fi
	wait "$pid" || rc=$?
	return "$rc"
}

# run_pair PAIR SIDE FAULT_AT VALGRIND(0|1) DIR
# Runs server and client; SIDE gets the shim with RPMAFIO_FAULT_AT=FAULT_AT (0:
# count only). Sets RC_SERVER, RC_CLIENT (124: did not end in time) and
# PEER_STOPPED=1 when the healthy side was still waiting for a peer that had
# failed and was stopped by us after GRACE seconds.
run_pair() {
	local pair=$1 side=$2 at=$3 vg=$4 dir=$5 bin port limit
	bin=$(pair_bin "$pair") || return 1
	E2E_PORT=$((E2E_PORT + 1))
	port=$E2E_PORT
	limit=$RUN_TIMEOUT
	[ "$vg" = 1 ] && limit=$VG_TIMEOUT
	mkdir -p "$dir"
	rm -f "$dir/ready"
	# (the at-th call of FAULT_CALL, when set: how many completion events come
	# before it varies, so a plain call number would hit another call)
	local -a wrap_s=() wrap_c=() env_fault=(env LD_PRELOAD="$SHIM" RPMAFIO_FAULT_AT="$at"
		RPMAFIO_FAULT_CALL="${FAULT_CALL:-}" RPMAFIO_FAULT_TRACE=1)
	local -a vgw=()
	[ "$vg" = 1 ] && vgw=("${MEMCHECK[@]}")
	# a side whose peer failed waits EXAMPLE_TIMEOUT_S for it: shorter than the
	# examples' 20 s, but long enough for a peer that starts under valgrind
	local wait_s=$PEER_WAIT
	[ "$vg" = 1 ] && wait_s=$VG_PEER_WAIT
	export EXAMPLE_TIMEOUT_S=$wait_s
	if [ "$side" = server ]; then wrap_s=("${env_fault[@]}" "${vgw[@]}"); else wrap_c=("${env_fault[@]}" "${vgw[@]}"); fi
	RC_SERVER=0 RC_CLIENT=0 PEER_STOPPED=0
	local t0=$EPOCHREALTIME
	"${wrap_s[@]}" "$bin" server "$A" "$port" "$dir/ready" >"$dir/server.log" 2>&1 &
	local spid=$! cpid
	if ! e2e_wait_file "$dir/ready" "$limit" "$spid"; then
		# the server failed (or hung) before listening: the client has nobody to talk to
		wait_bounded "$spid" 1 || RC_SERVER=$?
		RC_CLIENT=-
		RUN_SECONDS=$(elapsed_since "$t0")
		return 0
	fi
	"${wrap_c[@]}" "$bin" client "$A" "$port" >"$dir/client.log" 2>&1 &
	cpid=$!
	local faulted_pid=$cpid healthy_pid=$spid
	[ "$side" = server ] && faulted_pid=$spid healthy_pid=$cpid
	local rc_f=0 rc_h=0
	wait_bounded "$faulted_pid" "$limit" || rc_f=$?
	if [ "$rc_f" -ne 0 ]; then
		# the faulted side gave up: the other may wait for it in vain; it gets GRACE s
		wait_bounded "$healthy_pid" "$GRACE" || rc_h=$?
		[ "$rc_h" -eq 124 ] && PEER_STOPPED=1
	else
		wait_bounded "$healthy_pid" "$limit" || rc_h=$?
	fi
	if [ "$side" = server ]; then RC_SERVER=$rc_f RC_CLIENT=$rc_h; else RC_CLIENT=$rc_f RC_SERVER=$rc_h; fi
	RUN_SECONDS=$(elapsed_since "$t0")
}

# seconds (one decimal) since an $EPOCHREALTIME value
elapsed_since() {
	local now=$EPOCHREALTIME
	awk -v a="$1" -v b="$now" 'BEGIN { printf "%.1f", b - a }'
}

# Is the exit status $1 a crash (signal) or a hang (124)? Prints why.
bad_exit() {
	case "$1" in
	-|0) return 1 ;;
	124) echo "did not end within its timeout (hang)"; return 0 ;;
	99) echo "valgrind reported errors or leaks"; return 0 ;;
	*) if [ "$1" -gt 128 ]; then echo "killed by signal $(($1 - 128))"; return 0; fi; return 1 ;;
	esac
}

# the first line of a log that is not the shim's or valgrind's
first_message() {
	grep -v -e '^libfault:' -e '^==[0-9]*==' "$1" 2>/dev/null | grep -m1 -v '^[[:space:]]*$'
}

total=0 failed=0
# check_run PAIR SIDE N VG DIR: judge one run, record it
check_run() {
	local pair=$1 side=$2 n=$3 vg=$4 dir=$5 peer rc_f rc_p call msg why="" verdict
	peer=client
	[ "$side" = client ] && peer=server
	if [ "$side" = server ]; then rc_f=$RC_SERVER rc_p=$RC_CLIENT; else rc_f=$RC_CLIENT rc_p=$RC_SERVER; fi
	call=$(sed -n 's/^libfault: failing call [0-9]*: \([a-z_0-9]*\).*/\1/p' "$dir/$side.log" | head -n1)
	msg=$(first_message "$dir/$side.log" | tr '\t' ' ' | cut -c1-160)
	if r=$(bad_exit "$rc_f"); then why="$side $r"
	elif [ "$PEER_STOPPED" = 0 ] && r=$(bad_exit "$rc_p"); then why="$peer $r"
	elif [ "$rc_f" != 0 ] && [ -z "$msg" ]; then why="$side failed (exit $rc_f) without a message"
	elif [ "$rc_p" != 0 ] && [ "$rc_p" != - ] && [ "$PEER_STOPPED" = 0 ] && [ -z "$(first_message "$dir/$peer.log")" ]; then
		why="$peer failed (exit $rc_p) without a message"
	elif [ -z "$call" ]; then
		# a run may make fewer calls of a kind than the traced one (how many
		# completion-channel events arrive varies): then there was no such call
		# to fail, which is no error
		local made
		made=$(grep -c "^libfault: call [0-9]*: $FAULT_CALL\$" "$dir/$side.log")
		[ "$made" -ge "$FAULT_NTH" ] &&
			why="the shim did not fail call $FAULT_NTH of $FAULT_CALL on the $side (it made $made)"
	fi
	total=$((total + 1))
	if [ -n "$why" ]; then
		verdict=FAIL
		failed=$((failed + 1))
		echo "FAIL fault $pair $side N=$n$([ "$vg" = 1 ] && echo " (valgrind)"): $why"
		for f in "$dir"/*.log; do echo "  --- $(basename "$f")"; sed 's/^/  | /' "$f"; done
	else
		verdict=ok
		[ "$PEER_STOPPED" = 1 ] && verdict="ok (peer waited, stopped)"
		[ "${E2E_VERBOSE:-0}" = 1 ] && echo "PASS fault $pair $side N=$n $call -> $side exit $rc_f, $peer exit $rc_p (${RUN_SECONDS}s): $msg"
	fi
	[ "$vg" = 1 ] && verdict="$verdict, memcheck"
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$pair" "$side" "$n" "${call:-?}" "$rc_f" "$rc_p" \
		"$RUN_SECONDS" "$verdict" "$msg" >>"$RESULTS"
}

# pick_calls PREV_TRACE TRACE: the N worth failing (see the header), one a line
pick_calls() {
	awk 'FILENAME == ARGV[1] { prev[FNR] = $0; nprev = FNR; next }
		{ cur[FNR] = $0; n = FNR }
		END {
			start = 1
			while (start <= n && start <= nprev && cur[start] == prev[start]) start++
			for (i = start; i <= n; i++)
				if (i == 1 || i == n || cur[i] != cur[i - 1] || cur[i] != cur[i + 1]) print i
		}' "$1" "$2"
}

# A failed release (destroy, dereg, dealloc) leaves the object whole in librpma,
# as in upstream librpma, so that the caller may retry; an example that does not
# retry keeps it until exit. memcheck therefore judges faults in the other calls.
is_release() {
	case "$1" in
	ibv_dereg_mr|ibv_dealloc_pd|ibv_destroy_*|rdma_destroy_id) return 0 ;;
	*) return 1 ;;
	esac
}

# fault_side SIDE: every pair's faults on SIDE, one run after the other; leaves
# "RUNS FAILED" in $E2E_TMP/SIDE.count
fault_side() {
	local side=$1 prev_trace=/dev/null pair dir trace n vg picked vg_runs=0
	for pair in ${FAULTS_PAIRS:-02 04}; do
		dir=$E2E_TMP/$pair-$side-trace
		FAULT_CALL='' FAULT_NTH=0
		run_pair "$pair" "$side" 0 0 "$dir"
		trace=$E2E_TMP/$pair-$side.trace
		sed -n 's/^libfault: call [0-9]*: //p' "$dir/$side.log" >"$trace"
		if [ "$RC_SERVER" != 0 ] || [ "$RC_CLIENT" != 0 ] || [ ! -s "$trace" ]; then
			echo "FAIL fault $pair $side: the run without a fault failed (server $RC_SERVER, client $RC_CLIENT)"
			for f in "$dir"/*.log; do echo "  --- $(basename "$f")"; sed 's/^/  | /' "$f"; done
			failed=$((failed + 1)) total=$((total + 1))
			continue
		fi
		pick_calls "$prev_trace" "$trace" >"$trace.picked"
		mapfile -t picked <"$trace.picked"
		echo "fault $pair $side: $(wc -l <"$trace") provider calls, failing ${#picked[@]} of them one by one"
		for n in "${picked[@]}"; do
			vg=0
			# fail the same call as the n-th of the trace: the k-th of its kind
			FAULT_CALL=$(sed -n "${n}p" "$trace")
			FAULT_NTH=$(head -n "$n" "$trace" | grep -cx "$FAULT_CALL")
			if ! is_release "$FAULT_CALL"; then
				vg_runs=$((vg_runs + 1))
				[ "$VALGRIND_EVERY" -gt 0 ] && [ $((vg_runs % VALGRIND_EVERY)) -eq 1 ] && vg=1
				[ "$VALGRIND_EVERY" = 1 ] && vg=1
			fi
			dir=$E2E_TMP/$pair-$side-$n
			run_pair "$pair" "$side" "$FAULT_NTH" "$vg" "$dir"
			check_run "$pair" "$side" "$n" "$vg" "$dir"
		done
		prev_trace=$trace
	done
	echo "$total $failed" >"$E2E_TMP/$side.count"
}

# The two sides' faults run side by side (ports apart): a run mostly waits --
# for its peer, a timeout, a process to start -- and the suite is one of the
# longest under TCG. Each side's output is shown once it is done.
start=$SECONDS
(E2E_PORT=7300 && fault_side client) >"$E2E_TMP/client.out" 2>&1 &
client_pid=$!
(E2E_PORT=7700 && fault_side server) >"$E2E_TMP/server.out" 2>&1 &
server_pid=$!
wait "$client_pid"
wait "$server_pid"
for side in client server; do
	cat "$E2E_TMP/$side.out"
	read -r side_total side_failed <"$E2E_TMP/$side.count" 2>/dev/null ||
		{ echo "FAIL fault $side: the side's loop ended without a count"; side_total=1 side_failed=1; }
	total=$((total + side_total)) failed=$((failed + side_failed))
done
rm -rf "$E2E_TMP"
echo "faults: $total runs, $failed failed, $((SECONDS - start)) s; results in $RESULTS"
[ "$failed" -eq 0 ] && [ "$total" -gt 0 ]
