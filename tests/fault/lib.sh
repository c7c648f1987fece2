# shellcheck shell=bash
# tests/fault/lib.sh -- what the fault suites share (faults.sh: the examples,
# fio_faults.sh: the engines): judging an exit, picking the calls to fail from a
# trace of the shim (tests/fault/libfault.c). Sourcing it sources tests/e2e/lib.sh
# (its bounded waits too: ended_within, wait_bounded) and sets A (the rxe address,
# e2e_in_vm) and SHIM (the shim). The fault suites' one library (engine_faults.sh
# needs no shim: it sources e2e's alone).

. tests/e2e/lib.sh
e2e_in_vm
SHIM=$PWD/build/fault/libfault.so
[ -f "$SHIM" ] || { echo "$0: $SHIM is missing: make fault-shim" >&2; exit 1; }

# seconds (one decimal) since an $EPOCHREALTIME value
elapsed_since() {
	local now=$EPOCHREALTIME
	awk -v a="$1" -v b="$now" 'BEGIN { printf "%.1f", b - a }'
}

# Is the exit status $1 a crash (signal) or a hang (124)? Prints why.
bad_exit() {
	case "$1" in
	-|0|waiting) return 1 ;;
	124) echo "did not end within its timeout (hang)"; return 0 ;;
	99) echo "valgrind reported errors or leaks"; return 0 ;;
	*) if [ "$1" -gt 128 ]; then echo "killed by signal $(($1 - 128))"; return 0; fi; return 1 ;;
	esac
}

# pick_calls PREV_TRACE TRACE: the N worth failing, one a line: every call of
# TRACE (one name a line) but the leading ones identical to PREV_TRACE's (the
# same set-up code), the middle of a run of one call (its first and last stay),
# and ibv_get_cq_event after its first (how many completion events a run waits
# for varies: a later one may not come)
pick_calls() {
	awk 'FILENAME == ARGV[1] { prev[FNR] = $0; nprev = FNR; next }
		{ cur[FNR] = $0; n = FNR; rank[FNR] = ++seen[$0] }
		END {
			start = 1
			while (start <= n && start <= nprev && cur[start] == prev[start]) start++
			for (i = start; i <= n; i++) {
				if (cur[i] == "ibv_get_cq_event" && rank[i] > 1) continue
				if (i == 1 || i == n || cur[i] != cur[i - 1] || cur[i] != cur[i + 1]) print i
			}
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

# fault_pair SIDE DIR LIMIT PEER_LIMIT
# Runs a server and then a client on a port of their own (E2E_PORT, stepped by
# FAULT_PORT_STEP, default 1): SIDE with the words of FAULTED_ENV before its
# command (env assignments: the shim and its settings; then, if any, a wrapper
# such as valgrind), the other with those of HEALTHY_ENV (may be empty). The
# suite defines
#   fault_argv ROLE PORT DIR       sets FAULT_ARGV to the command of ROLE
#   fault_listening DIR PID LIMIT  0 once the server (PID) listens
# The faulted side must end within LIMIT s. The healthy side, once the faulted
# one failed (see "The healthy side" in tests/fault/faults.sh): GRACE s to end by
# itself; then, if its role is in PROBE_ROLES, a fresh peer without the shim
# (the probe, fault_probe); with KEEP_WAITING_SERVER=1, a server is left
# waiting for the next run's client, which it must take (fault_serve_kept
# gives the last of them a fresh one); PEER_LIMIT s after the fault it must
# have ended (else it is killed: 124).
# Sets RC_SERVER and RC_CLIENT (124: did not end in time; RC_CLIENT=- when the
# server failed before listening; RC_SERVER=waiting for a server kept), RUN_SECONDS,
# and PEER_HOW (ended, served-probe, gave-up, waiting), PEER_SECONDS (from the
# faulted side's end to the healthy side's) and RC_PROBE (- without a probe).
# shellcheck disable=SC2034 # (the results are the suite's)
fault_pair() {
	local side=$1 dir=$2 limit=$3 peer_limit=$4 port
	mkdir -p "$dir"
	local -a env_s=(env "${HEALTHY_ENV[@]}") env_c=(env "${HEALTHY_ENV[@]}")
	if [ "$side" = server ]; then env_s=(env "${FAULTED_ENV[@]}"); else env_c=(env "${FAULTED_ENV[@]}"); fi
	local reuse=0 t0 spid cpid
	if [ "$side" = client ] && [ -n "${KEPT_SPID:-}" ] && kill -0 "$KEPT_SPID" 2>/dev/null; then
		reuse=1
	else
		fault_serve_kept
	fi
	RC_SERVER=0 RC_CLIENT=0 PEER_HOW=ended PEER_SECONDS=- RC_PROBE=-
	t0=$EPOCHREALTIME
	if [ "$reuse" = 1 ]; then
		# the server the previous run's client never reached: still waiting
		spid=$KEPT_SPID port=$KEPT_PORT
		ln -s "$KEPT_LOG" "$dir/server.log"
	else
		E2E_PORT=$((E2E_PORT + ${FAULT_PORT_STEP:-1}))
		port=$E2E_PORT
		fault_argv server "$port" "$dir"
		"${env_s[@]}" "${FAULT_ARGV[@]}" >"$dir/server.log" 2>&1 &
		spid=$!
		if ! fault_listening "$dir" "$spid" "$limit"; then
			# the server failed (or hung) before listening: the client has nobody to talk to
			wait_bounded "$spid" 1 || RC_SERVER=$?
			RC_CLIENT=-
			RUN_SECONDS=$(elapsed_since "$t0")
			return 0
		fi
	fi
	KEPT_SPID=
	fault_argv client "$port" "$dir"
	"${env_c[@]}" "${FAULT_ARGV[@]}" >"$dir/client.log" 2>&1 &
	cpid=$!
	local faulted_pid=$cpid healthy_pid=$spid healthy=server
	[ "$side" = server ] && faulted_pid=$spid healthy_pid=$cpid healthy=client
	local rc_f=0 rc_h=0
	wait_bounded "$faulted_pid" "$limit" || rc_f=$?
	local t_fault=$EPOCHREALTIME
	if [ "$rc_f" -eq 0 ] || [ "$rc_f" -eq 124 ]; then
		wait_bounded "$healthy_pid" "$limit" || rc_h=$?
	elif ended_within "$healthy_pid" "$GRACE"; then
		wait "$healthy_pid" || rc_h=$?
	elif [[ " ${PROBE_ROLES:-} " = *" $healthy "* ]]; then
		fault_probe "$healthy" "$healthy_pid" "$port" "$dir" "$limit" $((peer_limit - GRACE)) || rc_h=$?
	elif [ "$healthy" = server ] && [ "${KEEP_WAITING_SERVER:-0}" = 1 ]; then
		PEER_HOW=waiting rc_h=waiting
		KEPT_SPID=$spid KEPT_PORT=$port KEPT_LOG=$(realpath "$dir/server.log")
	else
		wait_bounded "$healthy_pid" $((peer_limit - GRACE)) || rc_h=$?
	fi
	PEER_SECONDS=$(elapsed_since "$t_fault")
	if [ "$side" = server ]; then RC_SERVER=$rc_f RC_CLIENT=$rc_h; else RC_CLIENT=$rc_f RC_SERVER=$rc_h; fi
	RUN_SECONDS=$(elapsed_since "$t0")
}

# fault_serve_kept: the server left waiting by the runs before (KEEP_WAITING_SERVER)
# must now serve a fresh client (no shim): both end with 0 -- judged as a run
# of its own, without a fault (N=0), after theirs
# shellcheck disable=SC2034 # (fault_judge's inputs)
fault_serve_kept() {
	[ -n "${KEPT_SPID:-}" ] || return 0
	local dir=$E2E_TMP/kept-$KEPT_PORT t0=$EPOCHREALTIME cpid call=${FAULT_CALL:-} nth=${FAULT_NTH:-0}
	mkdir -p "$dir"
	ln -s "$KEPT_LOG" "$dir/server.log"
	fault_argv client "$KEPT_PORT" "$dir"
	"${FAULT_ARGV[@]}" >"$dir/client.log" 2>&1 &
	cpid=$!
	RC_CLIENT=0 RC_SERVER=0
	wait_bounded "$cpid" "$RUN_TIMEOUT" || RC_CLIENT=$?
	wait_bounded "$KEPT_SPID" "$RUN_TIMEOUT" || RC_SERVER=$?
	echo "fault $KEPT_LABEL client: the server the faults N=${KEPT_ROWS# } left waiting for a client" \
		"served a fresh one: client exit $RC_CLIENT, server exit $RC_SERVER"
	KEPT_SPID='' KEPT_ROWS=''
	PEER_HOW=served-probe PEER_SECONDS=- RC_PROBE=$RC_CLIENT RUN_SECONDS=$(elapsed_since "$t0")
	FAULT_CALL='' FAULT_NTH=0
	fault_judge "$KEPT_LABEL" client 0 0 "$dir"
	FAULT_CALL=$call FAULT_NTH=$nth
}

# fault_probe HEALTHY_ROLE PID PORT DIR LIMIT PEER_LIMIT: start a fresh peer for
# the healthy side PID (its log: DIR/probe-<role>.log); PID's exit status (124:
# still running after PEER_LIMIT s); sets PEER_HOW and RC_PROBE
# shellcheck disable=SC2034 # (the results are the suite's)
fault_probe() {
	local healthy=$1 pid=$2 port=$3 dir=$4 limit=$5 peer_limit=$6 role=server rc=0 ppid
	[ "$healthy" = server ] && role=client
	mkdir -p "$dir/probe"
	fault_argv "$role" "$port" "$dir/probe"
	"${FAULT_ARGV[@]}" >"$dir/probe-$role.log" 2>&1 &
	ppid=$!
	wait_bounded "$pid" "$peer_limit" || rc=$?
	PEER_HOW=gave-up
	if [ "$rc" -eq 0 ]; then
		# it served the probe: the probe ends as a healthy peer does
		PEER_HOW=served-probe
		RC_PROBE=0
		wait_bounded "$ppid" "$limit" || RC_PROBE=$?
	elif ended_within "$ppid" 0; then
		RC_PROBE=0
		wait "$ppid" || RC_PROBE=$?
	else
		# our helper, left waiting for a peer that gave up: not under test
		kill -TERM "$ppid" 2>/dev/null
		wait "$ppid" 2>/dev/null
	fi
	return "$rc"
}

FAULT_TOTAL=0 FAULT_FAILED=0 FAULT_UNFIRED=0
# fault_judge LABEL SIDE N VG(0|1) DIR: judge the run fault_pair made in DIR (SIDE
# failed the FAULT_NTH-th call of FAULT_CALL; FAULT_NTH=0: no fault planned),
# say FAIL with the logs, append a row to LANE_RESULTS or RESULTS (the columns of
# tests/fault/table.py); counts in FAULT_TOTAL, FAULT_FAILED, FAULT_UNFIRED (a
# planned fault that did not fire: a failed run too). The suite defines
#   fault_message LOG    the line of LOG that says why the faulted side failed
#   fault_peer_message LOG  the same of the healthy side (its last words)
#   fault_exit_0_ok CALL LOG  may a run whose CALL failed end with exit 0 (LOG: its output)?
# Memory given back while still registered (RPMAFIO_FAULT_CHECK_FREE=1: the
# shim's "libfault: free(...)" before it aborts) fails the run, on either side.
# shellcheck disable=SC2034 # (r: the reason bad_exit prints)
fault_judge() {
	local label=$1 side=$2 n=$3 vg=$4 dir=$5 peer=client rc_f rc_p call msg peer_msg="" why="" verdict r freed
	[ "$side" = client ] && peer=server
	if [ "$side" = server ]; then rc_f=$RC_SERVER rc_p=$RC_CLIENT; else rc_f=$RC_CLIENT rc_p=$RC_SERVER; fi
	call=$(sed -n 's/^libfault: failing call [0-9]*: \([a-z_0-9]*\).*/\1/p' "$dir/$side.log" | head -n1)
	[ "$FAULT_NTH" = 0 ] && call=-
	msg=$(fault_message "$dir/$side.log" | tr '\t' ' ' | cut -c1-160)
	[ "$rc_p" != - ] && peer_msg=$(fault_peer_message "$dir/$peer.log" | tr '\t' ' ' | cut -c1-160)
	freed=$(grep -h -m1 -E '^libfault: (free|munmap)\(' "$dir/server.log" "$dir/client.log" 2>/dev/null | head -n1)
	if [ -n "$freed" ]; then why="memory freed while still registered: $freed"
	elif r=$(bad_exit "$rc_f"); then why="$side $r"
	elif [ "$call" = - ]; then
		{ [ "$rc_f" = 0 ] && [ "$rc_p" = 0 ]; } ||
			why="the run without a fault failed (server $RC_SERVER, client $RC_CLIENT)"
	elif [ -z "$call" ]; then
		local made
		made=$(grep -c "^libfault: call [0-9]*: $FAULT_CALL\$" "$dir/$side.log")
		why="the planned fault did not fire: call $FAULT_NTH of $FAULT_CALL (the $side made $made)"
		FAULT_UNFIRED=$((FAULT_UNFIRED + 1))
	elif r=$(bad_exit "$rc_p"); then why="$peer $r$([ "$PEER_HOW" != ended ] &&
		echo " (still running $PEER_SECONDS s after the fault, though a fresh $side was started for it)")"
	elif [ "$rc_f" = 0 ] && ! fault_exit_0_ok "$call" "$dir/$side.log"; then
		why="$side exited 0 although its $call failed$(grep -q "$call() failed" "$dir/$side.log" ||
			echo ", and nothing says so")"
	elif [ "$rc_f" != 0 ] && [ -z "$msg" ]; then why="$side failed (exit $rc_f) without a message"
	elif [ "$rc_p" != 0 ] && [ "$rc_p" != - ] && [ "$rc_p" != waiting ] && [ -z "$peer_msg" ]; then
		why="$peer failed (exit $rc_p) without a message"
	elif [ "$PEER_HOW" = served-probe ] && [ "$RC_PROBE" != 0 ]; then
		why="$peer ended 0 after a fresh $side was started, but that one exited $RC_PROBE"
	elif [ "$PEER_HOW" = gave-up ] && [ "$RC_PROBE" = 0 ]; then
		why="a fresh $side was served (exit 0), but the $peer exited $rc_p"
	fi
	FAULT_TOTAL=$((FAULT_TOTAL + 1))
	if [ -n "$why" ]; then
		verdict="FAIL: $(cut -c1-200 <<<"$why")"
		FAULT_FAILED=$((FAULT_FAILED + 1))
		echo "FAIL fault $label $side N=$n$([ "$vg" = 1 ] && echo " (valgrind)"): $why"
		for f in "$dir"/*.log; do echo "  --- $(basename "$f")"; sed 's/^/  | /' "$f"; done
	else
		verdict=ok
		case $PEER_HOW in
		served-probe) verdict="ok (peer kept waiting, served a fresh $side)" ;;
		gave-up) verdict="ok (peer gave up by itself)" ;;
		waiting) verdict="ok (peer kept waiting for a $side, took the next one)"
			KEPT_LABEL=$label KEPT_ROWS="${KEPT_ROWS:-} $n" ;;
		esac
		[ "${E2E_VERBOSE:-0}" = 1 ] && echo "PASS fault $label $side N=$n $call -> $side exit $rc_f," \
			"$peer exit $rc_p $PEER_HOW ${PEER_SECONDS}s (${RUN_SECONDS}s): $msg"
	fi
	[ "$vg" = 1 ] && verdict="$verdict, memcheck"
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$label" "$side" "$n" "${call:-?}" "$rc_f" \
		"$rc_p" "$RUN_SECONDS" "$verdict" "$msg" "$PEER_SECONDS" "$peer_msg" "$RC_PROBE" \
		>>"${LANE_RESULTS:-$RESULTS}"
}

# the header of RESULTS (one row a run: fault_judge)
fault_results_header() {
	mkdir -p "$(dirname "$RESULTS")"
	printf 'pair\tside\tN\tcall\tfaulted_rc\tpeer_rc\tseconds\tverdict\tmessage\tpeer_seconds\tpeer_message\tprobe_rc\n' \
		>"$RESULTS"
}

# fault_lanes FUNCTION CLIENT_PORT SERVER_PORT: FUNCTION client and FUNCTION
# server side by side (ports apart), each in a subshell counting with
# fault_judge: a run mostly waits -- for its peer, a timeout, a process to
# start -- and these suites are among the longest under TCG. Each side's
# output and rows are shown (added to RESULTS) once both are done; the counts
# are added to FAULT_*.
fault_lanes() {
	local fn=$1 side t f u
	local -A port=([client]=$2 [server]=$3) pid=()
	for side in client server; do
		(E2E_PORT=${port[$side]} LANE_RESULTS=$E2E_TMP/$side.tsv && { "$fn" "$side"; true; } &&
			echo "$FAULT_TOTAL $FAULT_FAILED $FAULT_UNFIRED" >"$E2E_TMP/$side.count") \
			>"$E2E_TMP/$side.out" 2>&1 &
		pid[$side]=$!
	done
	wait "${pid[client]}" "${pid[server]}"
	for side in client server; do
		cat "$E2E_TMP/$side.out"
		cat "$E2E_TMP/$side.tsv" >>"$RESULTS" 2>/dev/null
		read -r t f u <"$E2E_TMP/$side.count" 2>/dev/null ||
			{ echo "FAIL fault $side: the side's loop ended without a count"; t=1 f=1 u=0; }
		FAULT_TOTAL=$((FAULT_TOTAL + t)) FAULT_FAILED=$((FAULT_FAILED + f))
		FAULT_UNFIRED=$((FAULT_UNFIRED + u))
	done
}

# fault_summary NAME START_SECONDS: the last line, and NAME's row in the e2e
# results (the name docs/reliability.md cites for the suite's table); 0 if every
# run passed
fault_summary() {
	local waited gave_up ok=0
	rm -rf "$E2E_TMP"
	waited=$(awk -F'\t' 'NR > 1 && $8 ~ /served a fresh|took the next/' "$RESULTS" | wc -l)
	gave_up=$(awk -F'\t' 'NR > 1 && $8 ~ /gave up/' "$RESULTS" | wc -l)
	echo "$1: $FAULT_TOTAL runs, $FAULT_FAILED failed ($FAULT_UNFIRED of them: a planned fault" \
		"that did not fire); the healthy side kept waiting, then served a fresh peer, in $waited," \
		"gave up by itself in $gave_up; $((SECONDS - $2)) s; results in $RESULTS"
	[ "$FAULT_FAILED" -eq 0 ] && [ "$FAULT_TOTAL" -gt 0 ] || ok=1
	printf '%s\t%s\t%s\n' "$1" "$([ "$ok" -eq 0 ] && echo PASS || echo FAIL)" \
		"$((SECONDS - $2))" >>"$E2E_RESULTS" 2>/dev/null || true
	return "$ok"
}

# fault_trace LABEL SIDE TRACE: the run without a fault (the suite's run_pair
# LABEL SIDE 0 0 DIR); the calls SIDE made, one name a line, into TRACE. 1 (a
# FAIL said and counted) when that run failed.
fault_trace() {
	local label=$1 side=$2 trace=$3 dir=$E2E_TMP/$1-$2-trace f
	FAULT_CALL='' FAULT_NTH=0
	run_pair "$label" "$side" 0 0 "$dir"
	sed -n 's/^libfault: call [0-9]*: //p' "$dir/$side.log" >"$trace"
	[ "$RC_SERVER" = 0 ] && [ "$RC_CLIENT" = 0 ] && [ -s "$trace" ] && return 0
	echo "FAIL fault $label $side: the run without a fault failed (server $RC_SERVER, client $RC_CLIENT)"
	for f in "$dir"/*.log; do echo "  --- $(basename "$f")"; sed 's/^/  | /' "$f"; done
	FAULT_FAILED=$((FAULT_FAILED + 1)) FAULT_TOTAL=$((FAULT_TOTAL + 1))
	return 1
}

# fault_calls LABEL SIDE TRACE PICKED: one run a line of PICKED (a number N of
# TRACE's lines): SIDE fails the same call as the N-th of TRACE, by its name
# and its rank among the calls of that name (run_pair LABEL SIDE RANK VG DIR,
# VG=1 when the suite's fault_valgrind CALL says so), judged by fault_judge
fault_calls() {
	local label=$1 side=$2 trace=$3 n vg dir
	local -a picked
	mapfile -t picked <"$4"
	echo "fault $label $side: $(wc -l <"$trace") provider calls, failing ${#picked[@]} of them one by one"
	for n in "${picked[@]}"; do
		FAULT_CALL=$(sed -n "${n}p" "$trace")
		FAULT_NTH=$(head -n "$n" "$trace" | grep -cx "$FAULT_CALL")
		vg=0
		fault_valgrind "$FAULT_CALL" && vg=1
		dir=$E2E_TMP/$label-$side-$n
		run_pair "$label" "$side" "$FAULT_NTH" "$vg" "$dir"
		# a side waits for a completion event only when none was ready yet: a run may
		# make no ibv_get_cq_event at all. Run it again then, at most twice more: the
		# planned fault must fire once.
		local try=1
		while [ "$FAULT_CALL" = ibv_get_cq_event ] && [ "$try" -lt 3 ] &&
				! grep -q '^libfault: failing call' "$dir/$side.log" 2>/dev/null; do
			try=$((try + 1))
			echo "  (fault $label $side N=$n: no $FAULT_CALL in that run, its completions were ready: try $try)"
			rm -rf "$dir"
			run_pair "$label" "$side" "$FAULT_NTH" "$vg" "$dir"
		done
		fault_judge "$label" "$side" "$n" "$vg" "$dir"
	done
}
