#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# bench_clients.sh -- what a GPSPM server spends to serve 1, 2, 4, 8 clients: ours as
# one job serving them all from one thread (clients_per_job=N), busy polling and
# sleeping, against fio 3.33's server (the peer), a busy-polling job per client.
# The clients are the same in every run (ours, N jobs, 4 KiB random writes at depth 8
# in batches of 8, each a fixed number of I/Os, sleeping on their completions so that
# the servers have the CPUs); the servers take turns round by round (a slow period of
# the host hits all). Per run: the clients' IOPS, the server's CPU time (fio's usr + sys
# of its jobs over their runtime) and that time per I/O. Writes clients.tsv (a line a
# run) and clients.md (medians). make bench runs it; docs/matrix.md, "One GPSPM server
# for many clients".
set -euo pipefail

PROG=${0##*/}
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/matrix/bench_lib.sh
. "$ROOT/scripts/matrix/bench_lib.sh"

BENCH=clients OUT='' ROUNDS=3 IOS=4000 COUNTS=1,2,4,8 PORT_BASE=7800 PORT_STEP=64 CONTROL=''
BENCH_OPTIONS=(--ios=IOS --clients=COUNTS --control=CONTROL)
SERVERS=(hub-busy hub-sleep peer-busy)
PEER_FIO=build/peer/fio

usage() {
	cat <<EOF
Usage: $PROG [--out DIR] [--rounds N] [--ios N] [--clients LIST] [--control ENGINE]
       [--dry-run]

A GPSPM server's CPU for 1, 2, 4, 8 clients (--clients, default $COUNTS): ours as one
job for all of them (clients_per_job=N; busy polling, then sleeping) and fio 3.33's
(a busy-polling job per client), --rounds rounds (default $ROUNDS), each client
writing --ios 4 KiB blocks (default $IOS) at depth 8. --control ENGINE adds ours as
another build of librpma_gpspm.so (e.g. of an earlier commit: a change's cost measured
in the same run), busy and sleeping, taking turns with the rest. In the Soft-RoCE VM when this
machine has no RDMA device (needs make engines peer). Writes DIR/clients.tsv and
DIR/clients.md (default build/bench/clients-<date-time>). --dry-run prints the command
the VM would run, and exits.
EOF
}

check_args() {
	[[ $IOS =~ ^[1-9][0-9]*$ ]] || die "--ios: '$IOS' is not a positive number of I/Os"
	[[ $COUNTS =~ ^[1-9][0-9]?(,[1-9][0-9]?)*$ ]] ||
		die "--clients: '$COUNTS' is not a list of client counts in 1..64 (e.g. 1,2,4,8)"
	local n
	for n in ${COUNTS//,/ }; do
		[ "$n" -le 64 ] || die "--clients: $n clients: a server job serves at most 64"
	done
	if [ -n "$CONTROL" ]; then
		[ -f "$CONTROL" ] || die "--control: '$CONTROL' is not a file (a build of librpma_gpspm.so)"
		case $CONTROL in /*) ;; *) CONTROL=$PWD/$CONTROL ;; esac
		SERVERS+=(hub-busy-control hub-sleep-control)
	fi
}

# A round's runs (N SERVER): each client count, the servers taking turns
round_runs() {
	local n server
	for n in ${COUNTS//,/ }; do
		for server in "${SERVERS[@]}"; do echo "$n $server"; done
	done
}

# the server of SERVER for N clients on PORT (its output: STEM.server.json/.log)
start_server() { # SERVER N PORT STEM
	local server=$1 n=$2 port=$3 stem=$4
	case $server in
	hub-*)
		local busy=1 job=jobs/gpspm-server.fio
		[[ $server == hub-busy* ]] || busy=0
		if [[ $server == *-control ]]; then
			# (the job file's ioengine= wins over the command line's)
			job=$OUT/control-server.fio
			sed "s|^ioengine=.*|ioengine=external:$CONTROL|" jobs/gpspm-server.fio >"$job"
		fi
		BENCH_SERVER_JOB=$job bench_gpspm_server "$stem" "$port" 300 SERVER_BUSY_WAIT="$busy" \
			SERVER_IODEPTH=8 NUMJOBS=1 CLIENTS_PER_JOB="$n"
		;;
	peer-busy)
		# (from a folder of its own: fio 3.33 creates a file named after filename=malloc
		# in its working directory, its jobs one at a time or they race on it)
		mkdir -p "$OUT/peer-cwd"
		(cd "$OUT/peer-cwd" && exec timeout 300 "$ROOT/$PEER_FIO" --name=server --ioengine=librpma_gpspm_server \
			--serverip="$SERVER_IP" --port="$port" --numjobs="$n" --create_serialize=1 --thread \
			--filename=malloc --size=16m --direct_write_to_pmem=0 --iodepth=8 \
			--busy_wait_polling=1 --time_based --runtime=365d --output-format=json \
			--output="$stem.server.json") >"$stem.server.log" 2>&1 &
		MATRIX_SPID=$!
		;;
	esac
}

# One run: SERVER for N clients; a line of clients.tsv
run_one() { # ROUND N SERVER PORT
	local round=$1 n=$2 server=$3 port=$4 stem rc=0
	stem=$OUT/runs/r$round-c$n-$server
	echo "[round $round/$ROUNDS] $n client(s), server $server" >&2
	start_server "$server" "$n" "$port" "$stem"
	# (lib.sh: the servers' RDMA CM IDs listening, whatever they print)
	wait_listening "$port" "$n" 30 ||
		{ bench_not_listening "$server, $n clients" "$stem"; return 1; }
	bench_gpspm_client "$stem" "$port" 300 IODEPTH=8 BATCH=8 BATCH_COMPLETE=8 SYNC=0 NUMJOBS="$n" \
		BUSY_WAIT=0 TIME_BASED=0 NUMBER_IOS="$IOS" RAMP=0s RUNTIME=120s SERVER_SIZE=16m \
		--group_reporting=1 || rc=$?
	# (the peer's server jobs end when their clients have gone)
	bench_run_done "$rc" "$stem" "$round" "$n" "$server"
}

main() {
	bench_args "$@"
	check_args
	[ "$IN_VM" = 1 ] || [ "$DRY_RUN" = 1 ] || [ -x "$ROOT/$PEER_FIO" ] ||
		die "$PEER_FIO is missing: run make peer"
	bench_run clients-bench
}

main "$@"
