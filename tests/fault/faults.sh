#!/usr/bin/env bash
# tests/fault/faults.sh -- provider fault injection, end to end, inside the VM:
#   scripts/softroce-vm run -- tests/fault/faults.sh [--help]
#
# For two example pairs (02 write + flush + read, 04 send/recv) and each side,
# first traces the provider calls that side makes (build/fault/libfault.so,
# RPMAFIO_FAULT_TRACE=1), then reruns the pair once per call, failing that
# call by name and rank (RPMAFIO_FAULT_CALL + RPMAFIO_FAULT_AT) on that side.
# Calls are skipped only where they repeat: the leading calls a side makes
# exactly as in the previous pair (the same set-up code), and the middle of a
# run of one call (the first and the last fail). ibv_get_cq_event fails only
# as the first of its kind: how many completion events a run waits for varies,
# so a later rank may not exist in the run (and a run whose completions were all
# ready makes none: it is run again, at most three times in all). Every planned
# fault must fire: one
# that did not is a failed run (counted apart as "unfired" too).
# Every run must: end by itself within its timeout (no hang), end by exit (no
# signal), and, when the injected failure makes a program fail, say why on its
# output (librpma's error, or the example's "example: ..."). The healthy side
# is judged too, see
# "The healthy side" below. Every FAULTS_VALGRIND_EVERY-th run (default 72; 0:
# none) of a fault in a call that is not a release has the faulted side under
# valgrind memcheck: no error, no definite/possible leak (see is_release).
# The client-side and the server-side faults run side by side (two loops).
# Results: one line per run in $FAULTS_RESULTS (default build/fault/results.tsv).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1

usage() {
	awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"
	echo "Environment: FAULTS_VALGRIND_EVERY=k (0: no valgrind), FAULTS_PAIRS=\"02 04\", FAULTS_RESULTS=FILE"
}
case "${1:-}" in
-h|--help) usage; exit 0 ;;
"") ;;
*) echo "$0: unknown argument '$1' (see --help)" >&2; exit 2 ;;
esac

# shellcheck source=tests/fault/lib.sh
. tests/fault/lib.sh
VALGRIND_EVERY=${FAULTS_VALGRIND_EVERY:-72}
[[ "$VALGRIND_EVERY" =~ ^[0-9]+$ ]] || { echo "$0: FAULTS_VALGRIND_EVERY='$VALGRIND_EVERY' is not a number" >&2; exit 2; }
RESULTS=${FAULTS_RESULTS:-build/fault/results.tsv}
RUN_TIMEOUT=${FAULTS_RUN_TIMEOUT:-30}	# a run without valgrind
VG_TIMEOUT=${FAULTS_VG_TIMEOUT:-90}	# a run with the faulted side under valgrind
GRACE=${FAULTS_GRACE:-1}		# how long the healthy side may take to notice
PEER_WAIT=${FAULTS_PEER_WAIT:-8}	# EXAMPLE_TIMEOUT_S of a run without valgrind
VG_PEER_WAIT=${FAULTS_VG_PEER_WAIT:-30}	# ... with valgrind (the other side's runs go on too)
SLACK=5					# process start and exit under TCG
# shellcheck disable=SC2054 # the commas are valgrind's
MEMCHECK=(valgrind -q --error-exitcode=99 --suppressions=tests/e2e/valgrind.supp
	--leak-check=full --show-leak-kinds=definite,possible --errors-for-leak-kinds=definite,possible)
fault_results_header
PROBE_ROLES="server client"	# see "The healthy side"

# The healthy side. When the faulted side fails, its peer must not be left
# hanging. It has GRACE s to end by itself; if it still runs then, a fresh peer
# (no shim) is started on the same port -- the probe -- and the healthy side
# must, within PEER_LIMIT s of the fault (below), either
#   - end by itself: exit 0, or non-zero with a message, not by a signal
#     ("gave up by itself"), or
#   - serve the probe: both exit 0 ("kept waiting, served a fresh client/server").
# Nothing is killed to make a run pass: a healthy side still running after
# PEER_LIMIT s is a hang, a failed run.
# Waiting, then serving the probe, is the right outcome where the failed side
# never reached its peer:
#   - client faults before its connection request left (rdma_getaddrinfo ...
#     rdma_connect of the client: 02 client N=1-18): the server has had no
#     client yet; waiting for one (EXAMPLE_TIMEOUT_S) is its job;
#   - server faults after it listened and before it accepted (rdma_get_cm_event
#     ... rdma_accept: 02 server N=12-20, 04 server N=13-21): the request was
#     refused with the server's process, and the client retries as it does for
#     a server not listening yet (example_client_connect: 40 tries 250 ms apart).
# Once the server accepted, the healthy side must end by itself: its peer's
# process is gone, so its next wait times out (04 server N=22-23: the client,
# connected, waits EXAMPLE_TIMEOUT_S for a completion that does not come) or
# sees the connection close. PEER_LIMIT is what the examples document: a side
# whose peer is gone is in at most two waits of EXAMPLE_TIMEOUT_S each (the step
# in progress, then the disconnection's wait for CLOSED), plus SLACK.

# example binary for a pair number
pair_bin() {
	case "$1" in
	02) echo build/examples/02-write-flush-read ;;
	04) echo build/examples/04-messages ;;
	*) echo "$0: unknown pair '$1'" >&2; return 1 ;;
	esac
}

# run_pair PAIR SIDE FAULT_AT VALGRIND(0|1) DIR
# Runs server and client; SIDE gets the shim with RPMAFIO_FAULT_AT=FAULT_AT (0:
# count only) of FAULT_CALL, under valgrind when VALGRIND=1; the results as
# fault_pair (tests/fault/lib.sh) sets them.
run_pair() {
	local pair=$1 side=$2 at=$3 vg=$4 dir=$5 limit=$RUN_TIMEOUT wait_s=$PEER_WAIT
	PAIR_BIN=$(pair_bin "$pair") || return 1
	# (the at-th call of FAULT_CALL, when set: how many completion events come
	# before it varies, so a plain call number would hit another call)
	FAULTED_ENV=(LD_PRELOAD="$SHIM" RPMAFIO_FAULT_AT="$at" RPMAFIO_FAULT_CALL="${FAULT_CALL:-}"
		RPMAFIO_FAULT_TRACE=1)
	HEALTHY_ENV=()
	# a side whose peer failed waits EXAMPLE_TIMEOUT_S for it: shorter than the
	# examples' 20 s, but long enough for a peer that starts under valgrind
	if [ "$vg" = 1 ]; then
		FAULTED_ENV+=("${MEMCHECK[@]}")
		limit=$VG_TIMEOUT wait_s=$VG_PEER_WAIT
	fi
	export EXAMPLE_TIMEOUT_S=$wait_s
	fault_pair "$side" "$dir" "$limit" $((2 * wait_s + SLACK))
}

# the commands of fault_pair (tests/fault/lib.sh)
fault_argv() { # ROLE PORT DIR
	FAULT_ARGV=("$PAIR_BIN" "$1" "$A" "$2")
	[ "$1" = server ] && FAULT_ARGV+=("$3/ready")
}
fault_listening() { # DIR PID LIMIT
	e2e_wait_file "$1/ready" "$3" "$2"
}

# what fault_judge (tests/fault/lib.sh) asks of a suite: an example says
# why it failed -- librpma's error, or the example's own "example: ..." -- and
# may end well whatever failed (a failed release at the very end is only logged).
# The healthy side may also say it in its result ("server: the client's data is
# NOT in DRAM memory"): its last line of its own, other than "server: FAILED"
# (stdout comes after stderr in a log: it is flushed at exit).
fault_message() { grep -m1 -E 'librpma \*ERROR\*|^example: ' "$1"; }
fault_peer_message() {
	{ grep -E 'librpma \*ERROR\*|^example: ' "$1" ||
		grep -v -E '^(libfault: |==[0-9]+==|(server|client): (FAILED|OK)$|server: listening on )' "$1"
	} | tail -n1
}
fault_exit_0_ok() { return 0; }

# fault_side SIDE: every pair's faults on SIDE, one run after the other
fault_side() {
	local side=$1 prev_trace=/dev/null pair trace
	VG_RUNS=0
	for pair in ${FAULTS_PAIRS:-02 04}; do
		trace=$E2E_TMP/$pair-$side.trace
		fault_trace "$pair" "$side" "$trace" || continue
		pick_calls "$prev_trace" "$trace" >"$trace.picked"
		fault_calls "$pair" "$side" "$trace" "$trace.picked"
		prev_trace=$trace
	done
}

# Every VALGRIND_EVERY-th run of a fault in a call that is not a release has the
# faulted side under memcheck (fault_calls asks)
fault_valgrind() { # CALL
	is_release "$1" && return 1
	VG_RUNS=$((VG_RUNS + 1))
	[ "$VALGRIND_EVERY" = 1 ] || { [ "$VALGRIND_EVERY" -gt 0 ] && [ $((VG_RUNS % VALGRIND_EVERY)) -eq 1 ]; }
}

start=$SECONDS
fault_lanes fault_side 7300 7700
fault_summary faults-examples "$start"
