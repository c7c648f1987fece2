#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# tests/native/check_matrix.sh -- the matrix with the native build (make test-native-matrix):
# a --quick run (two points a method) of apm (flush emulated by a read), apm-native (the device's own RDMA
# FLUSH) and gpspm-busy in the 6.12 Soft-RoCE VM into build/matrix-native-ci. Checks that
# it completed, that every point has figures in results.csv and in the report, that the
# report describes apm-native, and -- from each run's client log -- that every apm-native
# flush completed as a native FLUSH and no apm flush did (run_matrix.sh fails such a run
# itself; this reads the logs again, with the same parser).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=$ROOT/build/matrix-native-ci
FAILED=0
fail() {
	echo "FAIL $*"
	FAILED=$((FAILED + 1))
}

# flush_counts: the parser of the APM client's closing note that run_matrix.sh uses
# shellcheck source=scripts/matrix/lib.sh
. "$ROOT/scripts/matrix/lib.sh"

cd "$ROOT"
rm -rf "$OUT"
status=0
# two points a method, a sync and a batched 4 KiB write (bandwidth and depth sweeps merged);
# no cost runs: make test-matrix-vm proves those, this the native FLUSH
scripts/run_matrix.sh --native --quick --methods apm,apm-native,gpspm-busy --rw write \
	--lat-bs 4k --bw-bs 4k --bw-qd 16 --qd 16 --no-costs --out "$OUT" || status=$?
[ "$status" -eq 0 ] || fail "run_matrix.sh --native exited with $status"
grep -qx complete "$OUT/status" 2>/dev/null || fail "status is '$(cat "$OUT/status" 2>/dev/null)', not complete"
[ -s "$OUT/plan.tsv" ] || fail "no plan.tsv in $OUT"

natives=0
# results.csv's IOPS column, by its name
iops_col=$(head -n1 "$OUT/results.csv" 2>/dev/null | tr , '\n' | grep -nx iops_median | cut -d: -f1)
[ -n "$iops_col" ] || fail "results.csv has no iops_median column"
while IFS=$'\t' read -r id _ method _ rw bs qd _ _; do
	[ "$id" != id ] || continue # the header
	row=$(grep "^$id," "$OUT/results.csv" 2>/dev/null || true)
	iops=$(cut -d, -f"${iops_col:-0}" <<<"$row" 2>/dev/null)
	if [ -z "$row" ] || [ -z "$iops" ]; then
		fail "point $id ($method $rw bs $bs iodepth $qd) has no figures"
	elif ! grep -Eq "^\| $id \| $method \| $rw \| " "$OUT/report.md"; then
		fail "point $id ($method) is not in the report's summary"
	fi
	for log in "$OUT"/runs/"$id"-r*.client.log; do
		[ -e "$log" ] || { fail "point $id: no client log"; continue; }
		counts=$(flush_counts "$log")
		f=${counts% *} k=${counts#* }
		case $method in
		apm-native)
			natives=$((natives + k))
			{ [ "$f" -gt 0 ] && [ "$k" -eq "$f" ]; } ||
				fail "point $id (apm-native): $k of $f flushes were native FLUSH" ;;
		apm)
			{ [ "$f" -gt 0 ] && [ "$k" -eq 0 ]; } ||
				fail "point $id (apm): $k of $f flushes were native FLUSH, none should be" ;;
		esac
	done
done <"$OUT/plan.tsv"
grep -qF -- "- \`apm-native\`: " "$OUT/report.md" 2>/dev/null || fail "the report does not describe apm-native"
echo "native FLUSHes counted over the apm-native runs: $natives"
[ "$FAILED" -gt 0 ] || echo "PASS native matrix: apm, apm-native and gpspm-busy measured and reported"
echo "native-matrix: $FAILED failed"
[ "$FAILED" -eq 0 ]
