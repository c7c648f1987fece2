#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# compare-methods.sh -- APM against GPSPM, side by side, in one command.
#
# Runs the rpma-fio engines as server + client for each persistency method at
# 4 KiB random writes, latency (iodepth 1, sync=1) and throughput (iodepth 16,
# batched), and prints one table: IOPS, mean latency and p99 completion
# latency, with the ratio of each method to APM. Raw fio JSON and a CSV are
# kept in the output folder.
#
# Where it runs: on a machine with an RDMA device, against --server-ip (a local
# address of that device, server and client both here); on a machine without
# one, inside the Soft-RoCE VM (scripts/softroce-vm), which it boots itself.
#
# The full sweep over block sizes and queue depths, with charts and a report,
# is the job of the matrix runner (scripts/run_matrix.sh, upcoming).
set -euo pipefail

PROG=${0##*/}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
RUNTIME=5
RAMP=1
BS=4k
REPEATS=1
OUT=
SERVER_IP=
IN_VM=0
VM_ARGS=()

usage() {
	cat <<EOF
Usage: $PROG [OPTIONS]

Compare the persistency methods APM and GPSPM (busy-polling and sleeping
server) with the rpma-fio engines: 4 KiB random writes at iodepth 1 (sync=1,
latency) and iodepth 16 (batches of 16, throughput).

Options:
  --runtime S        seconds of each measured run (default $RUNTIME)
  --ramp S           seconds of warm-up before each run (default $RAMP)
  --bs SIZE          block size (default $BS)
  --repeats N        run every point N times and report the median (default $REPEATS)
  --server-ip ADDR   use the local RDMA device with this address (default: if the
                     machine has no RDMA device, run everything in the Soft-RoCE VM)
  --out DIR          where to keep fio's JSON and the CSV
                     (default build/compare/<date-time>)
  --vm-kernel V      the VM's kernel: 6.1 (default) or 6.12
  -h, --help         this help

Needs: fio, jq, and the engines (make engines). Example:
  scripts/deps.sh && make engines && $PROG
EOF
}

die() {
	echo "$PROG: error: $*" >&2
	exit 2
}

parse_args() {
	while [ $# -gt 0 ]; do
		case "$1" in
		--runtime) RUNTIME=${2:?--runtime needs a value}; shift ;;
		--ramp) RAMP=${2:?--ramp needs a value}; shift ;;
		--bs) BS=${2:?--bs needs a value}; shift ;;
		--repeats) REPEATS=${2:?--repeats needs a value}; shift ;;
		--server-ip) SERVER_IP=${2:?--server-ip needs a value}; shift ;;
		--out) OUT=${2:?--out needs a value}; shift ;;
		--vm-kernel) VM_ARGS+=(--kernel "${2:?--vm-kernel needs a value}"); shift ;;
		--in-vm) IN_VM=1 ;;
		-h|--help) usage; exit 0 ;;
		*) die "unknown option '$1' (see --help)" ;;
		esac
		shift
	done
	[[ $RUNTIME =~ ^[1-9][0-9]*$ ]] || die "--runtime: '$RUNTIME' is not a whole number of seconds"
	[[ $RAMP =~ ^[0-9]+$ ]] || die "--ramp: '$RAMP' is not a whole number of seconds"
	[[ $REPEATS =~ ^[1-9][0-9]*$ ]] || die "--repeats: '$REPEATS' is not a positive number"
	[[ $BS =~ ^[1-9][0-9]*[kKmM]?$ ]] || die "--bs: '$BS' is not a size like 4k or 64k"
}

check_tools() {
	command -v fio >/dev/null || die "fio is missing: run scripts/deps.sh"
	command -v jq >/dev/null || die "jq is missing: run scripts/deps.sh"
	local so
	for so in build/librpma_apm.so build/librpma_gpspm.so; do
		[ -f "$ROOT/$so" ] || die "$so is missing: run make engines"
	done
}

has_rdma_device() {
	compgen -G '/sys/class/infiniband/*' >/dev/null
}

# One server + client run. Prints "iops lat_mean_us clat_p99_us" of the client.
run_point() {
	local method=$1 server_busy=$2 iodepth=$3 batch=$4 sync=$5 json=$6 port=$7
	local slog=${json%.json}.server.log
	local vars=(SERVER_IP="$SERVER_IP" PORT="$port" RUNTIME="${RUNTIME}s" RAMP="${RAMP}s"
		BS="$BS" IODEPTH="$iodepth" BATCH="$batch" SYNC="$sync" SERVER_IODEPTH=64
		SERVER_BUSY_WAIT="$server_busy" NUMJOBS=1)
	env "${vars[@]}" timeout $((RUNTIME + RAMP + 60)) fio jobs/"$method"-server.fio \
		>"$slog" 2>&1 &
	local spid=$! waited=0
	until grep -q 'listening on' "$slog" 2>/dev/null; do
		kill -0 "$spid" 2>/dev/null || { cat "$slog" >&2; die "the $method server did not start"; }
		[ $waited -lt 300 ] || die "the $method server did not listen within 30 s"
		sleep 0.1
		waited=$((waited + 1))
	done
	if ! env "${vars[@]}" timeout $((RUNTIME + RAMP + 60)) fio \
			--ioengine=external:build/librpma_"$method".so jobs/randwrite.fio \
			--output-format=json --output="$json" >"${json%.json}.client.log" 2>&1; then
		kill "$spid" 2>/dev/null || true
		cat "${json%.json}.client.log" >&2
		die "the $method client failed (see $json)"
	fi
	wait "$spid" || die "the $method server failed (see $slog)"
	jq -r '.jobs[0].write | "\(.iops) \(.lat_ns.mean / 1000) \((.clat_ns.percentile["99.000000"] // 0) / 1000)"' "$json"
}

# Median of the numbers on stdin.
median() {
	sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

measure() {
	[ -n "$OUT" ] || OUT=$ROOT/build/compare/$(date +%Y%m%d-%H%M%S)
	mkdir -p "$OUT"
	local csv=$OUT/results.csv
	echo "method,server,iodepth,batch,sync,bs,iops,lat_mean_us,clat_p99_us" >"$csv"
	# method | server polling | label
	local methods=("apm 0 APM" "gpspm 1 GPSPM-busy" "gpspm 0 GPSPM-sleep")
	local points=("1 1 1 latency" "16 16 0 throughput")
	local total=$((${#methods[@]} * ${#points[@]} * REPEATS)) k=0 port=7400
	for p in "${points[@]}"; do
		read -r qd batch sync _ <<<"$p"
		for m in "${methods[@]}"; do
			read -r method busy label <<<"$m"
			local runs=()
			for ((r = 1; r <= REPEATS; r++)); do
				k=$((k + 1))
				port=$((port + 1))
				printf '[%d/%d] %-12s iodepth %-3s run %d/%d\n' "$k" "$total" "$label" "$qd" "$r" "$REPEATS" >&2
				runs+=("$(run_point "$method" "$busy" "$qd" "$batch" "$sync" \
					"$OUT/$label-qd$qd-run$r.json" "$port")")
			done
			local iops lat p99
			iops=$(printf '%s\n' "${runs[@]}" | awk '{print $1}' | median)
			lat=$(printf '%s\n' "${runs[@]}" | awk '{print $2}' | median)
			p99=$(printf '%s\n' "${runs[@]}" | awk '{print $3}' | median)
			echo "$label,$([ "$busy" = 1 ] && echo busy || echo sleep),$qd,$batch,$sync,$BS,$iops,$lat,$p99" >>"$csv"
		done
	done
	report "$csv"
}

report() {
	local csv=$1
	echo
	echo "random write, bs $BS, ${RUNTIME}s per run, median of $REPEATS run(s); ratios against APM"
	awk -F, 'NR == 1 { next }
		{ key = $3; if ($1 == "APM") { base_iops[key] = $7; base_lat[key] = $8 } row[NR] = $0 }
		END {
			printf "%-12s %7s %10s %7s %12s %7s %12s\n", "method", "iodepth", "IOPS", "x APM", "lat mean us", "x APM", "clat p99 us"
			for (i = 2; i <= NR; i++) {
				split(row[i], f, ",")
				printf "%-12s %7s %10.0f %7.2f %12.1f %7.2f %12.1f\n", f[1], f[3], f[7],
					f[7] / base_iops[f[3]], f[8], f[8] / base_lat[f[3]], f[9]
			}
		}' "$csv"
	echo
	echo "raw fio JSON and results.csv: $OUT"
}

main() {
	parse_args "$@"
	cd "$ROOT"
	check_tools
	if [ "$IN_VM" = 1 ]; then
		SERVER_IP=${RPMA_TEST_ADDR:?not inside the Soft-RoCE VM}
		measure
		return
	fi
	if [ -n "$SERVER_IP" ]; then
		measure
		return
	fi
	if has_rdma_device; then
		die "this machine has an RDMA device: give its address with --server-ip"
	fi
	echo "$PROG: no RDMA device here: running in the Soft-RoCE VM (scripts/softroce-vm)" >&2
	local args=(--in-vm --runtime "$RUNTIME" --ramp "$RAMP" --bs "$BS" --repeats "$REPEATS")
	[ -z "$OUT" ] || args+=(--out "$OUT")
	exec scripts/softroce-vm run "${VM_ARGS[@]}" -q --timeout 1800 -- scripts/compare-methods.sh "${args[@]}"
}

main "$@"
