# shellcheck shell=bash
# scripts/lib/wait.sh -- the one way to wait, for the benchmarks
# (scripts/matrix/bench_lib.sh) and the suites in the VM (tests/e2e/lib.sh): for a
# file, for a line in a log, or until a deadline, bounded by the clock and given up
# at once when the process waited for died.
#
# Polling costs no process: under TCG a fork and exec costs the guest 50-250 ms of
# CPU, taken from the programs under test (20 polls of `grep; sleep 0.1` took 7.0 s
# in the VM, of builtins 3.0 s).

# nap SECONDS: sleep in this process, a read that times out on a FIFO nobody writes
# (opened read-write when this file is sourced, its name removed at once; subshells
# share it: nothing ever arrives for any of them)
wait_open_nap() {
	local dir
	dir=$(mktemp -d "${TMPDIR:-/tmp}/nap.XXXXXX") || return 1
	mkfifo "$dir/fifo" && exec {WAIT_NAP_FD}<>"$dir/fifo"
	rm -rf "$dir"
}
nap() {
	if [ -n "${WAIT_NAP_FD:-}" ]; then
		read -r -t "$1" -u "$WAIT_NAP_FD" _ 2>/dev/null
	else
		sleep "$1" # (no FIFO could be made: a process a nap)
	fi
	return 0
}
wait_open_nap

# wait_deadline SECONDS: WAIT_DEADLINE, that far ahead on the clock (microseconds);
# wait_past DEADLINE: is the clock past it?
wait_deadline() {
	WAIT_DEADLINE=$((${EPOCHREALTIME//[.,]/} + $1 * 1000000))
}
wait_past() {
	[ "${EPOCHREALTIME//[.,]/}" -ge "$1" ]
}

# Wait until FILE exists, at most SECONDS, and only while process PID (if given)
# lives: a server that died before it got ready fails the wait at once.
wait_file() { # FILE SECONDS [PID]
	local file=$1 pid=${3:-} deadline
	wait_deadline "$2"
	deadline=$WAIT_DEADLINE
	until [ -e "$file" ]; do
		wait_past "$deadline" && return 1
		[ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null && return 1
		nap 0.1
	done
}

# Wait until FILE has a line matching the extended regex REGEX, as wait_file waits.
# Reads what the file gained since the last poll; a line not ended yet counts as it
# stands, as grep counts it.
wait_line() { # FILE REGEX SECONDS [PID]
	local file=$1 regex=$2 pid=${4:-} fd='' line partial='' found=1 deadline
	wait_deadline "$3"
	deadline=$WAIT_DEADLINE
	while :; do
		[ -z "$fd" ] && [ -e "$file" ] && exec {fd}<"$file"
		if [ -n "$fd" ]; then
			while IFS= read -r -u "$fd" line; do
				line=$partial$line partial=''
				[[ $line =~ $regex ]] && { found=0; break 2; }
			done
			partial+=$line
			[[ -n $partial && $partial =~ $regex ]] && { found=0; break; }
		fi
		wait_past "$deadline" && break
		[ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null && break
		nap 0.1
	done
	[ -n "$fd" ] && exec {fd}<&-
	return "$found"
}
