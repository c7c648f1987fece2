#!/usr/bin/env bash
# tests/multinode/run.sh -- make test-multinode: the suites that need more than one
# host, run on node0 of the multi-node Soft-RoCE VM, the server side on node1 over
# ssh (every packet crosses the virtual network between the guests):
#
#   scripts/softroce-vm run --nodes 3 --transport rxe,iwarp --pmem -- tests/multinode/run.sh
#   (make test-multinode)
#
# or some of the suites: tests/multinode/run.sh tests/multinode/engines.sh
#
# Each suite prints its own "N passed, M failed"; this exits non-zero if one failed.
set -u
cd "$(dirname "$0")/../.." || exit 1
: "${SOFTROCE_VM_NODES:?run me on node0 of scripts/softroce-vm run --nodes 2 (or more)}"
# node_kill.sh last: node1 does not come back
suites=(tests/multinode/examples.sh tests/multinode/engines.sh tests/multinode/iwarp.sh tests/multinode/access.sh
	tests/multinode/hub.sh tests/multinode/matrix.sh tests/multinode/faults.sh tests/multinode/node_kill.sh)
# (tests/multinode/durability.sh runs in make test-native-e2e: two guests on 6.12, the
# device's own FLUSH among the methods)
[ $# -eq 0 ] || suites=("$@")
mkdir -p build/e2e-results && : >build/e2e-results/multinode.tsv
status=0
for suite in "${suites[@]}"; do
	echo "-- $suite ($SOFTROCE_VM_NODES nodes)"
	t0=$SECONDS
	"$suite" || status=1
	echo "-- $suite: $((SECONDS - t0)) s"
done
exit "$status"
