#!/usr/bin/env bash
# tests/e2e/engines.sh -- the fio engines over real Soft-RoCE, inside the VM:
#
#   scripts/softroce-vm run --pmem --timeout 900 -- tests/e2e/engines.sh
#
# Server (fio jobs/<method>-server.fio) and client (fio --ioengine=external:...
# jobs/<workload>.fio) run in the same guest; every run is short (RUNTIME=1s,
# no ramp), and the tests that need nothing of their own run as sections of one
# client process against one server process (fio_group): a fio process costs
# seconds under TCG. Covered: every workload at small and large block sizes, iodepth 1
# and more, sync=1 and batched, DRAM, device DAX and a plain file, several jobs,
# both completion modes, fio's verify (write, then read back and check),
# the mission's command lines verbatim, two servers on one device DAX, and the
# failures: no server, bad option values, bad server memory, a server or a client
# killed mid-run.
#
# ENGINE_METHODS="apm" picks the methods (default: every engine built). The methods
# run side by side, a lane each (ports apart): a fio process starting under TCG keeps
# one vCPU busy while its peer mostly waits. What the lanes share -- the defaults'
# port 7204, the device DAX, the fsdax file system -- one lane at a time (e2e_lock).
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/e2e/lib.sh
e2e_in_vm

# every run short; the engines' defaults for the other variables
# GPSPM servers sleep on their completion channel unless a test asks otherwise:
# two busy-polling servers and their clients starve on the VM's two vCPUs.
COMMON_VARS=("SERVER_IP=$A" RUNTIME=1s RAMP=0 SERVER_BUSY_WAIT=0)
# the job files' variables, for runs that must not see any
JOB_VARS="SERVER_IP PORT NUMJOBS CONNECT_TIMEOUT BS IODEPTH BATCH BATCH_COMPLETE SYNC RUNTIME RAMP TIME_BASED NUMBER_IOS RWMIXREAD
	BUSY_WAIT SERVER_MEM SERVER_SIZE SERVER_MEM_OFFSET DIRECT_WRITE_TO_PMEM ALLOW_CLIENTS SECRET_FILE"

# Runs a server and one client of method $METHOD. Commands are built with
# e2e_setup (from lib.sh); @PORT@ is the test's own base port.
#
#   fio_pair NAME CHECK 'SERVER_VARS' 'CLIENT_VARS' CLIENT_ARGS...
#
# The server runs jobs/$METHOD-server.fio with COMMON_VARS PORT=@PORT@ SERVER_VARS
# (and the command-line options in FIO_SERVER_ARGS, if set);
# the client runs fio --ioengine=external:build/librpma_$METHOD.so CLIENT_ARGS
# with COMMON_VARS PORT=@PORT@ CLIENT_VARS and JSON output. Both must exit 0,
# the client's JSON must show I/O in the directions of CHECK (read, write,
# readwrite) and no error, and the client's stderr must not match /ERROR/.
# Prints the client's IOPS and mean clat/lat per direction (fio_perf, lib.sh).
fio_pair() {
	local name=$1 check=$2 svars=$3 cvars=$4 status=0
	e2e_wanted "$METHOD-$name" || return 0
	shift 4
	# shellcheck disable=SC2086 # the variable lists are meant to be split
	e2e_setup "$METHOD-$name" env "${COMMON_VARS[@]}" PORT=@PORT@ $svars fio ${FIO_SERVER_ARGS:-} \
		"jobs/$METHOD-server.fio" -- \
		env "${COMMON_VARS[@]}" PORT=@PORT@ $cvars fio --ioengine=external:"$ENGINE" "$@" \
		--output-format=json --output="@DIR@/client.json"
	E2E_CLIENT=("${E2E_CLIENT[@]//@DIR@/$E2E_DIR}")
	E2E_PORT=$((E2E_PORT + 4)) # room for NUMJOBS ports
	timeout "$E2E_STEP_TIMEOUT" "${E2E_SERVER[@]}" >"$E2E_DIR/server.log" 2>&1 &
	local spid=$!
	if e2e_wait_line "$E2E_DIR/server.log" 'listening on' "$E2E_READY_TIMEOUT"; then
		timeout "$E2E_STEP_TIMEOUT" "${E2E_CLIENT[@]}" >"$E2E_DIR/client.log" 2>&1 || status=$?
		[ "$status" -eq 0 ] || echo "  the client exited with $status" >>"$E2E_DIR/why"
	else
		echo "  the server did not listen within $E2E_READY_TIMEOUT s" >>"$E2E_DIR/why"
		status=1
		kill "$spid" 2>/dev/null
	fi
	local sstatus=0
	wait "$spid" || sstatus=$?
	if [ "$sstatus" -ne 0 ]; then
		echo "  the server exited with $sstatus" >>"$E2E_DIR/why"
		status=1
	fi
	[ "$status" -eq 0 ] && { fio_check_json "$check" || status=1; }
	if [ "$status" -eq 0 ] && grep -q 'ERROR' "$E2E_DIR/client.log" "$E2E_DIR/server.log"; then
		echo "  an error was logged" >>"$E2E_DIR/why"
		status=1
	fi
	e2e_result "$METHOD-$name" "$status"
	[ "$status" -eq 0 ] && fio_perf "$check"
	e2e_show_logs_if "$status"
	[ "$status" -ne 0 ] && [ -f "$E2E_DIR/client.json" ] && sed 's/^/  | /' "$E2E_DIR/client.json" | head -40
	return 0
}

# The client's JSON shows bytes moved in each direction of $1 and no error.
fio_check_json() {
	local json=$E2E_DIR/client.json dir
	if ! jq -e '.jobs[0].error == 0' "$json" >/dev/null 2>&1; then
		echo "  the client's JSON shows an error (or is missing)" >>"$E2E_DIR/why"
		return 1
	fi
	for dir in $(fio_dirs "$1"); do
		if ! jq -e ".jobs[0].$dir.io_bytes > 0" "$json" >/dev/null; then
			echo "  the client did no $dir" >>"$E2E_DIR/why"
			return 1
		fi
	done
}

fio_dirs() {
	case $1 in
	readwrite) echo read write ;;
	*) echo "$1" ;;
	esac
}

# fio_fails NAME EXPECT_REGEX MAX_SECONDS CMD...
# CMD (one fio run, or a server) must fail by itself -- non-zero, not killed by
# the timeout -- within MAX_SECONDS, saying why in output matching EXPECT_REGEX.
fio_fails() {
	local name=$1 expect=$2 max=$3 status=0 rc=0
	e2e_wanted "$METHOD-$name" || return 0
	shift 3
	e2e_setup "$METHOD-$name" "$@" --
	E2E_PORT=$((E2E_PORT + 4))
	local t0=$SECONDS
	timeout "$E2E_STEP_TIMEOUT" "${E2E_SERVER[@]}" >"$E2E_DIR/server.log" 2>&1 || rc=$?
	local took=$((SECONDS - t0))
	if [ "$rc" -eq 0 ] || [ "$rc" -eq 124 ]; then
		echo "  exited with $rc; it should have failed by itself" >>"$E2E_DIR/why"
		status=1
	elif ! grep -Eq "$expect" "$E2E_DIR/server.log"; then
		echo "  the output does not match /$expect/" >>"$E2E_DIR/why"
		status=1
	elif [ "$took" -gt "$max" ]; then
		echo "  it took $took s to fail (at most $max s expected)" >>"$E2E_DIR/why"
		status=1
	fi
	e2e_result "$METHOD-$name" "$status"
	e2e_show_logs_if "$status"
	return 0
}

# fio_kill NAME VICTIM(server|client|sigint) EXPECT_REGEX MAX_SECONDS 'SERVER_VARS' 'CLIENT_VARS' CLIENT_ARGS...
# Runs a long client against its server, SIGKILLs VICTIM once I/O is flowing,
# then the survivor must end by itself within MAX_SECONDS: a client with a
# non-zero status and a message matching EXPECT_REGEX, a server with status 0.
# sigint: the server is frozen (SIGSTOP: it goes silent, its connection stays)
# and the client gets Ctrl-C's SIGINT: it must end within MAX_SECONDS all the same.
fio_kill() {
	local name=$1 victim=$2 expect=$3 max=$4 svars=$5 cvars=$6 status=0
	e2e_wanted "$METHOD-$name" || return 0
	shift 6
	# shellcheck disable=SC2086
	e2e_setup "$METHOD-$name" env "${COMMON_VARS[@]}" RUNTIME=60s PORT=@PORT@ $svars \
		fio "jobs/$METHOD-server.fio" -- \
		env "${COMMON_VARS[@]}" RUNTIME=60s PORT=@PORT@ $cvars fio --ioengine=external:"$ENGINE" "$@"
	local port=$E2E_PORT
	E2E_PORT=$((E2E_PORT + 4))
	"${E2E_SERVER[@]}" >"$E2E_DIR/server.log" 2>&1 &
	local spid=$!
	if ! e2e_wait_line "$E2E_DIR/server.log" 'listening on' "$E2E_READY_TIMEOUT"; then
		echo "  the server did not listen" >>"$E2E_DIR/why"
		kill -KILL "$spid" 2>/dev/null
		wait "$spid" 2>/dev/null
		e2e_result "$METHOD-$name" 1
		e2e_show_logs_if 1
		return 0
	fi
	"${E2E_CLIENT[@]}" >"$E2E_DIR/client.log" 2>&1 &
	local cpid=$! vpid spid2 survivor survivor_log
	if [ "$victim" = client ]; then
		vpid=$cpid survivor=$spid survivor_log=$E2E_DIR/server.log
	else
		vpid=$spid survivor=$cpid survivor_log=$E2E_DIR/client.log
	fi
	e2e_wait_io "$port" "$A" 20 || { echo "  no I/O flowed within 20 s" >>"$E2E_DIR/why"; status=1; }
	if [ "$victim" = sigint ]; then
		kill -STOP "$spid" 2>/dev/null
		sleep 0.5 # the client's I/O now waits for the frozen server
		kill -INT "$cpid" 2>/dev/null
	else
		kill -KILL "$vpid" 2>/dev/null
		wait "$vpid" 2>/dev/null
	fi
	local t0=$SECONDS rc=0 waited=0
	while kill -0 "$survivor" 2>/dev/null && [ "$waited" -lt $((max * 10)) ]; do
		nap 0.1
		waited=$((waited + 1))
	done
	if kill -0 "$survivor" 2>/dev/null; then
		echo "  the $([ "$victim" = server ] && echo client || echo server) still runs" \
			"$max s after the $victim was killed" >>"$E2E_DIR/why"
		kill -KILL "$survivor" 2>/dev/null
		status=1
	fi
	wait "$survivor" 2>/dev/null || rc=$?
	spid2=$((SECONDS - t0))
	if [ "$victim" = sigint ]; then
		kill -CONT "$spid" 2>/dev/null
		kill -KILL "$spid" 2>/dev/null
		wait "$spid" 2>/dev/null
	elif [ "$victim" = server ]; then
		if [ "$rc" -eq 0 ]; then
			echo "  the client exited with 0 although its server was killed" >>"$E2E_DIR/why"
			status=1
		fi
	elif [ "$rc" -ne 0 ]; then
		echo "  the server exited with $rc after its client was killed" >>"$E2E_DIR/why"
		status=1
	fi
	if ! grep -Eq "$expect" "$survivor_log"; then
		echo "  the survivor's output does not match /$expect/" >>"$E2E_DIR/why"
		status=1
	fi
	e2e_result "$METHOD-$name" "$status"
	[ "$status" -eq 0 ] && echo "  the survivor ended ${spid2} s after the kill"
	e2e_show_logs_if "$status"
	return 0
}

# client_refused NAME EXPECT_REGEX CLIENT_ARGS...: a server of 8 MiB, and a client
# job (jobs/write.fio + CLIENT_ARGS) it cannot serve: the client fails, naming the
# reason, before any I/O; the server ends cleanly when its client leaves.
client_refused() {
	local name=$1 expect=$2 status=0 rc=0
	e2e_wanted "$METHOD-$name" || return 0
	shift 2
	e2e_setup "$METHOD-$name" env "${COMMON_VARS[@]}" PORT=@PORT@ SERVER_SIZE=8m \
		fio "jobs/$METHOD-server.fio" -- \
		env "${COMMON_VARS[@]}" PORT=@PORT@ fio --ioengine=external:"$ENGINE" jobs/write.fio "$@"
	E2E_PORT=$((E2E_PORT + 4))
	timeout "$E2E_STEP_TIMEOUT" "${E2E_SERVER[@]}" >"$E2E_DIR/server.log" 2>&1 &
	local spid=$!
	e2e_wait_line "$E2E_DIR/server.log" 'listening on' "$E2E_READY_TIMEOUT" || status=1
	timeout "$E2E_STEP_TIMEOUT" "${E2E_CLIENT[@]}" >"$E2E_DIR/client.log" 2>&1 || rc=$?
	wait "$spid" || status=1
	{ [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ]; } || status=1
	grep -Eq "$expect" "$E2E_DIR/client.log" || status=1
	if grep -Eq '(WRITE|READ): bw=[1-9]' "$E2E_DIR/client.log"; then
		echo "  the client did I/O" >>"$E2E_DIR/why"
		status=1
	fi
	e2e_result "$METHOD-$name" "$status"
	e2e_show_logs_if "$status"
}

# Two servers on the device DAX (issue 26; run under e2e_lock devdax). A second server
# on the first's bytes -- the default layout puts both at 0 -- fails at once, naming
# both ranges, while the first serves its client all the same; a third, with
# SERVER_MEM_OFFSET past the first's bytes, listens and serves too. One client process
# with two jobs: job 1 (PORT) connects to the first server, job 2 (PORT + 1) to the third.
devdax_two_servers() {
	e2e_wanted "$METHOD-devdax-overlap-refused" || e2e_wanted "$METHOD-devdax-mem-offset-disjoint" ||
		return 0
	local refused=0 disjoint=0 rc=0 t0 took overlap offset log
	local expect="filename=$DAX: this job's bytes \[0, 67108864\) overlap bytes \[0, 67108864\) held by another server job or process: give each server its own range with mem_offset="
	e2e_setup "$METHOD-devdax-two-servers" -- # (a folder and ports of its own)
	local port=$E2E_PORT dir=$E2E_DIR
	E2E_PORT=$((E2E_PORT + 4))
	local server=(env "${COMMON_VARS[@]}" SERVER_MEM="$DAX" SERVER_SIZE=64m)
	E2E_SERVER=("${server[@]}" PORT="$port" fio "jobs/$METHOD-server.fio")
	E2E_CLIENT=(env "${COMMON_VARS[@]}" PORT="$port" NUMJOBS=2 CONNECT_TIMEOUT=10000
		fio --ioengine=external:"$ENGINE" jobs/randwrite.fio)
	timeout "$E2E_STEP_TIMEOUT" "${E2E_SERVER[@]}" >"$dir/server.log" 2>&1 &
	local first=$!
	if ! e2e_wait_line "$dir/server.log" 'listening on' "$E2E_READY_TIMEOUT" "$first"; then
		echo "  the first server did not listen within $E2E_READY_TIMEOUT s" >>"$dir/why"
		wait_bounded "$first" 0
		refused=1 disjoint=1
	else
		# the third (bytes [64m, 128m)) and the second (bytes [0, 64m) again) start together
		timeout "$E2E_STEP_TIMEOUT" "${server[@]}" PORT=$((port + 1)) SERVER_MEM_OFFSET=64m \
			fio "jobs/$METHOD-server.fio" >"$dir/server-offset.log" 2>&1 &
		offset=$!
		t0=$SECONDS
		timeout "$E2E_STEP_TIMEOUT" "${server[@]}" PORT=$((port + 2)) \
			fio "jobs/$METHOD-server.fio" >"$dir/server-overlap.log" 2>&1 &
		overlap=$!
		# (one that listened instead would wait for a client: 10 s at most)
		e2e_wait_line "$dir/server-overlap.log" 'listening on' 10 "$overlap"
		wait_bounded "$overlap" 0 || rc=$?
		took=$((SECONDS - t0))
		if grep -q 'listening on' "$dir/server-overlap.log" || [ "$rc" -eq 124 ]; then
			echo "  the second server did not fail on the first's bytes within 10 s" >>"$dir/why"
			refused=1
		elif [ "$rc" -eq 0 ]; then
			echo "  the second server exited with 0; it should have failed" >>"$dir/why"
			refused=1
		elif ! grep -Eq "$expect" "$dir/server-overlap.log"; then
			echo "  the second server's output does not match /$expect/" >>"$dir/why"
			refused=1
		fi
		if ! e2e_wait_line "$dir/server-offset.log" 'listening on' "$E2E_READY_TIMEOUT" "$offset"; then
			echo "  the server with SERVER_MEM_OFFSET=64m did not listen" >>"$dir/why"
			disjoint=1
		fi
		rc=0
		timeout "$E2E_STEP_TIMEOUT" "${E2E_CLIENT[@]}" >"$dir/client.log" 2>&1 || rc=$?
		if [ "$rc" -ne 0 ] || ! grep -q 'WRITE: bw=' "$dir/client.log"; then
			echo "  the client (job 1 to the first server, job 2 to the third) exited with $rc" >>"$dir/why"
			refused=1 disjoint=1
		fi
		# each ends once its client has gone: status 0 says it served one
		rc=0
		wait_bounded "$first" 10 || rc=$?
		[ "$rc" -eq 0 ] || { echo "  the first server exited with $rc" >>"$dir/why"; refused=1; }
		rc=0
		wait_bounded "$offset" 10 || rc=$?
		[ "$rc" -eq 0 ] || { echo "  the third server exited with $rc" >>"$dir/why"; disjoint=1; }
	fi
	e2e_result "$METHOD-devdax-overlap-refused" "$refused"
	[ "$refused" -eq 0 ] && echo "  the second server failed after ${took} s, naming both ranges"
	e2e_result "$METHOD-devdax-mem-offset-disjoint" "$disjoint"
	if [ "$refused" -ne 0 ] || [ "$disjoint" -ne 0 ] || [ "${E2E_VERBOSE:-0}" = 1 ]; then
		e2e_show_logs
		for log in "$dir/server-overlap.log" "$dir/server-offset.log"; do
			[ -e "$log" ] || continue
			echo "  --- $(basename "$log" .log):"
			sed 's/^/  | /' "$log"
		done
	fi
	return 0
}

# What the methods share (the defaults' port 7204, the device DAX): the first
# method's lane runs it first, the others last, so that they seldom wait for it.
engine_shared_part() {
	local DAX=${RPMA_TEST_DEVDAX:-}
	# --- the mission's command lines, verbatim, with nothing set but the server's
	# address (all defaults: port 7204, 4k, sync, 10 s + 2 s ramp) ---
	local unset_vars=() v
	for v in $JOB_VARS; do unset_vars+=(-u "$v"); done
	e2e_setup "$METHOD-mission-command-verbatim" \
		env "${unset_vars[@]}" SERVER_IP="$A" fio "jobs/$METHOD-server.fio" -- \
		env "${unset_vars[@]}" SERVER_IP="$A" fio --ioengine=external:"$ENGINE" jobs/write.fio
	if e2e_wanted "$METHOD-mission-command-verbatim"; then
		e2e_lock shared-port
		timeout "$E2E_STEP_TIMEOUT" "${E2E_SERVER[@]}" >"$E2E_DIR/server.log" 2>&1 &
		local spid=$! status=0
		e2e_wait_line "$E2E_DIR/server.log" "listening on $A:7204" \
			"$E2E_READY_TIMEOUT" || status=1
		timeout "$E2E_STEP_TIMEOUT" "${E2E_CLIENT[@]}" >"$E2E_DIR/client.log" 2>&1 || status=1
		wait "$spid" || status=1
		e2e_unlock
		grep -Eq 'WRITE: bw=.*run=1[0-9]{4}-' "$E2E_DIR/client.log" || status=1
		grep -q 'bs=(R) 4096B-4096B' "$E2E_DIR/client.log" || status=1
		e2e_result "$METHOD-mission-command-verbatim" "$status"
		[ "$status" -eq 0 ] && grep -E '^ +(write: IOPS|clat \(|lat \()' "$E2E_DIR/client.log"
		e2e_show_logs_if "$status"
	fi

	# --- device DAX (persistent flush type: the server advertises direct write) ---
	if [ -n "$DAX" ]; then
		e2e_lock devdax
		local dax="SERVER_MEM=$DAX SERVER_SIZE=64m DIRECT_WRITE_TO_PMEM=1"
		# (three server jobs: bytes 0-64m, 64m-128m, 128m-192m of the device)
		fio_group devdax-workloads "$dax" \
			'devdax-randwrite-4k-sync write rw=randwrite' \
			'devdax-write-128k-qd16-batch16 write rw=write sync=0 bs=128k iodepth=16 iodepth_batch_submit=16' \
			'devdax-randread-4k-qd8 read rw=randread sync=0 iodepth=8 iodepth_batch_submit=8'
		fio_pair devdax-rw-4k-2jobs readwrite "$dax NUMJOBS=2" 'NUMJOBS=2' jobs/rw.fio
		# the positive fact, per method: APM's client flushed (its count of flushes)
		# with the persistent type (no note of a visibility flush); GPSPM's server
		# persisted bytes it was asked to (a non-zero count of each)
		local pair_dir=$E2E_TMP/$METHOD-devdax-rw-4k-2jobs persistent=1
		if [ "$METHOD" = apm ]; then
			grep -Eq '[1-9][0-9]* flushes: ' "$pair_dir/client.log" 2>/dev/null &&
				! grep -q 'does not advertise direct write' "$pair_dir/client.log" && persistent=0
		else
			grep -Eq 'served [1-9][0-9]* flush requests \([1-9][0-9]* bytes persisted\)' \
				"$pair_dir/server.log" 2>/dev/null && persistent=0
		fi
		e2e_wanted "$METHOD-devdax-rw-4k-2jobs" && e2e_result "$METHOD-devdax-flushes-persistent" "$persistent"
		# the region locks are the methods' shared code (engines/server/setup.c): once
		if [ "$METHOD" = "$FIRST_METHOD" ]; then devdax_two_servers; fi
		e2e_unlock
	fi
	# --- fio's verify on device DAX (on DRAM: sections of dram-workloads above) ---
	if [ -n "$DAX" ]; then
		e2e_lock devdax
		local verify=(--name=verify --serverip="$A" --port=@PORT@ --create_serialize=0 --thread
			--size=8m --verify=crc32c --do_verify=1 --verify_fatal=1 --verify_state_save=0)
		fio_pair devdax-verify-randwrite-16k-qd8 readwrite \
			"SERVER_MEM=$DAX SERVER_SIZE=64m DIRECT_WRITE_TO_PMEM=1" '' "${verify[@]}" \
			--rw=randwrite --bs=16k --iodepth=8 --iodepth_batch_submit=8
		e2e_unlock
	fi

}

# A client started 3 s before its server retries until the server listens (RoCE:
# rejections; iWARP: a TCP refusal at once) and then runs.
client_starts_first() {
	e2e_setup "$METHOD-client-starts-first" env "${COMMON_VARS[@]}" PORT=@PORT@ fio "jobs/$METHOD-server.fio" -- \
		env "${COMMON_VARS[@]}" PORT=@PORT@ CONNECT_TIMEOUT=20000 fio --ioengine=external:"$ENGINE" \
		jobs/randwrite.fio
	E2E_PORT=$((E2E_PORT + 4))
	local cpid status=0
	timeout "$E2E_STEP_TIMEOUT" "${E2E_CLIENT[@]}" >"$E2E_DIR/client.log" 2>&1 &
	cpid=$!
	sleep 3
	timeout "$E2E_STEP_TIMEOUT" "${E2E_SERVER[@]}" >"$E2E_DIR/server.log" 2>&1 || status=1
	wait "$cpid" || status=1
	grep -q 'WRITE: bw=' "$E2E_DIR/client.log" || status=1
	e2e_result "$METHOD-client-starts-first" "$status"
	e2e_show_logs_if "$status"
}

engine_own_part() {
	local DAX=${RPMA_TEST_DEVDAX:-}
	# --- on DRAM, one server process and one client process for all of these
	# (fio_group): every workload at 4 KiB with sync=1 (the defaults); large blocks,
	# iodepth > 1, batched (one flush per batch); a batch larger than what completes
	# at once (fio reaps 1 at a time); the completion channel instead of busy polling;
	# fio's verify (write with checksums, then read everything back and check: a
	# mismatch is the section's error), sync, batched and sleeping on the channel
	local verify_opts='size=8m time_based=0 runtime=0 verify=crc32c do_verify=1 verify_fatal=1 verify_state_save=0'
	fio_group dram-workloads '' \
		'write-4k-sync write rw=write' \
		'randwrite-4k-sync write rw=randwrite' \
		'read-4k-sync read rw=read' \
		'randread-4k-sync read rw=randread' \
		'rw-4k-sync readwrite rw=rw rwmixread=70' \
		"write-256k-qd16-batch16 write rw=write sync=0 bs=256k iodepth=16 iodepth_batch_submit=16" \
		"randwrite-4k-qd16-batch16 write rw=randwrite sync=0 iodepth=16 iodepth_batch_submit=16" \
		"randwrite-64k-qd8-batch1 write rw=randwrite sync=0 bs=64k iodepth=8 iodepth_batch_submit=1" \
		"read-1m-qd4 read rw=read sync=0 bs=1m iodepth=4 iodepth_batch_submit=2" \
		"randread-4k-qd16-batch8 read rw=randread sync=0 iodepth=16 iodepth_batch_submit=8" \
		"rw-64k-qd8-batch4 readwrite rw=rw rwmixread=70 sync=0 bs=64k iodepth=8 iodepth_batch_submit=4" \
		'rw-1m-sync readwrite rw=rw rwmixread=70 bs=1m' \
		"randwrite-4k-qd8-reap1 write rw=randwrite sync=0 iodepth=8 iodepth_batch_submit=8 iodepth_batch_complete_max=1" \
		"randwrite-4k-qd8-channel write rw=randwrite sync=0 iodepth=8 iodepth_batch_submit=8 busy_wait_polling=0" \
		'randread-4k-sync-channel read rw=randread busy_wait_polling=0' \
		"verify-randwrite-4k-sync readwrite $verify_opts rw=randwrite" \
		"verify-write-64k-qd16-batch16 readwrite $verify_opts rw=write sync=0 bs=64k iodepth=16 iodepth_batch_submit=16" \
		"verify-randwrite-4k-qd8-channel readwrite $verify_opts rw=randwrite sync=0 iodepth=8 iodepth_batch_submit=4 busy_wait_polling=0"

	# --- two connections ---
	fio_pair rw-4k-2jobs-qd4 readwrite 'NUMJOBS=2' 'NUMJOBS=2 SYNC=0 IODEPTH=4 BATCH=4' \
		jobs/rw.fio
	FIO_SERVER_ARGS="--ioengine=external:$ENGINE --cpus=1,0" \
		fio_pair randwrite-4k-2jobs-server-pinned write 'NUMJOBS=2' 'NUMJOBS=2' jobs/randwrite.fio

	# --- a plain file (page granularity) ---
	local file=/tmp/rpma-fio-e2e-mem-$METHOD
	truncate -s 128m "$file"
	fio_pair file-randwrite-4k-qd4 write "SERVER_MEM=$file NUMJOBS=2" \
		'NUMJOBS=2 SYNC=0 IODEPTH=4 BATCH=4' jobs/randwrite.fio
	rm -f "$file"

	# --- a client may start before its server: it retries until connect_timeout ---
	e2e_wanted "$METHOD-client-starts-first" && client_starts_first

	# --- failures: each must be reported clearly, by name, and quickly ---
	# (env: a later assignment wins, so a test's own values come after these;
	# engine options on the command line need the engine named there first)
	local cenv=(env "${COMMON_VARS[@]}" PORT=@PORT@)
	local client=("${cenv[@]}" fio --ioengine=external:"$ENGINE")
	local server=("${cenv[@]}" fio --ioengine=external:"$ENGINE" "jobs/$METHOD-server.fio")
	fio_fails no-server 'no server accepted a connection at [0-9.]+:[0-9]+ within connect_timeout=2000 ms' 8 \
		"${cenv[@]}" CONNECT_TIMEOUT=2000 fio --ioengine=external:"$ENGINE" jobs/write.fio
	# the option checks are the engines' shared code (engines/common/optparse.c,
	# options.c, unit-tested there): once, with the first method, is enough
	if [ "$METHOD" = "$FIRST_METHOD" ]; then
	fio_fails bad-port 'port=abc: not a port number' 5 \
		"${cenv[@]}" PORT=abc fio --ioengine=external:"$ENGINE" jobs/write.fio
	fio_fails bad-port-range 'port=70000: not a port number \(expected 1-65535\)' 5 \
		"${client[@]}" jobs/write.fio --port=70000
	fio_fails port-overflow 'port=65535: the port of job 2 is 65535 \+ 1 = 65536, above 65535' 10 \
		env "${COMMON_VARS[@]}" PORT=65535 NUMJOBS=2 CONNECT_TIMEOUT=1000 \
		fio --ioengine=external:"$ENGINE" jobs/write.fio
	fio_fails bad-serverip 'serverip=1\.2\.3\.999: not a valid IPv4 address' 5 \
		env SERVER_IP=1.2.3.999 fio --ioengine=external:"$ENGINE" jobs/write.fio
	# the job files have no default address: a forgotten SERVER_IP is named, on both sides
	fio_fails no-SERVER_IP 'serverip=SERVER_IP-is-not-set: SERVER_IP is not set: the job files in jobs/ take the server.s address from it' 5 \
		env -u SERVER_IP fio --ioengine=external:"$ENGINE" jobs/write.fio
	fio_fails no-SERVER_IP-server 'SERVER_IP is not set: the job files in jobs/ take' 5 \
		env -u SERVER_IP fio "jobs/$METHOD-server.fio"
	fio_fails no-serverip 'serverip= is not set: give the server.s address' 5 \
		fio --ioengine=external:"$ENGINE" --name=x --rw=write --create_serialize=0 --thread
	fio_fails unreachable-serverip 'serverip=10\.9\.9\.9: no local RDMA device can reach' 10 \
		"${cenv[@]}" SERVER_IP=10.9.9.9 fio --ioengine=external:"$ENGINE" jobs/write.fio
	fio_fails bad-timeout 'connect_timeout: min value out of range: 0' 5 \
		"${client[@]}" jobs/write.fio --connect_timeout=0
	fio_fails bad-mode 'failed parsing mode=bogus' 5 "${client[@]}" jobs/write.fio --mode=bogus
	fio_fails bad-cpus 'cpus=3-1: the range 3-1 is reversed' 5 "${server[@]}" --cpus=3-1
	fio_fails absent-cpu 'cpus=1000: cannot run on CPU 1000' 10 "${server[@]}" --cpus=1000
	fio_fails trim 'trim workloads are not supported \(rw=randtrim\)' 10 "${client[@]}" --name=trim \
		--serverip="$A" --rw=randtrim --size=1m --create_serialize=0 --thread
	fi
	fio_fails server-not-local 'serverip=10\.9\.9\.9: no local RDMA device has this address' 10 \
		"${cenv[@]}" SERVER_IP=10.9.9.9 fio "jobs/$METHOD-server.fio"
	fio_fails server-no-mem 'filename=/nonexistent/mem: cannot open /nonexistent/mem' 10 \
		"${cenv[@]}" SERVER_MEM=/nonexistent/mem fio "jobs/$METHOD-server.fio"
	fio_fails server-no-size 'size= is not set: give the memory size of each server job' 10 \
		"${cenv[@]}" SERVER_SIZE=0 fio "jobs/$METHOD-server.fio"
	if [ "$METHOD" = apm ]; then
		fio_fails apm-server-clients-per-job 'clients_per_job=2: an APM server job serves one client' 10 \
			"${server[@]}" --clients_per_job=2
	else
		fio_fails server-clients-per-job-ports 'port=65534: job 1.s 4 clients \(clients_per_job=4\) take ports 65534 to 65537' 10 \
			"${cenv[@]}" PORT=65534 CLIENTS_PER_JOB=4 fio "jobs/$METHOD-server.fio"
	fi
	if [ -n "$DAX" ]; then
		# (the device's lock: these servers claim their bytes before they find them
		# wrong, and the other lane's server may hold them meanwhile)
		e2e_lock devdax
		fio_fails devdax-misaligned "filename=$DAX: .*make size= a multiple of 2097152" 10 \
			"${cenv[@]}" SERVER_MEM="$DAX" SERVER_SIZE=3m fio "jobs/$METHOD-server.fio"
		fio_fails devdax-too-small "filename=$DAX: $DAX is [0-9]+ bytes: too small" 10 \
			"${cenv[@]}" SERVER_MEM="$DAX" SERVER_SIZE=1g fio "jobs/$METHOD-server.fio"
		e2e_unlock
	fi
	if [ -n "${RPMA_TEST_FSDAX_DIR:-}" ] &&
			ibv_devinfo -v 2>/dev/null | grep -A1 rc_odp_caps | grep -q 'NO SUPPORT'; then
		local f=$RPMA_TEST_FSDAX_DIR/e2e-engine-mem-$METHOD
		truncate -s 64m "$f"
		# Soft-RoCE cannot pin fsdax pages and has no ODP: the library says so
		fio_fails fsdax-needs-odp 'On-Demand Paging' 15 \
			"${cenv[@]}" SERVER_MEM="$f" fio "jobs/$METHOD-server.fio"
		rm -f "$f"
	fi
	# the client asks for more than the server exposes: refused before any I/O
	client_refused client-size-too-big 'size=16777216 is more than the 8388608 bytes the server exposes' \
		--size=16m
	client_refused client-offset-beyond 'offset=4194304 with size=8388608 reaches byte 12582912, beyond the 8388608 bytes the server at' \
		--size=8m --offset=4m

	# --- a peer dies mid-run ---
	# (connect_timeout 12 s: right after a test that killed a peer, Soft-RoCE's
	# connection manager was seen to reject every attempt for more than 5 s -- a stale
	# connection in time-wait, most likely; a client retries through that)
	fio_kill server-killed server \
		'closed the connection|connection to the server .* was lost|does not answer|no completion' \
		20 '' 'CONNECT_TIMEOUT=12000' jobs/randwrite.fio
	fio_kill server-killed-qd16 server \
		'closed the connection|connection to the server .* was lost|does not answer|no completion' \
		20 '' 'CONNECT_TIMEOUT=12000 SYNC=0 IODEPTH=16 BATCH=16 BUSY_WAIT=0' jobs/write.fio
	fio_kill client-killed client '' 15 '' '' jobs/randwrite.fio
	# Ctrl-C with the server frozen: fio stops within about a second, not after
	# connect_timeout (30 s by default). A frozen GPSPM server leaves the flushes
	# unanswered (the I/Os in flight are failed, by name); APM's I/O goes on without
	# the server's CPU, so its client just stops.
	local stuck='' stuck16=''
	if [ "$METHOD" = gpspm ]; then
		stuck='stopped: the server at .* completed none of the 1 I/Os in flight within 500 ms'
		stuck16='stopped: the server at .* completed none of the [0-9]+ I/Os in flight'
	fi
	# (10 s: a hang bound, the client waits 500 ms for its I/Os; without that wait it
	# would wait for the frozen server forever)
	fio_kill sigint-frozen-server sigint "$stuck" 10 '' '' jobs/randwrite.fio
	fio_kill sigint-frozen-server-qd16 sigint "$stuck16" 10 '' 'SYNC=0 IODEPTH=16 BATCH=16 BUSY_WAIT=0' \
		jobs/write.fio
}

engine_suite() {
	if [ "$METHOD" = "$FIRST_METHOD" ]; then
		engine_shared_part
		engine_own_part
	else
		engine_own_part
		engine_shared_part
	fi
}

methods=${ENGINE_METHODS:-$(for so in build/librpma_*.so; do
	[ -e "$so" ] && basename "$so" .so | sed 's/^librpma_//'; done)}
[ -n "$methods" ] || { echo "no engine built: run make engines"; exit 1; }
# the option checks run with the first method only (see engine_suite)
FIRST_METHOD=${E2E_FIRST_METHOD:-${methods%%[[:space:]]*}}

# one method: this process is its lane
if [ "$(wc -w <<<"$methods")" -eq 1 ]; then
	METHOD=$methods
	ENGINE=build/librpma_$METHOD.so
	[ -f "jobs/$METHOD-server.fio" ] || { echo "FAIL $METHOD: no jobs/$METHOD-server.fio"; exit 1; }
	echo "== engine $ENGINE"
	engine_suite
	e2e_summary
	exit
fi
# several: a lane each, side by side, ports 4000 apart; their output in turn
status=0 lane=0 lane_pids=()
read -r -a lane_methods <<<"$(tr '\n' ' ' <<<"$methods")"
for m in "${lane_methods[@]}"; do
	ENGINE_METHODS=$m E2E_FIRST_METHOD=$FIRST_METHOD E2E_PORT=$((E2E_PORT + 4000 * lane)) \
		E2E_ONLY=${E2E_ONLY:-.} "$0" >"$E2E_TMP/lane-$m.out" 2>&1 &
	lane_pids+=($!)
	lane=$((lane + 1))
done
for i in "${!lane_methods[@]}"; do
	wait "${lane_pids[i]}" || status=1
	cat "$E2E_TMP/lane-${lane_methods[i]}.out"
done
rm -rf "$E2E_TMP"
exit "$status"
