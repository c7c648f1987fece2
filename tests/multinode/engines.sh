#!/usr/bin/env bash
# tests/multinode/engines.sh -- both fio engines across two hosts: the server
# (jobs/<method>-server.fio) on node1 over ssh, the client here, with fio's verify
# (write with checksums, then read everything back and check), on node1's DRAM and
# its device DAX. Each run must also have sent its data through this node's NIC.
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/multinode/lib.sh
. tests/multinode/lib.sh

# (sync=1: in one guest, tests/e2e/engines.sh; across hosts, run_matrix.sh --clients's
# sync points in tests/multinode/matrix.sh)
for m in apm gpspm; do
	verified_run "$m-verify-dram-write-64k-qd16-batch16" "$m" node1 8m '' --rw=write --bs=64k \
		--iodepth=16 --iodepth_batch_submit=16
	verified_run "$m-verify-devdax-randwrite-16k-qd8" "$m" node1 8m \
		'SERVER_MEM=/dev/dax0.0 SERVER_SIZE=64m DIRECT_WRITE_TO_PMEM=1' \
		--rw=randwrite --bs=16k --iodepth=8 --iodepth_batch_submit=8
done
e2e_summary
