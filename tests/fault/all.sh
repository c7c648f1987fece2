#!/usr/bin/env bash
# tests/fault/all.sh -- the reliability suites, one after the other, in one VM boot
# (make test-faults): provider faults (examples, then the engines under fio),
# engine faults, the engines under valgrind.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
case "${1:-}" in
-h|--help) sed -n '2,4s/^# \{0,1\}//p' "$0"; exit 0 ;;
esac
status=0
# engine_faults.sh last: it takes the rxe link down
for suite in tests/fault/faults.sh tests/fault/fio_faults.sh tests/e2e/valgrind_engines.sh \
		tests/fault/engine_faults.sh; do
	echo "== $suite"
	t0=$SECONDS
	"$suite" || status=1
	echo "== $suite: $((SECONDS - t0)) s"
done
exit "$status"
