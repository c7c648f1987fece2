#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# tests/matrix/test_matrix.sh -- the matrix runner's report builder and compare,
# on fixture fio JSON and perftest output (host only, no RDMA): golden CSV rows,
# charts that exist and are not empty, the HTML report self-contained, missing
# and partial marked, and the noise flag of compare. Also the CLI's checks.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
HERE=$ROOT/tests/matrix
WORK=$ROOT/build/test-matrix
MATRIX_PY=$ROOT/scripts/matrix/matrix.py
PASSED=0 FAILED=0

check() {
	local name=$1
	shift
	if "$@" >"$WORK/check.log" 2>&1; then
		PASSED=$((PASSED + 1))
		echo "PASS $name"
	else
		FAILED=$((FAILED + 1))
		echo "FAIL $name"
		sed 's/^/  | /' "$WORK/check.log"
	fi
}

charts_exist() {
	local dir=$1 name ext
	for name in "${@:2}"; do
		for ext in png svg; do
			[ -s "$dir/charts/$name.$ext" ] || { echo "missing or empty: $dir/charts/$name.$ext"; return 1; }
		done
	done
	file "$dir/charts/${2}.png" | grep -q 'PNG image'
}

html_is_self_contained() {
	local html=$1
	grep -q '<svg' "$html" || { echo "no inline SVG in $html"; return 1; }
	# (gnuplot's SVG links to its own point symbols: '#gpPt0', inside the document)
	if grep -Eq "<img|src=|href=[\"'][^#]" "$html"; then echo "$html refers to other files"; return 1; fi
}

golden_rows() {
	diff -u "$HERE/golden/$1" "$2"
}

compare_flags() {
	# apm 4k iodepth 1: A 1000..1200, B 1150..1300 overlap -> noise;
	# apm 64k iodepth 16: A 300..320, B 400..420 -> a real difference
	grep -qx 'apm,write,4096,1,1,1,1100.000,1200.000,1.0909,0.9167,1' "$1" &&
		grep -qx 'apm,write,65536,16,0,1,310.000,410.000,1.3226,0.7561,0' "$1" &&
		grep -Eq '\| apm \| write \| 64k \| 16 \| 1 \| 310 \| 410 \| 1.32 .*\| B faster \|' "$2" &&
		grep -Eq '\| apm \| write \| 4k \| 1 \| 1 \| 1100 \| 1200 .*\| noise \|' "$2"
}

cli_fails_with() {
	local expect=$1 out
	shift
	if out=$("$ROOT/scripts/run_matrix.sh" "$@" 2>&1); then
		echo "run_matrix.sh $* succeeded; expected a failure"
		return 1
	fi
	grep -q -- "$expect" <<<"$out" || { echo "output: $out"; return 1; }
}

dry_run_counts() {
	local out
	out=$("$ROOT/scripts/run_matrix.sh" --quick --dry-run)
	grep -q '^25 points x 1 runs' <<<"$out" || { echo "$out"; return 1; }
	out=$("$ROOT/scripts/run_matrix.sh" --dry-run --methods apm --rw write --lat-bs 4k,64k \
		--bw-bs 64k --qd 1 --repeats 2)
	grep -q '^4 points x 2 runs' <<<"$out" || { echo "$out"; return 1; }
}

main() {
	rm -rf "$WORK"
	mkdir -p "$WORK"
	cp -r "$HERE/fixtures/a" "$HERE/fixtures/b" "$WORK/"
	check "build A" python3 "$MATRIX_PY" build "$WORK/a"
	check "golden CSV of A" golden_rows a.csv "$WORK/a/results.csv"
	check "charts of A" charts_exist "$WORK/a" lat_vs_bs_write iops_vs_bs_write bw_vs_bs_write \
		overhead_vs_noflush fraction_of_raw
	check "HTML of A self-contained" html_is_self_contained "$WORK/a/report.html"
	check "a point with no run marked missing" grep -Eq '^\| p006 .*\*\*missing\*\*' "$WORK/a/report.md"
	check "A is complete (no PARTIAL)" bash -c "! grep -q PARTIAL '$WORK/a/report.md'"
	check "build B" python3 "$MATRIX_PY" build "$WORK/b"
	check "B is marked PARTIAL" grep -q '^\*\*PARTIAL\*\*' "$WORK/b/report.md"
	check "compare A B" python3 "$MATRIX_PY" compare "$WORK/a" "$WORK/b" "$WORK/cmp"
	check "compare: noise flag and ratios" compare_flags "$WORK/cmp/compare.csv" "$WORK/cmp/report.md"
	check "compare: charts with both folders" charts_exist "$WORK/cmp" lat_vs_bs_write iops_vs_bs_write
	check "compare: HTML self-contained" html_is_self_contained "$WORK/cmp/report.html"
	check "CLI: --help" "$ROOT/scripts/run_matrix.sh" --help
	check "CLI: bad --repeats named" cli_fails_with "--repeats: 'zero'" --repeats zero
	check "CLI: unknown option named" cli_fails_with "unknown option '--bogus'" --bogus
	check "CLI: unknown method named" cli_fails_with "unknown method 'xyz'" --methods apm,xyz --dry-run
	check "CLI: bad size named" cli_fails_with "'4q' is not a size" --lat-bs 4q --dry-run
	check "CLI: compare needs two folders" cli_fails_with "compare needs two result folders" compare x
	check "CLI: --dry-run counts the plan" dry_run_counts
	echo
	echo "matrix: $PASSED passed, $FAILED failed"
	[ "$FAILED" -eq 0 ]
}

main "$@"
