#!/usr/bin/env bash
# tests/e2e/run.sh -- the whole end-to-end suite, run inside the Soft-RoCE VM
# (make test-e2e boots the VM once per kernel and runs this). Each suite prints
# its own "N passed, M failed" line; this exits non-zero if any suite failed.
# The examples run on every kernel (6.1 emulates ATOMIC WRITE, 6.12 has it
# natively); the engine suites and valgrind (minutes each under TCG) run on
# the default kernel only.
set -u
cd "$(dirname "$0")/../.."
suites=(tests/e2e/examples.sh)
case "$(uname -r)" in
6.1.*) suites+=(tests/e2e/engines.sh tests/e2e/engines_gpspm.sh tests/e2e/valgrind.sh) ;;
esac
status=0
for suite in "${suites[@]}"; do
	echo "-- $suite (kernel $(uname -r))"
	"$suite" || status=1
done
exit "$status"
