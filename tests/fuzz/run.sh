#!/bin/bash
# tests/fuzz/run.sh -- run libFuzzer targets for a while each; fail on any finding.
set -euo pipefail

usage() {
	cat <<USAGE
usage: $0 [--seconds N] [--bin-dir DIR] [--work-dir DIR] TARGET...

Runs DIR/TARGET (a libFuzzer binary) for N seconds (default 60) on a working
corpus in WORK/corpus/TARGET seeded from tests/fuzz/corpus/TARGET, then prints
the executions reached and the edges (and features: edges by hit count)
covered. Exits non-zero when a target reports a crash, a leak, a failed
assertion or a sanitizer error (its reproducer stays in WORK/artifacts/TARGET/,
its log in WORK/logs/TARGET.log).
Defaults: --bin-dir build/fuzz, --work-dir the bin dir.
USAGE
}

seconds=60
bin_dir=build/fuzz
work_dir=
targets=()
while [ $# -gt 0 ]; do
	case "$1" in
	--seconds) seconds=${2:?--seconds needs a value}; shift 2 ;;
	--bin-dir) bin_dir=${2:?--bin-dir needs a value}; shift 2 ;;
	--work-dir) work_dir=${2:?--work-dir needs a value}; shift 2 ;;
	-h|--help) usage; exit 0 ;;
	-*) echo "$0: unknown option '$1' (see --help)" >&2; exit 2 ;;
	*) targets+=("$1"); shift ;;
	esac
done
[[ "$seconds" =~ ^[1-9][0-9]*$ ]] || { echo "$0: --seconds '$seconds' is not a positive integer" >&2; exit 2; }
[ ${#targets[@]} -gt 0 ] || { usage >&2; exit 2; }
work_dir=${work_dir:-$bin_dir}
seeds=$(cd "$(dirname "$0")" && pwd)/corpus

failed=()
for t in "${targets[@]}"; do
	bin=$bin_dir/$t
	[ -x "$bin" ] || { echo "$0: no fuzz target '$bin' (make fuzz-build)" >&2; exit 2; }
	[ -d "$seeds/$t" ] || { echo "$0: no seed corpus '$seeds/$t'" >&2; exit 2; }
	mkdir -p "$work_dir/corpus/$t" "$work_dir/artifacts/$t" "$work_dir/logs"
	log=$work_dir/logs/$t.log
	rc=0
	# the first corpus directory receives what the fuzzer finds; the seeds stay untouched
	"$bin" -max_total_time="$seconds" -print_final_stats=1 -max_len=1024 \
		-artifact_prefix="$work_dir/artifacts/$t/" \
		"$work_dir/corpus/$t" "$seeds/$t" >"$log" 2>&1 || rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	# libFuzzer's last status line: edges covered (cov) and features (ft: edges by hit count)
	cov=$(sed -n 's/.* cov: \([0-9]*\) ft: \([0-9]*\).*/\1 edges, \2 features/p' "$log" | tail -n 1)
	if [ "$rc" -ne 0 ]; then
		echo "FUZZ FAIL: $t (exit $rc) -- log $log:" >&2
		grep -E 'ERROR|SUMMARY|runtime error|Assertion|Test unit written' "$log" >&2 || tail -n 30 "$log" >&2
		failed+=("$t")
	else
		echo "fuzz: $t: ${execs:-?} executions in ${seconds} s, ${cov:-? edges}, corpus $(find "$work_dir/corpus/$t" -type f | wc -l) inputs, no finding"
	fi
done
if [ ${#failed[@]} -gt 0 ]; then
	echo "fuzz: FAILED: ${failed[*]}" >&2
	exit 1
fi
