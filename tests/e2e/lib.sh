# shellcheck shell=bash
# tests/e2e/lib.sh -- helpers for end-to-end tests run inside the Soft-RoCE VM.
# Sourced by the suites; they then say e2e_in_vm (RPMA_TEST_ADDR: the guest's rxe
# address). The e2e suites' one library; the fault, multinode and native suites build
# on it too.
#
# In the commands given to the runners below:
#   @READY@  the file the server creates once it listens (put it in the server's command)
#   @PORT@   a port of this test's own (a fresh one for each test)
#   @ID@     (e2e_many only) the client's number, 1..COUNT

E2E_PASSED=0
E2E_FAILED=0
E2E_FAILED_NAMES=()
# E2E_SERVER_HOST=NODE (tests/multinode): every server runs on NODE over ssh, in
# this folder (the same path there); E2E_TMP_BASE then names a folder both hosts
# see (the shared project folder), for the servers' ready files.
E2E_SERVER_HOST=${E2E_SERVER_HOST:-}
E2E_TMP=$(mktemp -d "${E2E_TMP_BASE:-/tmp}/rpma-e2e.XXXXXX")
E2E_PORT=${E2E_PORT:-7300}
E2E_STEP_TIMEOUT=${E2E_STEP_TIMEOUT:-60}
E2E_READY_TIMEOUT=${E2E_READY_TIMEOUT:-40}
# every result also goes to a table per kernel (name, PASS|FAIL, seconds): what
# tests/checks/docs/check_claims.py holds docs/reliability.md's claims against
E2E_RESULTS=${E2E_RESULTS:-build/e2e-results/$(uname -r).tsv}
# (absolute: a suite may cd elsewhere, e.g. to run an installed command line)
E2E_RESULTS=$(realpath -m "$E2E_RESULTS")
mkdir -p "$(dirname "$E2E_RESULTS")" 2>/dev/null
# E2E_VERBOSE=1: show the output of passing tests too

# The fio the suites start as `fio`: build/fio-lean (Debian's fio source and version,
# built with 10 libraries instead of 64: 0.4-0.7 s less per start under TCG,
# mk/fio_lean.mk). E2E_FIO=system keeps Debian's /usr/bin/fio: the suites that test
# that binary itself (install.sh, fio_versions.sh, smoke.sh) set it before sourcing.
# A server started over ssh on another node (E2E_SERVER_HOST) runs Debian's.
E2E_FIO=${E2E_FIO:-lean}
# Debian's fio, for what the lean one lacks: the engines that read device DAX memory
# back (dev-dax, libpmem: linked to libpmem) and libaio
E2E_DEBIAN_FIO=${E2E_DEBIAN_FIO:-$(command -v fio)}
case $E2E_FIO in
lean)
	[ -x build/fio-lean ] || { echo "tests/e2e/lib.sh: build/fio-lean is missing: make fio-lean" >&2; exit 1; }
	mkdir -p "$E2E_TMP/bin" && ln -sf "$PWD/build/fio-lean" "$E2E_TMP/bin/fio" &&
		PATH=$E2E_TMP/bin:$PATH ;;
system) ;;
*) echo "tests/e2e/lib.sh: E2E_FIO is '$E2E_FIO', not lean or system" >&2; exit 1 ;;
esac

# waiting without a process a poll: nap, wait_deadline, wait_past, wait_file and
# wait_line (scripts/lib/wait.sh); the suites' names for the last two
# shellcheck source=scripts/lib/wait.sh
. scripts/lib/wait.sh
e2e_wait_file() { wait_file "$@"; } # FILE SECONDS [PID]
e2e_wait_line() { wait_line "$@"; } # FILE REGEX SECONDS [PID]

# e2e_in_vm [RUN_OPTION...]: the suites' preamble. Inside the Soft-RoCE VM (scripts/
# softroce-vm sets RPMA_TEST_ADDR, the guest's rxe address) it sets A to that address;
# elsewhere it says how to run the suite (RUN_OPTIONs: the options of softroce-vm run
# it needs, e.g. --pmem) and exits 1.
# shellcheck disable=SC2120 # (most suites need no RUN_OPTION)
e2e_in_vm() {
	local options="$*"
	if [ -z "${RPMA_TEST_ADDR:-}" ]; then
		echo "$0: RPMA_TEST_ADDR: run me inside the Soft-RoCE VM (scripts/softroce-vm run ${options:+$options }-- ...)" >&2
		rm -rf "$E2E_TMP"
		exit 1
	fi
	# shellcheck disable=SC2034 # (the suites')
	A=$RPMA_TEST_ADDR
}

# Wait for pid $1 at most $2 seconds (of the clock); 0 if it has ended (not
# reaped), 1 if it still runs.
ended_within() {
	local deadline
	wait_deadline "$2"
	deadline=$WAIT_DEADLINE
	while kill -0 "$1" 2>/dev/null; do
		wait_past "$deadline" && return 1
		nap 0.1
	done
}

# Wait for pid $1 at most $2 seconds; its exit status, or 124 after killing it
# (SIGTERM, and SIGKILL 5 s later)
wait_bounded() {
	local pid=$1 rc=0
	if ! ended_within "$pid" "$2"; then
		kill -TERM "$pid" 2>/dev/null
		ended_within "$pid" 5 || kill -KILL "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
		return 124
	fi
	wait "$pid" || rc=$?
	return "$rc"
}

# The CM ID of a connection to port $1 of address $2, on the host of that address
# (rdma's CM resources): its line, empty when there is none (yet).
e2e_server_cm_id() { # PORT ADDR
	local out line
	out=$(rdma resource show cm_id 2>/dev/null)
	while IFS= read -r line; do
		[[ $line == *"state CONNECT "*"src-addr $2:$1 "* ]] && { echo "$line"; return 0; }
	done <<<"$out"
	return 0
}

# Does an RDMA CM ID listen on port $1 on this host? (one process: rdma's)
e2e_listening() { # PORT
	local out
	out=$(rdma resource show cm_id 2>/dev/null)
	[[ $out =~ state\ LISTEN\ [^$'\n']*:$1([^0-9]|$) ]]
}

# Wait until a connection to port $1 of address $2 is established, at most $3
# seconds: sooner than a fixed sleep, and no sooner than the connection.
e2e_wait_connected() { # PORT ADDR LIMIT
	local deadline
	wait_deadline "$3"
	deadline=$WAIT_DEADLINE
	until [ -n "$(e2e_server_cm_id "$1" "$2")" ]; do
		wait_past "$deadline" && return 1
		nap 0.1
	done
}

# Wait until a connection to port $1 of address $2 is accepted and I/O flows over it,
# at most $3 seconds: the server's queue pair (its CM ID's, on this host) is ready to
# send (RTS: accepted) and has received 50 packets more than when it was first seen so
# (a dozen I/Os). Its own counter: lanes side by side do not mislead it.
e2e_wait_io() { # PORT ADDR LIMIT
	local qpn='' psn psn0='' id qps deadline
	wait_deadline "$3"
	deadline=$WAIT_DEADLINE
	until wait_past "$deadline"; do
		if [ -z "$qpn" ]; then
			id=$(e2e_server_cm_id "$1" "$2")
			[[ $id =~ \ lqpn\ ([0-9]+)\  ]] && qpn=${BASH_REMATCH[1]}
		fi
		if [ -n "$qpn" ]; then
			qps=$(rdma resource show qp 2>/dev/null)
			if [[ $qps =~ \ lqpn\ $qpn\ [^$'\n']*\ state\ RTS\ rq-psn\ ([0-9]+)\  ]]; then
				psn=${BASH_REMATCH[1]}
				[ -n "$psn0" ] || psn0=$psn
				((((psn - psn0) & 0xffffff) >= 50)) && return 0 # (24-bit sequence numbers)
			fi
		fi
		nap 0.1
	done
	return 1
}

# Lanes of one suite that run side by side share a few things (a fixed port, the
# device DAX, a file): each lane holds the lock named NAME while it uses them.
e2e_lock() { # NAME
	exec {E2E_LOCK_FD}>"/tmp/rpma-e2e-$1.lock"
	flock "$E2E_LOCK_FD"
}

e2e_unlock() {
	flock -u "$E2E_LOCK_FD"
	exec {E2E_LOCK_FD}>&-
}

# E2E_ONLY=REGEX: run only the tests whose name (without E2E_NAME_PREFIX) matches
e2e_wanted() {
	[[ $1 =~ ${E2E_ONLY:-.} ]]
}

# (each result says how long since the previous one: where a suite's time goes)
E2E_LAST_RESULT=$EPOCHREALTIME

e2e_result() {
	local name=${E2E_NAME_PREFIX:-}$1 status=$2 took
	took=$(awk -v a="$E2E_LAST_RESULT" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
	E2E_LAST_RESULT=$EPOCHREALTIME
	if [ "$status" -eq 0 ]; then
		E2E_PASSED=$((E2E_PASSED + 1))
		echo "PASS $name (${took} s)"
	else
		E2E_FAILED=$((E2E_FAILED + 1))
		E2E_FAILED_NAMES+=("$name")
		echo "FAIL $name (${took} s)"
	fi
	printf '%s\t%s\t%s\n' "$name" "$([ "$status" -eq 0 ] && echo PASS || echo FAIL)" "$took" \
		>>"$E2E_RESULTS" 2>/dev/null || true
}

# Split "SERVER... -- CLIENT..." into E2E_SERVER and E2E_CLIENT with @READY@ and
# @PORT@ replaced, and make the test's directory E2E_DIR. Sets E2E_READY.
e2e_setup() {
	local name=$1
	shift
	E2E_PORT=$((E2E_PORT + 1))
	E2E_DIR="$E2E_TMP/$name"
	E2E_READY="$E2E_DIR/ready"
	mkdir -p "$E2E_DIR"
	E2E_SERVER=()
	E2E_CLIENT=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		E2E_SERVER+=("$1")
		shift
	done
	shift
	E2E_CLIENT=("$@")
	E2E_SERVER=("${E2E_SERVER[@]//@READY@/$E2E_READY}")
	E2E_SERVER=("${E2E_SERVER[@]//@PORT@/$E2E_PORT}")
	E2E_CLIENT=("${E2E_CLIENT[@]//@PORT@/$E2E_PORT}")
}

# Run E2E_SERVER under the step timeout (--no-timeout: without), here or on
# E2E_SERVER_HOST. There, its pid goes to E2E_DIR/server.pid (for
# e2e_kill_server) and its exit status comes back as ssh's.
e2e_run_server() { # [--no-timeout]
	local time_limit=(timeout "$E2E_STEP_TIMEOUT")
	[ "${1:-}" != --no-timeout ] || time_limit=()
	local run=()
	# started as a background job (a subshell): become the command, so that the job's
	# pid is the server's (e2e_kill kills it by that pid)
	[ "$BASHPID" = "$$" ] || run=(exec)
	if [ -z "$E2E_SERVER_HOST" ]; then
		"${run[@]}" "${time_limit[@]}" "${E2E_SERVER[@]}"
		return
	fi
	"${run[@]}" ssh -n "$E2E_SERVER_HOST" "cd $(printf '%q' "$PWD") && . /etc/softroce-vm.env &&
		{ $(printf '%q ' "${time_limit[@]}" "${E2E_SERVER[@]}") & echo \$! >$(printf '%q' "$E2E_DIR/server.pid"); wait \$!; }"
}

# SIGKILL the server started by e2e_run_server as process PID (here: PID itself).
e2e_kill_server() { # PID
	if [ -z "$E2E_SERVER_HOST" ]; then
		kill -KILL "$1" 2>/dev/null
		return
	fi
	ssh -n "$E2E_SERVER_HOST" "kill -KILL \$(cat $(printf '%q' "$E2E_DIR/server.pid"))" >>"$E2E_DIR/why" 2>&1
}

# Start the server (under timeout) and wait until it listens. Sets E2E_SPID.
e2e_start_server() {
	e2e_run_server >"$E2E_DIR/server.log" 2>&1 &
	E2E_SPID=$!
	if ! e2e_wait_file "$E2E_READY" "$E2E_READY_TIMEOUT" "$E2E_SPID"; then
		echo "  server did not start listening (it exited, or not within $E2E_READY_TIMEOUT s)" >>"$E2E_DIR/why"
		return 1
	fi
}

# Print the logs of a failed test.
e2e_show_logs() {
	[ -f "$E2E_DIR/why" ] && cat "$E2E_DIR/why"
	echo "  --- server (${E2E_SERVER[*]}):"
	sed 's/^/  | /' "$E2E_DIR/server.log"
	local log
	for log in "$E2E_DIR"/client*.log; do
		[ -e "$log" ] || continue
		echo "  --- $(basename "$log" .log):"
		sed 's/^/  | /' "$log"
	done
}

# Show the logs of a failed test, or of every test with E2E_VERBOSE=1.
e2e_show_logs_if() {
	if [ "$1" -ne 0 ] || [ "${E2E_VERBOSE:-0}" = 1 ]; then
		e2e_show_logs
	fi
}

# Check that every client log matches regex $1 (empty: no check).
e2e_check_clients() {
	local expect=$1 log
	[ -n "$expect" ] || return 0
	for log in "$E2E_DIR"/client*.log; do
		if ! grep -Eq "$expect" "$log"; then
			echo "  $(basename "$log" .log) output does not match /$expect/" >>"$E2E_DIR/why"
			return 1
		fi
	done
}

# e2e_pair NAME EXPECT_REGEX SERVER_CMD... -- CLIENT_CMD...
# Runs the server, waits for it to listen, runs the client, and checks both exit 0
# and the client's output matches EXPECT_REGEX (empty: no check). Every step is
# under a timeout.
e2e_pair() {
	e2e_wanted "$1" || return 0
	local name=$1 expect=$2 status=0
	shift 2
	e2e_setup "$name" "$@"
	if e2e_start_server; then
		timeout "$E2E_STEP_TIMEOUT" "${E2E_CLIENT[@]}" >"$E2E_DIR/client.log" 2>&1 || status=$?
	else
		status=1
	fi
	wait "$E2E_SPID" || status=$((status ? status : $?))
	[ "$status" -eq 0 ] && { e2e_check_clients "$expect" || status=1; }
	e2e_result "$name" "$status"
	e2e_show_logs_if "$status"
	return 0
}

# e2e_many NAME EXPECT_REGEX COUNT SERVER_CMD... -- CLIENT_CMD...
# Like e2e_pair, with COUNT clients started at once; @ID@ in the client's command
# is its number (1..COUNT). Every client must exit 0 and match EXPECT_REGEX.
e2e_many() {
	e2e_wanted "$1" || return 0
	local name=$1 expect=$2 count=$3 status=0 i
	shift 3
	e2e_setup "$name" "$@"
	local cpids=()
	if e2e_start_server; then
		for i in $(seq 1 "$count"); do
			timeout "$E2E_STEP_TIMEOUT" "${E2E_CLIENT[@]//@ID@/$i}" \
				>"$E2E_DIR/client$i.log" 2>&1 &
			cpids+=($!)
		done
		for i in "${!cpids[@]}"; do
			wait "${cpids[$i]}" || { status=$?; echo "  client$((i + 1)) exited with $status" >>"$E2E_DIR/why"; }
		done
	else
		status=1
	fi
	wait "$E2E_SPID" || status=$((status ? status : $?))
	[ "$status" -eq 0 ] && { e2e_check_clients "$expect" || status=1; }
	e2e_result "$name" "$status"
	e2e_show_logs_if "$status"
	return 0
}

e2e_kill_victim() { # server|client PID
	if [ "$1" = server ]; then
		e2e_kill_server "$2"
	else
		kill -KILL "$2" 2>/dev/null
	fi
}

# e2e_kill NAME VICTIM(server|client) TRIGGER_REGEX EXPECT_REGEX SERVER_CMD... -- CLIENT_CMD...
# Runs server and client; once the server's output matches TRIGGER_REGEX, kills
# VICTIM with SIGKILL. The victim must die of it (status 137: it was still
# running); the survivor must exit 0 and its output match EXPECT_REGEX. The
# victim runs without `timeout` (so that it is the process killed): it must
# bound its own run time; it is killed at the end in any case.
e2e_kill() {
	e2e_wanted "$1" || return 0
	local name=$1 victim=$2 trigger=$3 expect=$4 status=0 vstatus=0
	shift 4
	e2e_setup "$name" "$@"
	local spid cpid vpid survivor_pid survivor_log
	if [ "$victim" = server ]; then
		e2e_run_server --no-timeout >"$E2E_DIR/server.log" 2>&1 &
		spid=$!
	else
		e2e_run_server >"$E2E_DIR/server.log" 2>&1 &
		spid=$!
	fi
	if ! e2e_wait_file "$E2E_READY" "$E2E_READY_TIMEOUT" "$spid"; then
		echo "  server did not start listening (it exited, or not within $E2E_READY_TIMEOUT s)" >>"$E2E_DIR/why"
		e2e_kill_victim server "$spid"
		kill -KILL "$spid" 2>/dev/null
		wait "$spid"
		e2e_result "$name" 1
		e2e_show_logs_if 1
		return 0
	fi
	if [ "$victim" = client ]; then
		"${E2E_CLIENT[@]}" >"$E2E_DIR/client.log" 2>&1 &
		cpid=$!
		vpid=$cpid survivor_pid=$spid survivor_log=$E2E_DIR/server.log
	else
		timeout "$E2E_STEP_TIMEOUT" "${E2E_CLIENT[@]}" >"$E2E_DIR/client.log" 2>&1 &
		cpid=$!
		vpid=$spid survivor_pid=$cpid survivor_log=$E2E_DIR/client.log
	fi
	if e2e_wait_line "$E2E_DIR/server.log" "$trigger" "$E2E_STEP_TIMEOUT"; then
		e2e_kill_victim "$victim" "$vpid"
		echo "  killed the $victim (pid $vpid) with SIGKILL" >>"$E2E_DIR/why"
	else
		echo "  the server never said /$trigger/" >>"$E2E_DIR/why"
		e2e_kill_victim "$victim" "$vpid"
		status=1
	fi
	# (quietly: the shell would report the kill on stderr)
	wait "$vpid" 2>/dev/null || vstatus=$?
	if [ "$vstatus" -ne 137 ]; then
		echo "  the $victim exited with $vstatus before it was killed" >>"$E2E_DIR/why"
		status=1
	fi
	local sstatus=0
	wait "$survivor_pid" || sstatus=$?
	if [ "$sstatus" -ne 0 ]; then
		echo "  the survivor exited with $sstatus" >>"$E2E_DIR/why"
		status=1
	elif ! grep -Eq "$expect" "$survivor_log"; then
		echo "  the survivor's output does not match /$expect/" >>"$E2E_DIR/why"
		status=1
	fi
	e2e_result "$name" "$status"
	e2e_show_logs_if "$status"
	return 0
}

# e2e_fails NAME EXPECT_REGEX SERVER_CMD...
# The server must fail on its own: exit non-zero (not by the timeout) before it
# listens, and say why in output matching EXPECT_REGEX.
e2e_fails() {
	e2e_wanted "$1" || return 0
	local name=$1 expect=$2 status=0 rc=0
	shift 2
	e2e_setup "$name" "$@" --
	e2e_run_server >"$E2E_DIR/server.log" 2>&1 || rc=$?
	if [ "$rc" -eq 0 ] || [ "$rc" -eq 124 ]; then
		echo "  the server exited with $rc; it should have failed by itself" >>"$E2E_DIR/why"
		status=1
	elif [ -e "$E2E_READY" ]; then
		echo "  the server started listening; it should have failed before" >>"$E2E_DIR/why"
		status=1
	elif ! grep -Eq "$expect" "$E2E_DIR/server.log"; then
		echo "  the server's output does not match /$expect/" >>"$E2E_DIR/why"
		status=1
	fi
	e2e_result "$name" "$status"
	e2e_show_logs_if "$status"
	return 0
}

e2e_summary() {
	echo
	[ ${#E2E_FAILED_NAMES[@]} -gt 0 ] && echo "failed: ${E2E_FAILED_NAMES[*]}"
	echo "e2e: $E2E_PASSED passed, $E2E_FAILED failed"
	rm -rf "$E2E_TMP"
	[ "$E2E_FAILED" -eq 0 ] && [ "$E2E_PASSED" -gt 0 ]
}

# ---- for the engine suites (engines.sh, engines_gpspm.sh, engines_hub.sh): need the
# suite's METHOD, ENGINE and COMMON_VARS ----

# fio_perf DIR...: the client's IOPS and mean latencies (E2E_DIR/client.json, its first
# job) in each DIR: read, write, or readwrite (both)
fio_perf() {
	local dir
	for dir in "$@"; do
		[ "$dir" = readwrite ] && { fio_perf read write; continue; }
		jq -r ".jobs[0].$dir | \"  $dir: \\(.iops | floor) IOPS, clat mean \\(.clat_ns.mean / 1000 | . * 10 | floor / 10) us, lat mean \\(.lat_ns.mean / 1000 | . * 10 | floor / 10) us\"" \
			"$E2E_DIR/client.json"
	done
}

# Runs many tests against ONE server process and ONE client process of method
# $METHOD: every fio process costs seconds under TCG, a 1 s test's I/O does not.
#
#   fio_group NAME 'SERVER_VARS' 'TEST CHECK OPTION...'...
#
# Each test is a stonewalled section of a job file written here (jobs/client.inc,
# then the test's fio OPTIONs, e.g. rw=randwrite bs=64k sync=0 iodepth=8); the
# server runs one job per section (NUMJOBS = the number of tests; section i uses
# PORT + i; E2E_SECTIONS=REGEX keeps only the tests it matches). Each test passes
# when the client's JSON shows its section moved
# bytes in the directions of CHECK (read, write, readwrite) with no error; both
# processes must exit 0 and log no error.
fio_group() {
	local group=$1 svars=$2 status=0 n=0 spec words
	shift 2
	e2e_wanted "$METHOD-$group" || return 0
	# E2E_SECTIONS=REGEX: only the tests whose name matches
	local picked=()
	for spec in "$@"; do
		[[ ${spec%% *} =~ ${E2E_SECTIONS:-.} ]] && picked+=("$spec")
	done
	set -- "${picked[@]}"
	[ $# -gt 0 ] || return 0
	e2e_setup "$METHOD-$group" -- # (a folder and a port of its own)
	local jobfile=$E2E_DIR/client.fio json=$E2E_DIR/client.json port=$E2E_PORT
	printf '[global]\ninclude %s/jobs/client.inc\n' "$PWD" >"$jobfile"
	for spec in "$@"; do
		read -r -a words <<<"$spec"
		printf '\n[%s]\nstonewall\n' "${words[0]}" >>"$jobfile"
		printf '%s\n' "${words[@]:2}" >>"$jobfile"
		n=$((n + 1))
	done
	# shellcheck disable=SC2206 # the variable list is meant to be split
	E2E_SERVER=(env "${COMMON_VARS[@]}" PORT="$port" NUMJOBS="$n" SERVER_SIZE=16m $svars
		fio "jobs/$METHOD-server.fio")
	E2E_PORT=$((E2E_PORT + n))
	local limit=$((E2E_STEP_TIMEOUT + 8 * n))
	timeout "$limit" "${E2E_SERVER[@]}" >"$E2E_DIR/server.log" 2>&1 &
	local spid=$! rc=0
	if e2e_wait_line "$E2E_DIR/server.log" 'listening on' "$E2E_READY_TIMEOUT" "$spid"; then
		timeout "$limit" env "${COMMON_VARS[@]}" PORT="$port" \
			fio --ioengine=external:"$ENGINE" "$jobfile" --output-format=json --output="$json" \
			>"$E2E_DIR/client.log" 2>&1 || rc=$?
		[ "$rc" -eq 0 ] || { echo "  the client exited with $rc" >>"$E2E_DIR/why"; status=1; }
	else
		echo "  the server did not listen within $E2E_READY_TIMEOUT s" >>"$E2E_DIR/why"
		status=1
		kill "$spid" 2>/dev/null
	fi
	wait "$spid" || { echo "  the server exited with $?" >>"$E2E_DIR/why"; status=1; }
	if grep -q 'ERROR' "$E2E_DIR/client.log" "$E2E_DIR/server.log"; then
		echo "  an error was logged" >>"$E2E_DIR/why"
		status=1
	fi
	# one line per section: name error read-bytes write-bytes read-IOPS write-IOPS
	local figures
	figures=$(jq -r '.jobs[] | "\(.jobname) \(.error) \(.read.io_bytes) \(.write.io_bytes) \(.read.iops | floor) \(.write.iops | floor)"' \
		"$json" 2>/dev/null)
	local name check err rb wb ri wi ok
	for spec in "$@"; do
		read -r name check _ <<<"$spec"
		ok=$status
		read -r err rb wb ri wi <<<"$(awk -v n="$name" '$1 == n { $1 = ""; print }' <<<"$figures")"
		[ "${err:-x}" = 0 ] || ok=1
		case $check in read | readwrite) [ "${rb:-0}" -gt 0 ] || ok=1 ;; esac
		case $check in write | readwrite) [ "${wb:-0}" -gt 0 ] || ok=1 ;; esac
		[ "$ok" -eq 0 ] || echo "  section $name: error ${err:-none}, read ${rb:-?} B, written ${wb:-?} B" >>"$E2E_DIR/why"
		e2e_result "$METHOD-$name" "$ok"
		[ "$ok" -eq 0 ] && echo "  read $ri IOPS, write $wi IOPS"
	done
	[ -s "$E2E_DIR/why" ] && { e2e_show_logs; sed 's/^/  | /' "$jobfile"; }
	return 0
}

# ---- for the GPSPM suites (engines_gpspm.sh, engines_hub.sh): a test's folder and
# ports, and its server (of the suite's ENGINE, with its COMMON_VARS) ----

# GPSPM_ONLY=REGEX (engines_gpspm.sh, engines_hub.sh) runs only the tests whose name
# matches (e.g. GPSPM_ONLY=hostile)
gp_want() {
	[[ $1 =~ ${GPSPM_ONLY:-.} ]]
}

# gp_new_test NAME: the test's folder (E2E_DIR) and four ports of its own (E2E_PORT..+3)
gp_new_test() {
	E2E_PORT=$((E2E_PORT + 4))
	E2E_DIR="$E2E_TMP/$1"
	mkdir -p "$E2E_DIR"
	E2E_SERVER=("(server: jobs/gpspm-server.fio)")
}

# Start a GPSPM server (jobs/gpspm-server.fio with COMMON_VARS, PORT and the
# variables in $1, then fio options in $2...) and wait until it listens. Sets GP_SPID.
# The job file's ioengine= wins over fio's --ioengine (which the engine's options
# among $2... need): a copy of the file names $ENGINE too (a control run of another
# build must run that build's server).
gp_start_server() {
	local svars=$1
	shift
	sed "s|^ioengine=.*|ioengine=external:$ENGINE|" jobs/gpspm-server.fio \
		>"$E2E_DIR/gpspm-server.fio"
	# shellcheck disable=SC2086 # the variable list is meant to be split
	timeout "$E2E_STEP_TIMEOUT" env "${COMMON_VARS[@]}" PORT="$E2E_PORT" $svars \
		fio --ioengine=external:"$ENGINE" "$@" "$E2E_DIR/gpspm-server.fio" \
		>"$E2E_DIR/server.log" 2>&1 &
	GP_SPID=$!
	if ! e2e_wait_line "$E2E_DIR/server.log" 'listening on' "$E2E_READY_TIMEOUT"; then
		echo "  the server did not listen within $E2E_READY_TIMEOUT s" >>"$E2E_DIR/why"
		kill "$GP_SPID" 2>/dev/null
		wait "$GP_SPID" 2>/dev/null
		return 1
	fi
}
