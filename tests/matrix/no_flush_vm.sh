#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# tests/matrix/no_flush_vm.sh -- inside the Soft-RoCE VM: the APM engine's
# no_flush=1 really posts no flush. rxe counts the packets it sends; with the
# flush emulated by an RDMA read, each sync write costs a read request and a
# read response more than a write alone. So packets per I/O must drop by at
# least 1.5 with no_flush=1. IOPS are printed, not asserted: under TCG they
# swing more than the flush costs (a timed check would flake).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
ADDR=${RPMA_TEST_ADDR:?run me inside the Soft-RoCE VM (scripts/softroce-vm run)}
COUNTER=/sys/class/infiniband/rxe0/ports/1/hw_counters/sent_pkts
WORK=$(mktemp -d /tmp/no-flush.XXXXXX)
cd "$ROOT"

# prints "ios packets iops" of one 2 s APM run of sync 4 KiB writes
measure() {
	local no_flush=$1 port=$2 before after spid
	before=$(cat "$COUNTER")
	SERVER_IP=$ADDR PORT=$port RUNTIME=2s RAMP=0s timeout 60 fio jobs/apm-server.fio \
		>"$WORK/server$no_flush.log" 2>&1 &
	spid=$!
	local waited=0
	until grep -q 'listening on' "$WORK/server$no_flush.log"; do
		if ! kill -0 "$spid" 2>/dev/null || [ "$waited" -ge 300 ]; then
			cat "$WORK/server$no_flush.log" >&2
			echo "the server did not listen" >&2
			return 1
		fi
		sleep 0.1
		waited=$((waited + 1))
	done
	if ! SERVER_IP=$ADDR PORT=$port RUNTIME=2s RAMP=0s timeout 60 fio \
			--ioengine=external:build/librpma_apm.so --no_flush="$no_flush" jobs/randwrite.fio \
			--output-format=json --output="$WORK/client$no_flush.json" >"$WORK/client$no_flush.log" 2>&1; then
		cat "$WORK/client$no_flush.log" "$WORK/server$no_flush.log" >&2
		return 1
	fi
	wait "$spid"
	after=$(cat "$COUNTER")
	jq -r --argjson pkts $((after - before)) '.jobs[0].write | "\(.total_ios) \($pkts) \(.iops)"' \
		"$WORK/client$no_flush.json"
}

# (no process substitution: the guest has no /dev/fd)
with=$(measure 0 7601)
without=$(measure 1 7602)
read -r ios0 pkts0 iops0 <<<"$with"
read -r ios1 pkts1 iops1 <<<"$without"
rm -rf "$WORK"
awk -v i0="$ios0" -v p0="$pkts0" -v r0="$iops0" -v i1="$ios1" -v p1="$pkts1" -v r1="$iops1" 'BEGIN {
	printf "flush:    %d I/Os, %.2f packets per I/O, %.0f IOPS\n", i0, p0 / i0, r0
	printf "no_flush: %d I/Os, %.2f packets per I/O, %.0f IOPS\n", i1, p1 / i1, r1
	ok = i0 > 0 && i1 > 0 && p0 / i0 - p1 / i1 >= 1.5
	print (ok ? "PASS no_flush posts no flush" : "FAIL no_flush: packets per I/O did not drop by the read request and response a flush costs")
	exit !ok
}'
