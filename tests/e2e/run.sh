#!/usr/bin/env bash
# tests/e2e/run.sh -- the whole end-to-end suite, run inside the Soft-RoCE VM
# (make test-e2e boots the VM once per kernel and runs this). Each suite prints
# its own "N passed, M failed" line; this exits non-zero if any suite failed.
# The valgrind suite (about a minute under TCG) runs on the default kernel only.
set -u
cd "$(dirname "$0")/../.."
suites=(tests/e2e/examples.sh)
[ -x tests/e2e/engines.sh ] && suites+=(tests/e2e/engines.sh)
case "$(uname -r)" in
6.1.*) suites+=(tests/e2e/valgrind.sh) ;;
esac
status=0
for suite in "${suites[@]}"; do
	echo "-- $suite (kernel $(uname -r))"
	"$suite" || status=1
done
exit "$status"
