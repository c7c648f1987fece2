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
# shellcheck source=scripts/matrix/lib.sh
. "$ROOT/scripts/matrix/lib.sh"

OUT='' ROUNDS=5 RUNTIME=4 RATE=200 PORT_BASE=7700 IN_VM=0
MODES=(1 0 adaptive)

usage() {
	cat <<EOF
Usage: $PROG [--out DIR] [--rounds N] [--runtime S] [--rate IOPS]

The GPSPM server's polling modes (busy_wait_polling=1, 0, adaptive) side by side:
4 KiB random writes at iodepth 1, at full speed and at --rate IOPS (default $RATE),
--rounds rounds (default $ROUNDS) of one --runtime second run (default $RUNTIME) per
mode and rate, modes taking turns. In the Soft-RoCE VM when this machine has no RDMA
device (needs make engines). Writes DIR/polling.tsv and DIR/polling.md (default
build/bench/polling-<date-time>).
EOF
}

parse_args() {
	while [ $# -gt 0 ]; do
		case $1 in
		--out) need_value "$@"; OUT=$2; shift ;;
		--rounds) need_value "$@"; ROUNDS=$2; shift ;;
		--runtime) need_value "$@"; RUNTIME=$2; shift ;;
		--rate) need_value "$@"; RATE=$2; shift ;;
		--in-vm) IN_VM=1 ;;
		-h|--help) usage; exit 0 ;;
		*) die "unknown option '$1' (see --help)" ;;
		esac
		shift
	done
	[[ $ROUNDS =~ ^[1-9][0-9]?$ ]] || die "--rounds: '$ROUNDS' is not a number in 1..99"
	[[ $RUNTIME =~ ^[1-9][0-9]?$ ]] || die "--runtime: '$RUNTIME' is not a whole number of seconds in 1..99"
	[[ $RATE =~ ^[1-9][0-9]*$ ]] || die "--rate: '$RATE' is not a positive number of IOPS"
	[ -n "$OUT" ] || OUT=$ROOT/build/bench/polling-$(date +%Y%m%d-%H%M%S)
	case $OUT in /*) ;; *) OUT=$PWD/$OUT ;; esac
}

# One run: the server in MODE, one client at RATE (0: full speed); a line of polling.tsv
run_one() { # ROUND RATE MODE PORT
	local round=$1 rate=$2 mode=$3 port=$4 stem spid rc=0
	stem=$OUT/runs/r$round-rate$rate-$mode
	env SERVER_IP="$SERVER_IP" PORT="$port" SERVER_MEM=malloc SERVER_SIZE=16m SERVER_BUSY_WAIT="$mode" \
		SERVER_IODEPTH=64 NUMJOBS=1 DIRECT_WRITE_TO_PMEM=0 \
		timeout $((RUNTIME + 60)) fio --output-format=json --output="$stem.server.json" \
		jobs/gpspm-server.fio >"$stem.server.log" 2>&1 &
	spid=$!
	if ! wait_line "$stem.server.log" 'listening on' 30 "$spid"; then
		kill "$spid" 2>/dev/null || true
		wait "$spid" 2>/dev/null || true
		echo "$PROG: the server (busy_wait_polling=$mode) did not listen: $stem.server.log" >&2
		return 1
	fi
	env SERVER_IP="$SERVER_IP" PORT="$port" BS=4k IODEPTH=1 SYNC=1 RUNTIME="${RUNTIME}s" RAMP=1s \
		NUMJOBS=1 BUSY_WAIT=1 timeout $((RUNTIME + 60)) \
		fio --ioengine=external:build/librpma_gpspm.so --rate_iops="$rate" --lat_percentiles=1 \
		--output-format=json --output="$stem.json" jobs/randwrite.fio >"$stem.client.log" 2>&1 || rc=$?
	wait "$spid" || rc=$?
	[ "$rc" -eq 0 ] || { echo "$PROG: run $stem failed ($rc): see its logs" >&2; return 1; }
	python3 - "$stem" "$round" "$rate" "$mode" >>"$OUT/polling.tsv" <<'PY'
import json, sys
stem, rnd, rate, mode = sys.argv[1:]
def doc(path):
    text = open(path).read()
    return json.loads(text[text.index("{"):])
w = doc(stem + ".json")["jobs"][0]["write"]
cpu = sum(j["usr_cpu"] + j["sys_cpu"] for j in doc(stem + ".server.json")["jobs"])
p99 = w["lat_ns"]["percentile"]["99.000000"] / 1000
print(f"{rnd}\t{rate}\t{mode}\t{w['iops']:.1f}\t{w['lat_ns']['mean'] / 1000:.1f}\t{p99:.1f}\t{cpu:.1f}")
PY
	grep -h 'busy_wait_polling=adaptive' "$stem.server.log" | sed 's/^/      /' >&2 || true
}

wait_line() { # FILE REGEX SECONDS PID
	local i
	for ((i = 0; i < $3 * 10; i++)); do
		grep -Eq "$2" "$1" 2>/dev/null && return 0
		kill -0 "$4" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

measure() {
	mkdir -p "$OUT/runs"
	printf 'round\trate\tmode\tiops\tlat_mean_us\tlat_p99_us\tserver_cpu_pct\n' >"$OUT/polling.tsv"
	local round rate mode port=$PORT_BASE failed=0
	for ((round = 1; round <= ROUNDS; round++)); do
		for rate in 0 "$RATE"; do
			for mode in "${MODES[@]}"; do
				echo "[round $round/$ROUNDS] rate ${rate/#0/full} busy_wait_polling=$mode" >&2
				port=$((port + 1))
				run_one "$round" "$rate" "$mode" "$port" || failed=$((failed + 1))
			done
		done
	done
	[ "$failed" -eq 0 ] || die "$failed run(s) failed"
}

main() {
	parse_args "$@"
	cd "$ROOT"
	if [ "$IN_VM" = 1 ]; then
		SERVER_IP=${RPMA_TEST_ADDR:?not inside the Soft-RoCE VM}
		measure
		return
	fi
	bench_host_ready "$OUT"
	"$ROOT/scripts/softroce-vm" run -q --timeout 3600 -- \
		"$ROOT/scripts/bench_polling.sh" --in-vm --out "$OUT" --rounds "$ROUNDS" --runtime "$RUNTIME" --rate "$RATE"
	python3 "$ROOT/scripts/matrix/matrix" polling "$OUT/polling.tsv" --out "$OUT/polling.md"
	cat "$OUT/polling.md"
}

main "$@"
