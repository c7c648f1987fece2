#!/usr/bin/env bash
# tests/unit/run.sh -- make test-unit: run every unit test binary given; print
# each one's result and a total. Exit non-zero if any binary failed or no test
# ran at all.
set -u
passed=0 failed=0 bins_failed=()
for bin in "$@"; do
	out=$("$bin" 2>&1)
	status=$?
	printf '%s\n' "$out"
	p=$(printf '%s\n' "$out" | sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' | tail -1)
	f=$(printf '%s\n' "$out" | sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' | tail -1)
	passed=$((passed + ${p:-0}))
	failed=$((failed + ${f:-0}))
	if [ "$status" -ne 0 ]; then
		bins_failed+=("$(basename "$bin")")
		[ -z "$f" ] && failed=$((failed + 1))
	fi
done
echo
[ ${#bins_failed[@]} -gt 0 ] && echo "failing test binaries: ${bins_failed[*]}"
echo "unit: $passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
