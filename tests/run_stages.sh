#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# tests/run_stages.sh -- `make test` and `make check`: run each stage (a make
# target) in turn, time it, go on after a failure (one run shows every red stage),
# and end with a table of every stage's time beside its budget -- and of each
# end-to-end suite inside a VM stage (their "-- SUITE: N s" lines) -- so that
# growth is seen where it happens. A stage over its budget is marked OVER: a mark
# for the reader, never a failure (speed is not a timed test).
#
#   tests/run_stages.sh NAME=TARGET=BUDGET...   e.g. unit=test-unit=1:00
#   tests/run_stages.sh --check-sum MAX NAME=TARGET=BUDGET...
#                      run nothing: fail unless the budgets add up to at most MAX
#
# BUDGET is m:ss. MAKE (default make) runs the targets; STAGES_LOG (default
# build/test-stages.log) keeps the whole output. Exits 1 if any stage failed.
# The last line is "stages: N passed, M failed".
set -uo pipefail

MAKE=${MAKE:-make}
LOG=${STAGES_LOG:-build/test-stages.log}
mkdir -p "$(dirname "$LOG")"
: >"$LOG"

sum_max=''
if [ "${1:-}" = --check-sum ]; then
	sum_max=${2:-}
	shift 2 || true
fi

names=() targets=() budgets=() secs=() results=() subrows=()
interrupted=0
trap 'interrupted=1' INT TERM

fmt() { # SECONDS -> m:ss
	printf '%d:%02d' $(($1 / 60)) $(($1 % 60))
}

seconds_of() { # m:ss -> seconds (exit 1 when it is not m:ss)
	[[ $1 =~ ^([0-9]+):([0-5][0-9])$ ]] || return 1
	echo $((10#${BASH_REMATCH[1]} * 60 + 10#${BASH_REMATCH[2]}))
}

# every argument checked before the first stage runs
for arg in "$@"; do
	IFS='=' read -r name target budget extra <<<"$arg"
	if [ -z "$name" ] || [ -z "$target" ] || [ -n "${extra:-}" ] || ! b=$(seconds_of "${budget:-}"); then
		echo "run_stages.sh: '$arg' is not NAME=TARGET=BUDGET (a budget like 2:30)" >&2
		exit 2
	fi
	names+=("$name") targets+=("$target") budgets+=("$b")
done

if [ -n "$sum_max" ]; then
	max=$(seconds_of "$sum_max") || { echo "run_stages.sh: --check-sum '$sum_max' is not m:ss" >&2; exit 2; }
	sum=0
	for b in "${budgets[@]}"; do sum=$((sum + b)); done
	if ((sum > max)); then
		echo "run_stages.sh: the ${#budgets[@]} stages' budgets add up to $(fmt "$sum"), more than $sum_max" >&2
		exit 1
	fi
	echo "budgets: ${#budgets[@]} stages, $(fmt "$sum") of $sum_max"
	exit 0
fi

run_stage() { # INDEX
	local i=$1 t0=$SECONDS rc=0 out
	out=$(mktemp)
	echo "== stage ${names[i]} (make ${targets[i]}; budget $(fmt "${budgets[i]}")) =="
	"$MAKE" --no-print-directory "${targets[i]}" 2>&1 | tee "$out" || rc=${PIPESTATUS[0]}
	cat "$out" >>"$LOG"
	secs+=($((SECONDS - t0)))
	if ((rc == 0)); then results+=(ok); else results+=("FAILED ($rc)"); fi
	# the suites of an end-to-end stage, as run.sh times them
	subrows+=("$(sed -n 's/^-- \(tests\/[^ ]*\): \([0-9]*\) s$/\1 \2/p' "$out")")
	rm -f "$out"
	echo "== stage ${names[i]}: ${results[-1]}, $(fmt "${secs[-1]}") of $(fmt "${budgets[i]}") =="
}

for i in "${!names[@]}"; do
	((interrupted)) && break
	run_stage "$i"
done

total=0 total_budget=0 passed=0 failed=0 over=0
echo
echo "stage timings (time against budget; OVER marks a stage that took longer than its budget)"
printf '  %-34s %8s %8s  %s\n' stage time budget result
for i in "${!secs[@]}"; do
	mark=''
	((secs[i] <= budgets[i])) || { mark=' OVER'; over=$((over + 1)); }
	printf '  %-34s %8s %8s  %s%s\n' "${names[i]}" "$(fmt "${secs[i]}")" "$(fmt "${budgets[i]}")" "${results[i]}" "$mark"
	while read -r suite s; do
		[ -n "$suite" ] && printf '    %-32s %8s\n' "${suite#tests/}" "$(fmt "$s")"
	done <<<"${subrows[i]}"
	total=$((total + secs[i]))
	if [ "${results[i]}" = ok ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
done
for b in "${budgets[@]}"; do total_budget=$((total_budget + b)); done
mark=''
((total <= total_budget)) || mark='  OVER'
printf '  %-34s %8s %8s%s\n' total "$(fmt "$total")" "$(fmt "$total_budget")" "$mark"
((over == 0)) || echo "over budget: $over stage(s) (a mark, not a failure)"
((interrupted)) && echo "interrupted: the stages after '${names[${#secs[@]} - 1]:-}' did not run"
echo "whole output: $LOG"
echo "stages: $passed passed, $failed failed"
((failed == 0 && interrupted == 0))
