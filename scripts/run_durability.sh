#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# run_durability.sh -- does what the engines acknowledged as durable survive the
# server host's power cut? Rounds of: the durability servers on the server's PMem;
# random writes with fio's verify pattern, the server's power cut while they go on,
# fio logging every write it saw complete; the server host back, its jobs again on
# the same bytes; every write fio saw complete read back over RDMA and checked.
# A report per method and round (acknowledged, read back, lost with offsets and
# what was read) and a verdict per method. Details: docs/engines.md "Does it
# survive a power cut?"; also run as `run_matrix.sh durability ...`.
set -euo pipefail

PROG=${0##*/}
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
MATRIX=$ROOT/scripts/matrix/matrix
# shellcheck source=scripts/matrix/lib.sh
. "$ROOT/scripts/matrix/lib.sh"
RDMA_CORE_PREFIX=${RPMA_FIO_RDMA_CORE:-}

# The options, checked and completed by scripts/matrix/rpmamatrix/durability_options.py:
# shell assignments (METHODS, METHOD_LIST, ROUNDS, SSH_HOST, OUT, OPTIONS_JSON, ...), the
# hosts' names checked by lib.sh as run_matrix.sh's, then --help or --dry-run printed
settings() { # ARGS...
	local script
	command -v python3 >/dev/null || die "python3 is missing: run scripts/deps.sh"
	# (2 also when python3 fails otherwise: nothing ran, no verdict)
	script=$(python3 "$MATRIX" durability-options --prog "$PROG" --root "$ROOT" -- "$@") || exit 2
	eval "$script"
}

# ---- one round ----

# the job files of the methods (the native build's copies with --native) into
# JOB_FILES, the --section options that pick the methods into SECTIONS
job_files() { # client|server
	local dir=jobs suffix='' m
	[ "$NATIVE" = 0 ] || dir=$ENGINE_DIR/jobs
	[ "$1" = client ] || suffix=-server
	JOB_FILES=("$dir/durability$suffix.fio")
	[[ ,$METHODS, != *,apm-native,* ]] || JOB_FILES=("$dir/durability-native$suffix.fio")
	SECTIONS=()
	for m in "${METHOD_LIST[@]}"; do SECTIONS+=(--section="$m"); done
}

# (connect_timeout is also how long a client waits for a completion: after the cut
# its jobs end that long after their last one; the clients connect only once the
# servers listen, and a live server completes well within it)
common_vars() { # PORT
	VARS=(SERVER_IP="$SERVER_IP" PORT="$1" SERVER_SIZE="$SERVER_SIZE" BS="$R_BS" IODEPTH="$R_QD"
		BATCH="$R_BATCH" RATE_IOPS="$R_RATE" CONNECT_TIMEOUT=10000 SERVER_MEM="$SERVER_MEM"
		DIRECT_WRITE_TO_PMEM="$DIRECT_WRITE" SERVER_BUSY_WAIT=0 SERVER_IODEPTH=64
		RANDSEED="$SEED" VERIFY_PATTERN="$PATTERN")
	[ "$NATIVE" = 0 ] || VARS+=(LD_LIBRARY_PATH="$RDMA_CORE_PREFIX/lib")
}

# the servers of every method, in the background (the ssh carrying them), until
# they listen; LOG gets their output
start_servers() { # LOG
	job_files server
	common_vars "$PORT_BASE"
	server_cmd env "${VARS[@]}" timeout 3600 fio "${JOB_FILES[@]}" "${SECTIONS[@]}" >"$1" 2>&1 &
	MATRIX_SPID=$!
	wait_listening "$PORT_BASE" "${#METHOD_LIST[@]}" 120
}

# after a power cut the server's host is gone: end the ssh that carried its jobs
drop_servers() {
	[ -n "$MATRIX_SPID" ] || return 0
	kill "$MATRIX_SPID" 2>/dev/null || true
	wait "$MATRIX_SPID" 2>/dev/null || true
	MATRIX_SPID=
}

boot_id() {
	on_server cat /proc/sys/kernel/random/boot_id 2>/dev/null || true
}

# ---- --dram-canary: did the power go? ----
# A 4 KiB block of the server's RAM that a reset keeps and a loss of power does not
# (scripts/matrix/dram_canary.sh, there). Before the cut it gets the round's token and
# must hold it; after the cut it must not: else the memory kept its contents, and
# whatever the cut was, it was no loss of power.

canary() { # RD VERB ARGS...: dram_canary.sh on the server
	local rd=$1
	shift
	on_server "$REMOTE_DIR/scripts/matrix/dram_canary.sh" "$@" 2>>"$rd/canary.log"
}

# Does the canary hold the token CANARY? 0 yes, 1 no, 2 it could not be read WHEN
# (RD/error says so)
canary_holds() { # RD WHEN
	local got
	if ! got=$(canary "$1" hash "$CANARY_PATH" "$CANARY_BLOCK") || [ -z "$got" ]; then
		echo "--dram-canary: $DRAM_CANARY could not be read $2 (canary.log)" >"$1/error"
		return 2
	fi
	[ "$got" = "$("$ROOT/scripts/matrix/dram_canary.sh" expect "$CANARY")" ]
}

# the token CANARY written to the canary, which must hold it
canary_set() { # RD
	local rd=$1 rc=0
	[ -n "$DRAM_CANARY" ] || return 0
	if ! canary "$rd" check "$CANARY_PATH" "$CANARY_BLOCK"; then
		echo "--dram-canary: $DRAM_CANARY is no RAM that the server's kernel leaves alone across a reboot" \
			"(canary.log)" >"$rd/error"
		return 1
	fi
	if ! canary "$rd" write "$CANARY_PATH" "$CANARY_BLOCK" "$CANARY"; then
		echo "--dram-canary: the token could not be written to $DRAM_CANARY on the server (canary.log)" >"$rd/error"
		return 1
	fi
	canary_holds "$rd" "right after the write" || rc=$?
	[ "$rc" != 1 ] || echo "--dram-canary: $DRAM_CANARY did not hold the token just written to it (canary.log)" \
		>"$rd/error"
	[ "$rc" = 0 ] || return 1
	echo "$DRAM_CANARY holds the token $CANARY" >>"$rd/canary.log"
}

# after the cut: the token must be gone (RD/power-lost says so), else not judged
canary_check() { # RD
	local rd=$1 rc=0
	[ -n "$DRAM_CANARY" ] || return 0
	canary_holds "$rd" "after the cut" || rc=$?
	[ "$rc" != 2 ] || return 1
	if [ "$rc" = 0 ]; then
		echo "the server's memory kept the token written to $DRAM_CANARY before the cut: the power did" \
			"not go (a reset, not a power cut), or $DRAM_CANARY is no volatile memory" >"$rd/error"
		return 1
	fi
	echo "after the cut: $DRAM_CANARY lost the round's token" | tee -a "$rd/canary.log" >"$rd/power-lost"
}

# ---- --canary-reset: can the canary fail? ----
# Once before the rounds: a token written to the canary must survive a reset that
# keeps RAM. Where it does not, the firmware or a kernel clears the canary at boot,
# a reset would lose the token as a power cut does, and the canary proves nothing.
# OUT/canary-control/kept, or the reason in OUT/canary-control/error.
canary_control() {
	local cd=$OUT/canary-control id0 rc=0
	[ -n "$CANARY_RESET" ] || return 0
	mkdir -p "$cd"
	CANARY=control-$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
	id0=$(boot_id)
	[ -n "$id0" ] || { echo "the server's boot id could not be read before the reset" >"$cd/error"; return 1; }
	canary_set "$cd" || return 1
	echo "$PROG: the canary's control: $DRAM_CANARY holds a token, which --canary-reset must keep" >&2
	sh -c "$CANARY_RESET" >"$cd/reset.log" 2>&1 || rc=$?
	# Its status proves little: `ssh HOST reboot` often ends with 255 as the reboot
	# drops the connection. The new boot id decides; only a command that could not
	# run at all (126, 127) ends the control at once.
	echo "(--canary-reset: status $rc)" >>"$cd/reset.log"
	case $rc in 126 | 127)
		echo "--canary-reset could not be run (status $rc): reset.log" >"$cd/error"
		return 1 ;;
	esac
	if ! wait_up "$id0" >"$cd/wait-up.log" 2>&1; then
		echo "the server was not back within ${WAIT_UP_TIMEOUT}s of --canary-reset (status $rc; wait-up.log)" \
			>"$cd/error"
		return 1
	fi
	booted_again "$id0" "$cd" "--canary-reset (status $rc) reset nothing" || return 1
	rc=0
	canary_holds "$cd" "after --canary-reset" || rc=$?
	[ "$rc" != 2 ] || return 1
	if [ "$rc" = 1 ]; then
		echo "$DRAM_CANARY lost its token in a reset (--canary-reset): the server's firmware or kernel" \
			"clears it at boot, so on this platform its loss cannot tell a power cut from a reset;" \
			"no round was run" >"$cd/error"
		return 1
	fi
	echo "a reset kept the token in $DRAM_CANARY" | tee -a "$cd/canary.log" >"$cd/kept"
	echo "$PROG: the canary's control: the reset kept it; a round's cut must not" >&2
}

# Has the server booted since BOOT_ID? (else RD/error says so, and WHY it matters)
booted_again() { # BOOT_ID RD WHY
	local id1
	id1=$(boot_id)
	[ -z "$id1" ] || [ "$id1" = "$1" ] || return 0
	echo "the server did not boot again (boot id '$1' -> '$id1'): $3" >"$2/error"
	return 1
}

# --wait-up's command, or by default until the server answers over ssh with a boot id
# other than BOOT_ID (right after a cut the old system may still answer for a moment);
# with no BOOT_ID (a failed round's recovery), until it answers at all
wait_up() { # BOOT_ID
	if [ -n "$WAIT_UP" ]; then
		timeout "$WAIT_UP_TIMEOUT" sh -c "$WAIT_UP"
		return
	fi
	local deadline=$((SECONDS + WAIT_UP_TIMEOUT)) id
	while :; do
		id=$(boot_id)
		if [ -n "$id" ] && { [ -z "$1" ] || [ "$id" != "$1" ]; }; then return 0; fi
		[ "$SECONDS" -lt "$deadline" ] || { echo "no new boot of $SSH_HOST within ${WAIT_UP_TIMEOUT}s"; return 1; }
		sleep 5
	done
}

# the client's fio over every method in the background (MATRIX_CPID): the round's seed
# and pattern (in the job files: fio lets no command-line option override what a job
# file sets), the verify state each job saves as it ends in AUX
client_start() { # AUX OUT_JSON LOG FIO_OPTIONS...
	local aux=$1 out=$2 log=$3
	shift 3
	job_files client
	common_vars "$PORT_BASE"
	mkdir -p "$aux"
	env "${VARS[@]}" timeout $((WRITE_TIME + 600)) fio "${JOB_FILES[@]}" "${SECTIONS[@]}" --aux-path="$aux" \
		--output-format=json --output="$out" "$@" >"$log" 2>&1 &
	MATRIX_CPID=$!
}

# its status, once it ended
client_wait() {
	local rc=0
	wait "$MATRIX_CPID" || rc=$?
	MATRIX_CPID=
	return "$rc"
}

client() { # AUX OUT_JSON LOG FIO_OPTIONS...
	client_start "$@"
	client_wait
}

# Has the client's fio ended within SECS? (every half second)
client_ends_within() { # SECS
	local deadline=$((SECONDS + $1))
	while kill -0 "$MATRIX_CPID" 2>/dev/null; do
		[ "$SECONDS" -lt "$deadline" ] || return 1
		sleep 0.5
	done
}

# the client's fio asked to end (fio ends its jobs on SIGINT and still writes its logs),
# killed 30 s later; WHY in RD/write-end.log
client_interrupt() { # RD WHY
	echo "$2: interrupted" >>"$1/write-end.log"
	kill -INT "$MATRIX_CPID" 2>/dev/null || true
	client_ends_within 30 && return 0
	echo "... and killed 30 s later: its logs are lost" >>"$1/write-end.log"
	kill -KILL "$MATRIX_CPID" 2>/dev/null || true
}

# the counters of this host's RDMA ports (the client's RNIC): DEVICE/ports/PORT/DIR/NAME
# VALUE a line; a round's folder keeps them from before its writes and from the cut
# (durability.py reports the retries and sequence errors among them). No process a
# file: the one before the cut must not delay it (a fork costs ~50 ms under TCG)
rnic_counters() {
	local f v
	for f in /sys/class/infiniband/*/ports/*/hw_counters/* /sys/class/infiniband/*/ports/*/counters/*; do
		if [ -f "$f" ] && read -r v 2>/dev/null <"$f" && [[ $v =~ ^[0-9]+$ ]]; then
			echo "${f#/sys/class/infiniband/} $v"
		fi
	done
}

# after the cut the client's writes fail and its jobs end (their RDMA retries run out)
client_end_after_cut() { # RD
	client_ends_within 120 || client_interrupt "$1" "the client's fio still ran 120 s after the power cut"
}

# A round's writes, the power cut while they go on, the server back. Returns non-zero
# (its reason in RD/error) when the round cannot say anything about durability.
write_and_cut() { # RD
	local rd=$1 id0 rc=0
	# without the boot id from before the cut, no reboot can be seen after it
	id0=$(boot_id)
	[ -n "$id0" ] || { echo "the server's boot id could not be read before the cut: no reboot could be seen" \
		>"$rd/error"; return 1; }
	canary_set "$rd" || return 1
	start_servers "$rd/server.log" || { echo "the servers did not listen (server.log)" >"$rd/error"; return 1; }
	step "$R" "writing for ${WRITE_TIME}s at $R_RATE IOPS a method, then the power cut while they write" eta
	# every write fio saw complete, a file per job (write_iops.N.log, the N-th job:
	# Unix milliseconds, 1, direction, size, offset): jobs sharing one --write_iolog
	# splice each other's lines, fio buffering each job's 8 KiB at a time
	rnic_counters >"$rd/rnic-before.txt"
	client_start "$rd" "$rd/write.json" "$rd/write.log" --write_iops_log="$rd/write" --log_offset=1 \
		--log_unix_epoch=1
	if client_ends_within "$WRITE_TIME"; then
		client_wait || rc=$?
		drop_servers
		echo "fio (status $rc) ended before the power cut: nothing was writing when it came (write.log)" \
			>"$rd/error"
		return 1
	fi
	# the cut from here, not as fio's --trigger: fio stops every job before it runs one,
	# and a write acknowledged before it is durable may become so in that pause
	# (when, by the clock of fio's logs: how long before it each method was last
	# acknowledged)
	local t0
	rnic_counters >"$rd/rnic-at-cut.txt"
	rc=0 t0=$(date +%s%3N)
	sh -c "$POWER_CUT" >"$rd/power-cut.log" 2>&1 || rc=$?
	echo "$t0 $(date +%s%3N)" >"$rd/power-cut.time"
	echo "$rc" >"$rd/power-cut.rc"
	if [ "$rc" != 0 ]; then
		client_interrupt "$rd" "the power cut failed"
		client_wait || true
		drop_servers
		echo "the power cut failed with status $rc: power-cut.log" >"$rd/error"
		return 1
	fi
	step "$R" "power cut; waiting for the client's writes to fail and the server to come back"
	# (the server boots while the client's RDMA retries run out)
	wait_up "$id0" >"$rd/wait-up.log" 2>&1 &
	WAIT_UP_PID=$!
	client_end_after_cut "$rd"
	client_wait || true
	drop_servers
	local up=0
	wait "$WAIT_UP_PID" || up=$?
	WAIT_UP_PID=
	if [ "$up" != 0 ]; then
		echo "the server was not back within ${WAIT_UP_TIMEOUT}s: wait-up.log" >"$rd/error"
		return 1
	fi
	booted_again "$id0" "$rd" "was its power cut?" || return 1
	canary_check "$rd" || return 1
	[ -z "$DRAM_CANARY" ] || step "$R" "back: its DRAM canary ($DRAM_CANARY) lost the round's token, the power went"
	if [ -n "$BEFORE_RESTART" ] && ! DURABILITY_ROUND=$R DURABILITY_ROUND_DIR=$rd \
			sh -c "$BEFORE_RESTART" >"$rd/before-restart.log" 2>&1; then
		echo "--before-restart failed: before-restart.log" >"$rd/error"
		return 1
	fi
}

# Read back every write the round issued (the same offsets, in the same order, as reads
# checked against the round's pattern, fio going on past a bad block; one job after the
# other, so that their lines of the I/O log do not mix), then judge which of them fio
# saw acknowledged (matrix judge-round: the jobs' write logs, their saved states and the
# read-back's I/O log).
# Leaves RD/result.tsv and RD/lost.tsv, or RD/error.
read_back() { # RD
	local rd=$1 rc=0 n
	n=$(python3 "$MATRIX" judge-round "$rd" --methods "$METHODS" --issued) || return 1
	start_servers "$rd/server-after.log" ||
		{ echo "the servers did not listen again after the power cut (server-after.log)" >"$rd/error"; return 1; }
	step "$R" "reading back the $n writes issued (at most) by a method"
	client "$rd/readback" "$rd/readback.json" "$rd/readback.log" --verify_only=1 --number_ios="$n" \
		--continue_on_error=verify --stonewall --write_iolog="$rd/readback.iolog" || rc=$?
	stop_server
	echo "$rc" >"$rd/readback.rc"
	python3 "$MATRIX" judge-round "$rd" --methods "$METHODS"
}

# round R's folder RD: its shape, seed and pattern (shape.tsv, and R_BS, R_QD, R_BATCH,
# R_RATE, SEED, PATTERN), from the run's options (durability_plan.py)
round_start() { # OPTIONS_JSON R RD
	local assignments
	mkdir -p "$3"
	assignments=$(python3 "$MATRIX" durability-round "$@") || return 1
	eval "$assignments"
}

step() { # ROUND TEXT [eta]
	local eta=''
	[ "${3:-}" != eta ] || [ "$1" -le 1 ] || eta=", ETA $(fmt_secs $(((SECONDS - START) * (ROUNDS - $1 + 1) / ($1 - 1))))"
	printf '[round %d/%d] bs %s iodepth %s batch %s: %s%s\n' "$1" "$ROUNDS" "$R_BS" "$R_QD" "$R_BATCH" \
		"$2" "$eta" >&2
}

on_interrupt() {
	trap - INT TERM
	echo >&2
	echo "$PROG: interrupted: stopping the client and the servers, keeping the rounds done" >&2
	[ -z "${WAIT_UP_PID:-}" ] || kill "$WAIT_UP_PID" 2>/dev/null || true
	stop_client
	stop_server
	echo "partial (interrupted)" >"$OUT/status"
	[ "$IN_VM" = 1 ] || build_report
	exit 130
}

rounds() {
	local rd failed=0
	mkdir -p "$OUT/rounds"
	echo "partial (running)" >"$OUT/status"
	printf '%s\n' "$OPTIONS_JSON" >"$OUT/options.json"
	capture_env >"$OUT/env.json"
	trap on_interrupt INT TERM
	if ! canary_control; then
		trap - INT TERM
		echo "$PROG: the canary's control: $(cat "$OUT/canary-control/error" 2>/dev/null || echo failed)" >&2
		echo "partial (the DRAM canary's control failed: no round was run)" >"$OUT/status"
		return 0
	fi
	START=$SECONDS
	for ((R = 1; R <= ROUNDS; R++)); do
		rd=$OUT/rounds/r$R
		if ! { round_start "$OUT/options.json" "$R" "$rd" && write_and_cut "$rd" && read_back "$rd"; }; then
			failed=$((failed + 1))
			echo "  round $R: $(cat "$rd/error" 2>/dev/null || echo failed)" >&2
			stop_server
			# the next round needs the server up: wait for it if it is going down or up
			wait_up '' >/dev/null 2>&1 || true
		fi
	done
	trap - INT TERM
	if [ "$failed" -gt 0 ]; then
		echo "partial ($failed of $ROUNDS rounds could not be judged)" >"$OUT/status"
	else
		echo complete >"$OUT/status"
	fi
	echo "$PROG: $ROUNDS round(s) in $(fmt_secs $((SECONDS - START))), $failed could not be judged" >&2
}

build_report() {
	echo "$PROG: building the report" >&2
	python3 "$MATRIX" durability "$OUT" >/dev/null
	echo
	sed -n '/^## Verdicts/,/^## /p' "$OUT/report.md" | sed '1d;$d'
	echo "status: $(cat "$OUT/status")"
	echo "report: $OUT/report.html (and report.md, results.csv, lost.csv, rounds/)"
}

# ---- where ----

# two guests of the Soft-RoCE VM: this script again on node0, node1 the server
run_in_vm() {
	echo "$PROG: no RDMA device here: running in two guests of the Soft-RoCE VM (node1 the server)" >&2
	local vm_args=(-q --nodes 2 --pmem --timeout $((ROUNDS * (WRITE_TIME + 400) + 600))) dest=$OUT stage=''
	if ! inside_project "$OUT"; then
		stage=$ROOT/build/durability/.staging-$(date +%Y%m%d-%H%M%S)-$$
		OUT=$stage
	fi
	[ -z "$VM_KERNEL" ] || vm_args+=(--kernel "$VM_KERNEL")
	mkdir -p "$OUT" "$dest"
	local status=0
	trap 'echo "$PROG: interrupted: the VM is being torn down" >&2' INT TERM
	"$ROOT/scripts/softroce-vm" run "${vm_args[@]}" -- env RPMA_FIO_RDMA_CORE="$RDMA_CORE_PREFIX" \
		"$ROOT/scripts/run_durability.sh" "${ORIG_ARGS[@]}" --in-vm --out "$OUT" || status=$?
	trap - INT TERM
	[ -e "$OUT/status" ] || echo "partial (the VM run failed with status $status)" >"$OUT/status"
	# Ctrl-C tore the VM down in the middle of a round: say so, not "running"
	[ "$status" -ne 130 ] || echo "partial (interrupted)" >"$OUT/status"
	if [ -n "$stage" ]; then
		cp -a "$stage/." "$dest/" || die "cannot move the results from $stage to $dest: they stay in $stage"
		rm -rf "$stage"
		OUT=$dest
	fi
	[ ! -e "$OUT/options.json" ] || build_report
	[ "$status" -eq 0 ] || [ "$status" -eq 1 ] || return "$status"
	exit_status
}

main() {
	ORIG_ARGS=("$@")
	cd "$ROOT"
	settings "$@"
	if [ "$NATIVE" = 1 ] && [ -z "$RDMA_CORE_PREFIX" ]; then
		RDMA_CORE_PREFIX=$("$ROOT/scripts/rdma_core.sh") || die "--native: scripts/rdma_core.sh failed"
	fi
	if [ "$IN_VM" = 0 ] && [ -z "$SSH_HOST" ]; then
		compgen -G '/sys/class/infiniband/*' >/dev/null &&
			die "this machine has an RDMA device: name the server with --server HOST (its power is cut)"
		run_in_vm
		return
	fi
	if [ "$IN_VM" = 0 ]; then
		ssh -n -o BatchMode=yes -o ConnectTimeout=10 "$SSH_HOST" true ||
			die "cannot ssh to '$SSH_HOST' without a password (key-based, BatchMode=yes)"
	fi
	mkdir -p "$OUT"
	rounds
	[ "$IN_VM" = 1 ] || build_report
	exit_status
}

# 0: every acknowledged write survived; 1: a method lost some; 3: something could not
# be judged (durability_status.py)
exit_status() {
	python3 "$MATRIX" durability-status "$OUT"
}

# (sourced by tests/matrix/test_durability.sh: the functions only)
[ "${BASH_SOURCE[0]}" != "$0" ] || main "$@"
