#!/usr/bin/env bash
# tests/native/run.sh -- the native build end to end, inside the 6.12 guest (make
# test-native-e2e): the default build's examples (as make test-e2e-6.12), the examples
# of build/native/ with every flush required to complete
# as the device's own FLUSH and ATOMIC WRITE native, then the engines
# (tests/native/engines.sh: native FLUSH counted, both methods verified, the ends
# differing, the peer), then on node0 of two guests the durability rounds across node1's
# power cut with APM's native FLUSH beside APM and GPSPM (tests/multinode/durability.sh).
# Needs RDMA_CORE (the private rdma-core's prefix).
set -u
cd "$(dirname "$0")/../.." || exit 1
: "${RDMA_CORE:?the private rdma-core prefix (RDMA_CORE=\$(scripts/rdma_core.sh))}"
status=0
for suite in examples-default examples engines durability; do
	echo "-- native $suite (kernel $(uname -r))"
	t0=$SECONDS
	if [ "$suite" = examples-default ]; then
		# the default build's on this kernel too (its rxe has ATOMIC WRITE; make test-e2e-6.12)
		tests/e2e/examples.sh || status=1
	elif [ "$suite" = examples ]; then
		E2E_EXAMPLES=build/native/examples EXAMPLE_FLUSH=native tests/e2e/examples.sh || status=1
	elif [ "$suite" = engines ]; then
		tests/native/engines.sh || status=1
	else
		tests/multinode/durability.sh || status=1
	fi
	echo "-- native $suite: $((SECONDS - t0)) s"
done
exit "$status"
