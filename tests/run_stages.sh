#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# tests/run_stages.sh -- `make test`: run each stage (a make target) in turn,
# time it, go on after a failure (one run shows every red stage), and end with a
# table of every stage's time -- and of each end-to-end suite inside a VM stage
# (their "-- SUITE: N s" lines) -- so that growth is seen where it happens.
#
#   tests/run_stages.sh NAME=TARGET...     e.g. unit=test-unit e2e-6.1=test-e2e-6.1
#
# MAKE (default make) runs the targets; STAGES_LOG (default build/test-stages.log)
# keeps the whole output. Exits 1 if any stage failed. The last line is
# "stages: N passed, M failed".
set -uo pipefail

MAKE=${MAKE:-make}
LOG=${STAGES_LOG:-build/test-stages.log}
mkdir -p "$(dirname "$LOG")"
: >"$LOG"

names=() secs=() results=() subrows=()
interrupted=0
trap 'interrupted=1' INT TERM

fmt() { # SECONDS -> m:ss
	printf '%d:%02d' $(($1 / 60)) $(($1 % 60))
}

run_stage() { # NAME TARGET
	local name=$1 target=$2 t0=$SECONDS rc=0 out
	out=$(mktemp)
	echo "== stage $name (make $target) =="
	"$MAKE" --no-print-directory "$target" 2>&1 | tee "$out" || rc=${PIPESTATUS[0]}
	cat "$out" >>"$LOG"
	names+=("$name")
	secs+=($((SECONDS - t0)))
	if ((rc == 0)); then results+=(ok); else results+=("FAILED ($rc)"); fi
	# the suites of an end-to-end stage, as run.sh times them
	subrows+=("$(sed -n 's/^-- \(tests\/[^ ]*\): \([0-9]*\) s$/\1 \2/p' "$out")")
	rm -f "$out"
	echo "== stage $name: ${results[-1]}, $(fmt "${secs[-1]}") =="
}

for arg in "$@"; do
	((interrupted)) && break
	case $arg in
	*=*) run_stage "${arg%%=*}" "${arg#*=}" ;;
	*) echo "run_stages.sh: '$arg' is not NAME=TARGET" >&2; exit 2 ;;
	esac
done

total=0 passed=0 failed=0
echo
echo "stage timings"
printf '  %-34s %8s  %s\n' stage time result
for i in "${!names[@]}"; do
	printf '  %-34s %8s  %s\n' "${names[i]}" "$(fmt "${secs[i]}")" "${results[i]}"
	while read -r suite s; do
		[ -n "$suite" ] && printf '    %-32s %8s\n' "${suite#tests/}" "$(fmt "$s")"
	done <<<"${subrows[i]}"
	total=$((total + secs[i]))
	if [ "${results[i]}" = ok ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
done
printf '  %-34s %8s\n' total "$(fmt "$total")"
((interrupted)) && echo "interrupted: the stages after '${names[-1]:-}' did not run"
echo "whole output: $LOG"
echo "stages: $passed passed, $failed failed"
((failed == 0 && interrupted == 0))
