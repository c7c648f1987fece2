#!/usr/bin/env bash
# tests/e2e/run.sh -- the whole end-to-end suite, run inside the Soft-RoCE VM
# (make test-e2e boots the VM once per kernel and runs this). Each suite prints
# its own "N passed, M failed" line; this exits non-zero if any suite failed.
# The examples run on every kernel (6.1 emulates ATOMIC WRITE, 6.12 has it
# natively); the engine suites and valgrind (minutes each under TCG) run on
# the default kernel only, as do the interop (against the peer, build/peer), fault
# injection (tests/fault/: examples: faults.sh; engines under fio: fio_faults.sh)
# and engine-fault suites and the iWARP suite (iwarp.sh: the boot has Soft-iWARP
# beside Soft-RoCE, make's E2E_TRANSPORT).
set -u
cd "$(dirname "$0")/../.." || exit 1
suites=(tests/e2e/examples.sh)
case "$(uname -r)" in
6.1.*)
	# engine_faults.sh last: it takes the rxe link down and re-creates the device
	suites+=(tests/e2e/engines.sh tests/e2e/engines_gpspm.sh tests/e2e/engines_hub.sh
		tests/e2e/hostile.sh tests/e2e/interop.sh tests/e2e/iwarp.sh tests/e2e/valgrind.sh
		tests/e2e/valgrind_engines.sh tests/fault/faults.sh tests/fault/fio_faults.sh
		tests/fault/engine_faults.sh) ;;
esac
# a fresh results table for this kernel (tests/e2e/lib.sh appends to it)
mkdir -p build/e2e-results && : >"build/e2e-results/$(uname -r).tsv"
status=0
for suite in "${suites[@]}"; do
	echo "-- $suite (kernel $(uname -r))"
	t0=$SECONDS
	read -r -a cmd <<<"$suite" # a suite and its arguments
	"${cmd[@]}" || status=1
	echo "-- $suite: $((SECONDS - t0)) s"
done
exit "$status"
