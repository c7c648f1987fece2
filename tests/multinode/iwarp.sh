#!/usr/bin/env bash
# tests/multinode/iwarp.sh -- both engines across two hosts over Soft-iWARP: the
# server on node1's siw0, the client here on ours (scripts/softroce-vm run --nodes 2
# --transport rxe,iwarp: siw0 on each node's second NIC, eth1, 192.168.78.(1+I)),
# with fio's verify, batched (reads and writes mixed on one connection: iWARP
# reorders their completions). Each run must have sent its data through this
# node's eth1. (sync=1 over siw: tests/e2e/iwarp.sh, in one guest.)
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/multinode/lib.sh
. tests/multinode/lib.sh
: "${RPMA_TEST_IWARP_ADDR:?run me with scripts/softroce-vm run --nodes 2 --transport rxe,iwarp}"

# node1's siw address: node I has the I-th after node0's
a=$RPMA_TEST_IWARP_ADDR
export VERIFIED_ADDR=${a%.*}.$((${a##*.} + 1)) VERIFIED_NIC=eth1
export E2E_NAME_PREFIX=multinode-iwarp-
# siw counts registrations against RLIMIT_MEMLOCK even for root (tests/e2e/iwarp.sh shows
# the message): the servers on node1 (their ssh sessions read the node's env file) and
# the clients here run without that limit
ssh -n "$SERVER_NODE" 'echo "ulimit -l unlimited" >>/etc/softroce-vm.env' ||
	{ echo "FAIL multinode-iwarp: cannot raise node1's locked-memory limit"; exit 1; }
ulimit -l unlimited

verified_run apm-verify-dram-write-64k-qd16-batch16 apm node1 8m '' --rw=write --bs=64k \
	--iodepth=16 --iodepth_batch_submit=16
verified_run gpspm-verify-dram-randwrite-4k-qd16-batch16 gpspm node1 8m '' --rw=randwrite --bs=4k \
	--iodepth=16 --iodepth_batch_submit=16
e2e_summary
