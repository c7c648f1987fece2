#!/usr/bin/env bash
# tests/e2e/run.sh -- the whole end-to-end suite, run inside the Soft-RoCE VM
# (make test-e2e boots the VM once per kernel and runs this). Each suite prints
# its own "N passed, M failed" line; this exits non-zero if any suite failed.
set -u
cd "$(dirname "$0")/../.."
status=0
for suite in tests/e2e/examples.sh; do
	echo "-- $suite (kernel $(uname -r))"
	"$suite" || status=1
done
exit "$status"
