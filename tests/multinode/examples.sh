#!/usr/bin/env bash
# tests/multinode/examples.sh -- the examples suite (tests/e2e/examples.sh) across
# two hosts: every server on node1 (its DRAM and its device DAX), every client here.
set -u
cd "$(dirname "$0")/../.." || exit 1
: "${SOFTROCE_VM_NODES:?run me on node0 of scripts/softroce-vm run --nodes 2 (or more)}"
addr=$(getent hosts node1 | cut -d' ' -f1)
[ -n "$addr" ] || { echo "multinode: node1 has no address" >&2; exit 1; }
mkdir -p build/multinode
# the fsdax case is about Soft-RoCE and On-Demand Paging, not about the network: one
# host covers it (tests/e2e/examples.sh)
RPMA_TEST_ADDR=$addr RPMA_TEST_FSDAX_DIR='' E2E_SERVER_HOST=node1 E2E_TMP_BASE=$PWD/build/multinode \
	E2E_RESULTS=build/e2e-results/multinode.tsv E2E_NAME_PREFIX=multinode- exec tests/e2e/examples.sh
