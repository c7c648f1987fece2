#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# tests/lib/wait_test.sh -- scripts/lib/wait.sh on the host (make test-wait):
# every suite in the VM and every bench starts its servers and judges its runs
# through these waits, so a wait that misses a line, or returns before its line
# came, makes them wrong in ways a passing run does not show. Only lower bounds
# of time are checked (a wait never gives up early); no upper ones.
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/lib/verdict.sh
. tests/lib/verdict.sh
# shellcheck source=scripts/lib/wait.sh
. scripts/lib/wait.sh
T=$(mktemp -d)

check() { # NAME COMMAND...: pass when COMMAND succeeds
	local name=$1
	shift
	if "$@"; then pass "$name"; else fail "$name"; fi
}

# the microseconds a command took -> TOOK; its status is the command's
timed() {
	local t0=${EPOCHREALTIME//[.,]/} rc=0
	"$@" || rc=$?
	TOOK=$((${EPOCHREALTIME//[.,]/} - t0))
	return "$rc"
}

# a line written in two parts, the second later: found once it is whole
printf 'starting\nlisten' >"$T/split.log"
(nap 0.3; printf 'ing on 10.0.0.1:7204\n' >>"$T/split.log") &
check "wait_line: a line written in two parts is found whole" \
	wait_line "$T/split.log" 'listening on [0-9.]+:7204$' 5
wait

# already there: found at once; anchors hold per line
printf 'not ready\nready\n' >"$T/anchored.log"
check "wait_line: a line already there, anchored to its start and end" \
	wait_line "$T/anchored.log" '^ready$' 5
printf 'not ready\n' >"$T/unanchored.log"
not_found() { ! wait_line "$@"; }
check "wait_line: an anchored pattern does not match inside a line" \
	not_found "$T/unanchored.log" '^ready$' 1

# the file appears later, its line after more lines
(nap 0.3; for i in $(seq 200); do echo "line $i"; done >"$T/late.log"; echo 'the end' >>"$T/late.log") &
check "wait_line: a file that appears later, its line after 200 others" \
	wait_line "$T/late.log" '^the end$' 5
wait

# never comes: fails, and not before its limit
echo 'nothing to see' >"$T/never.log"
if ! timed wait_line "$T/never.log" 'listening' 1 && ((TOOK >= 1000000)); then
	pass "wait_line: a line that never comes fails after the limit ($((TOOK / 1000)) ms)"
else
	fail "wait_line: a line that never comes" "took $((TOOK / 1000)) ms"
fi

# the process it waits for died: fails without waiting out the limit
sh -c 'exit 3' &
dead=$!
wait "$dead"
if ! timed wait_line "$T/never.log" 'listening' 30 "$dead" && ((TOOK < 30000000)); then
	pass "wait_line: a dead process ends the wait ($((TOOK / 1000)) ms)"
else
	fail "wait_line: a dead process ends the wait" "took $((TOOK / 1000)) ms"
fi

# wait_file: appears later; never
(nap 0.3; : >"$T/ready") &
check "wait_file: a file that appears later" wait_file "$T/ready" 5
wait
if ! timed wait_file "$T/absent" 1 && ((TOOK >= 1000000)); then
	pass "wait_file: a file that never comes fails after the limit ($((TOOK / 1000)) ms)"
else
	fail "wait_file: a file that never comes" "took $((TOOK / 1000)) ms"
fi

# nap sleeps at least as long as asked, in this process (no sleep(1) started)
if timed nap 0.2 && ((TOOK >= 200000)); then
	pass "nap 0.2 slept $((TOOK / 1000)) ms"
else
	fail "nap 0.2" "took $((TOOK / 1000)) ms"
fi

rm -rf "$T"
summary
