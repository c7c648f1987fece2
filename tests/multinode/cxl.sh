#!/usr/bin/env bash
# tests/multinode/cxl.sh -- make test-cxl: both engines' servers on CXL memory, on node0
# of two guests that each have a persistent CXL type-3 device (scripts/softroce-vm run
# --nodes 2 --pmem --cxl):
#   - tests/e2e/cxl.sh on node0 (its own CXL device DAX, over rxe's loopback): both
#     engines with fio's verify, the bytes on the device read back, the region's facts;
#   - tests/multinode/durability.sh against node1's CXL device DAX: the rounds across
#     node1's power cut (the same CXL backing file after the reboot) with their
#     negative controls (a platform that lost the last writes, a reverted memory, a
#     power cut that rebooted nothing): results build/e2e-results/durability-cxl.tsv.
set -u
cd "$(dirname "$0")/../.." || exit 1
st=0
E2E_RESULTS=build/e2e-results/cxl.tsv tests/e2e/cxl.sh || st=1
# shellcheck disable=SC2016 # expanded on node1
dax=$(timeout 60 ssh -n node1 'echo "${RPMA_TEST_CXL_DEVDAX:-}"')
if [ -z "$dax" ]; then
	echo "FAIL multinode-durability-cxl: node1 has no CXL device DAX (RPMA_TEST_CXL_DEVDAX)"
	exit 1
fi
# the device DAX the rounds judge is on node1's CXL bus, not its NVDIMM
if ! timeout 60 ssh -n node1 ndctl list -N -b CXL | grep -q "\"chardev\":\"${dax#/dev/}\""; then
	echo "FAIL multinode-durability-cxl: $dax is not on node1's CXL bus (ndctl list -N -b CXL)"
	exit 1
fi
# QEMU does not reset a CXL device: a warm reset of node1 is refused at once, naming why
if out=$(timeout 30 scripts/softroce-vm.d/power.sh reset node1 2>&1) || ! grep -q "emulated CXL device" <<<"$out"; then
	echo "FAIL cxl-warm-reset-refused: power.sh reset node1 said: $out"
	st=1
else
	echo "PASS cxl-warm-reset-refused: $out"
fi
echo "durability on node1's CXL device DAX $dax (ndctl: on the CXL bus)"
DURABILITY_NAME=durability-cxl DURABILITY_DEVDAX=$dax tests/multinode/durability.sh || st=1
exit "$st"
