#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# tests/matrix/test_bad_options.sh -- every option of scripts/run_matrix.sh fed a bad
# value (the table tests/matrix/bad_options.txt): each must fail with exactly one line
# that holds the expected text, no Python traceback, and leave no result folder behind
# (nothing ran). One ok/FAIL line a row; exits 1 when a row fails.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TABLE=$ROOT/tests/matrix/bad_options.txt
WORK=$ROOT/build/test-matrix/bad-options

# ARGS EXPECT N: row N of the table, into $WORK/row-N (ok or FAIL first)
check_row() {
	local words=$1 expect=$2 args out rc=0 why=''
	eval "args=($words)"
	# (a row whose check were missing would start a run: the timeout ends it, failing)
	out=$(timeout 60 "$ROOT/scripts/run_matrix.sh" "${args[@]}" 2>&1 </dev/null) || rc=$?
	if [ "$rc" -eq 0 ]; then why="succeeded"
	elif [ "$rc" -eq 124 ]; then why="ran on (timeout): the value was not checked first"
	elif grep -q Traceback <<<"$out"; then why="a Python traceback"
	elif [ "$(wc -l <<<"$out")" -ne 1 ]; then why="$(wc -l <<<"$out") lines, not one"
	elif ! grep -qF -- "$expect" <<<"$out"; then why="the line does not say: $expect"
	elif [ -n "$(find "$ROOT/build/matrix" -maxdepth 1 -newer "$WORK" 2>/dev/null)" ]; then
		why="a result folder was made"
	fi
	if [ -n "$why" ]; then
		printf 'FAIL %s: %s\n' "$words" "$why"
		head -n 6 <<<"$out" | sed 's/^/  | /'
	else
		printf 'ok   %s: %s\n' "$words" "$out"
	fi >"$WORK/row-$3"
}

rm -rf "$WORK"
mkdir -p "$WORK"
rows=0
# (two rows at a time: most of a row is python's start-up)
while IFS=$'\t' read -r words expect; do
	[[ -n $words && $words != \#* ]] || continue
	rows=$((rows + 1))
	[ "$(jobs -rp | wc -l)" -lt 2 ] || wait -n
	check_row "$words" "$expect" "$rows" &
done <"$TABLE"
wait
[ "$rows" -ge 40 ] || { echo "FAIL only $rows rows read from $TABLE"; exit 1; }
for ((n = 1; n <= rows; n++)); do cat "$WORK/row-$n"; done
failed=$(cat "$WORK"/row-* | grep -c '^FAIL' || true)
echo "bad options: $((rows - failed)) of $rows rows refused with one clear line"
[ "$failed" -eq 0 ]
