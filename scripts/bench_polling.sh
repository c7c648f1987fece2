#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# bench_polling.sh -- the GPSPM server's three ways of waiting for its client's requests
# (busy_wait_polling=1, 0, adaptive), measured side by side: 4 KiB synchronous random
# writes (iodepth 1) from one client, at full speed and at a fixed rate, the modes
# taking turns round by round (a slow period of the host hits all three). Prints and
# writes polling.tsv (one line a run) and polling.md (medians, and adaptive against its
# targets: latency within 10% of busy polling, server CPU within 10% of sleeping).
# make bench runs it; docs/matrix.md, "The GPSPM server's polling modes".
set -euo pipefail

PROG=${0##*/}
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/matrix/bench_lib.sh
. "$ROOT/scripts/matrix/bench_lib.sh"

BENCH=polling OUT='' ROUNDS=5 RUNTIME=4 RATE=200 PORT_BASE=7700 PORT_STEP=1
BENCH_OPTIONS=(--runtime=RUNTIME --rate=RATE)
MODES=(1 0 adaptive)

usage() {
	cat <<EOF
Usage: $PROG [--out DIR] [--rounds N] [--runtime S] [--rate IOPS] [--dry-run]

The GPSPM server's polling modes (busy_wait_polling=1, 0, adaptive) side by side:
4 KiB random writes at iodepth 1, at full speed and at --rate IOPS (default $RATE),
--rounds rounds (default $ROUNDS) of one --runtime second run (default $RUNTIME) per
mode and rate, modes taking turns. In the Soft-RoCE VM when this machine has no RDMA
device (needs make engines). Writes DIR/polling.tsv and DIR/polling.md (default
build/bench/polling-<date-time>). --dry-run prints the command the VM would run, and
exits.
EOF
}

check_args() {
	[[ $RUNTIME =~ ^[1-9][0-9]?$ ]] || die "--runtime: '$RUNTIME' is not a whole number of seconds in 1..99"
	[[ $RATE =~ ^[1-9][0-9]*$ ]] || die "--rate: '$RATE' is not a positive number of IOPS"
}

# A round's runs (RATE MODE): full speed, then --rate, the modes taking turns
round_runs() {
	local rate mode
	for rate in 0 "$RATE"; do
		for mode in "${MODES[@]}"; do echo "$rate $mode"; done
	done
}

# One run: the server in MODE, one client at RATE (0: full speed); a line of polling.tsv
run_one() { # ROUND RATE MODE PORT
	local round=$1 rate=$2 mode=$3 port=$4 stem rc=0
	stem=$OUT/runs/r$round-rate$rate-$mode
	echo "[round $round/$ROUNDS] rate ${rate/#0/full} busy_wait_polling=$mode" >&2
	bench_gpspm_server "$stem" "$port" $((RUNTIME + 60)) SERVER_BUSY_WAIT="$mode" SERVER_IODEPTH=64 NUMJOBS=1
	wait_line "$stem.server.log" 'listening on' 30 "$MATRIX_SPID" ||
		{ bench_not_listening "busy_wait_polling=$mode" "$stem"; return 1; }
	bench_gpspm_client "$stem" "$port" $((RUNTIME + 60)) IODEPTH=1 SYNC=1 RUNTIME="${RUNTIME}s" RAMP=1s \
		NUMJOBS=1 BUSY_WAIT=1 --rate_iops="$rate" --lat_percentiles=1 || rc=$?
	bench_run_done "$rc" "$stem" "$round" "$rate" "$mode" || return 1
	# (how the adaptive server's waits went)
	grep -h 'busy_wait_polling=adaptive' "$stem.server.log" | sed 's/^/      /' >&2 || true
}

main() {
	bench_args "$@"
	check_args
	bench_run polling
}

main "$@"
