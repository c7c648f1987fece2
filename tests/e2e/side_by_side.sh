#!/usr/bin/env bash
# tests/e2e/side_by_side.sh -- run suites at the same time, each with its arguments
# in one word list, and print their output in turn:
#
#   tests/e2e/side_by_side.sh tests/e2e/fio_versions.sh 'tests/e2e/install.sh deb'
#
# For suites that mostly wait (timed fio runs, dpkg over the guest's 9p root) and
# use ports apart. Exits non-zero when any suite does.
set -u
[ $# -gt 0 ] || { echo "usage: $0 'SUITE [ARG...]'..." >&2; exit 2; }
out=$(mktemp -d "${TMPDIR:-/tmp}/side-by-side.XXXXXX")
pids=()
for i in $(seq 1 $#); do
	read -r -a cmd <<<"${!i}"
	"${cmd[@]}" >"$out/$i.out" 2>&1 &
	pids+=($!)
done
status=0
for i in $(seq 1 $#); do
	rc=0
	wait "${pids[i - 1]}" || rc=$?
	echo "-- ${!i} (exit $rc)"
	cat "$out/$i.out"
	[ "$rc" -eq 0 ] || status=1
done
rm -rf "$out"
exit "$status"
