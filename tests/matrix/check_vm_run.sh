#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# tests/matrix/check_vm_run.sh -- make test-matrix-vm: a --quick matrix in the
# Soft-RoCE VM into build/matrix-ci, then checks that it completed, that the
# report and results.csv have figures for every point of the plan, that the
# charts exist, and that it took at most 6 minutes; then the no_flush check
# (tests/matrix/no_flush_vm.sh) in its own short VM run.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=$ROOT/build/matrix-ci
LIMIT=${MATRIX_VM_LIMIT:-360}
FAILED=0

fail() {
	echo "FAIL $*"
	FAILED=$((FAILED + 1))
}

cd "$ROOT"
rm -rf "$OUT"
start=$(date +%s)
status=0
scripts/run_matrix.sh --quick --out "$OUT" || status=$?
took=$(($(date +%s) - start))
echo "the --quick matrix took ${took} s (limit ${LIMIT} s)"
[ "$status" -eq 0 ] || fail "run_matrix.sh --quick exited with $status"
[ "$took" -le "$LIMIT" ] || fail "the --quick matrix took ${took} s, more than ${LIMIT} s"
grep -qx complete "$OUT/status" 2>/dev/null || fail "status is '$(cat "$OUT/status" 2>/dev/null)', not complete"

# every point of the plan: a row with figures in results.csv and in the report
while IFS=$'\t' read -r id method _ rw bs qd _ _; do
	row=$(grep "^$id," "$OUT/results.csv" 2>/dev/null || true)
	runs=$(cut -d, -f10 <<<"$row")
	iops=$(cut -d, -f11 <<<"$row")
	if [ -z "$row" ] || [ "${runs:-0}" -lt 1 ] || [ -z "$iops" ]; then
		fail "point $id ($method $rw bs $bs iodepth $qd) has no figures"
		for f in "$OUT"/runs/"$id"-r1.*; do [ -e "$f" ] && { echo "  --- $f"; sed 's/^/  | /' "$f" | tail -20; }; done
	elif ! grep -Eq "^\| $id \| $method \| $rw \| [^|]+ \| [^|]+ \| [^|]+ \| [1-9][0-9]* \| [0-9]" "$OUT/report.md"; then
		fail "point $id ($method $rw bs $bs iodepth $qd) is not in the report's summary"
	fi
done < <(tail -n +2 "$OUT/plan.tsv" 2>/dev/null)
[ -s "$OUT/plan.tsv" ] || fail "no plan.tsv in $OUT"
for chart in lat_vs_bs_write iops_vs_bs_write bw_vs_bs_write overhead_vs_noflush fraction_of_raw; do
	if [ ! -s "$OUT/charts/$chart.png" ] || [ ! -s "$OUT/charts/$chart.svg" ]; then
		fail "chart $chart missing or empty"
	fi
done
grep -q '<svg' "$OUT/report.html" 2>/dev/null || fail "report.html has no inline chart"
# the environment says which accelerator ran the VM (KVM's figures are not TCG's)
grep -Eq '^\| in Soft-RoCE VM \| yes, accelerator (kvm|tcg) \|' "$OUT/report.md" 2>/dev/null ||
	fail "the report's environment does not say which accelerator ran the VM"
# as a person sees it: headless Chromium renders it (screenshot kept: build/matrix-ci/report.png)
tests/matrix/render_check.sh "$OUT" || fail "report.html does not render properly in Chromium"
[ "$FAILED" -gt 0 ] || echo "PASS --quick matrix: every point measured and reported"

scripts/softroce-vm run -q --timeout 120 -- tests/matrix/no_flush_vm.sh || fail "the no_flush check"
echo
echo "matrix-vm: $FAILED failed"
[ "$FAILED" -eq 0 ]
