#!/usr/bin/env bash
# tests/e2e/engines_gpspm.sh -- what only the GPSPM engine has, over real Soft-RoCE
# inside the VM (tests/e2e/engines.sh runs the workloads every engine shares):
#
#   scripts/softroce-vm run --pmem --timeout 900 -- tests/e2e/engines_gpspm.sh
#
#   - the server's completion modes (busy polling, completion channel) with
#     the client's, at iodepth 1 (sync=1) and 16 (batched), DRAM and device DAX;
#   - every workload at small and large blocks against a sleeping server;
#   - the server's memory after the client's writes: the client writes a
#     pattern, and once the server has ended, the memory (a file, device DAX)
#     is read directly and must hold it;
#   - a hostile client (build/tests/tools/gpspm-hostile): malformed,
#     truncated, unknown and out-of-range flush requests must each end the
#     connection with the reason logged, after serving the valid ones, the
#     server exiting by itself (never a crash);
#   - batched random writes on device DAX: the server persists exactly the
#     bytes written (its count equals fio's and the client's), fio's verify passing;
#   - a server taking fewer requests than the client may send; a GPSPM client
#     against an APM server; a server pinned to a CPU.
# One server job serving several clients (the hub): tests/e2e/engines_hub.sh.
# Interoperability with fio's in-tree librpma_gpspm engines: tests/e2e/interop.sh.
#
# GPSPM_ONLY=REGEX runs only the tests whose name matches (e.g. GPSPM_ONLY=hostile).
# Runs are short (RUNTIME=1s). Servers sleep on their completion channel unless
# a test says otherwise: under TCG a busy server and a busy client share the 2 vCPUs.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/e2e/lib.sh
e2e_in_vm
METHOD=gpspm
# (E2E_GPSPM_ENGINE: another build of the engine, e.g. a control run of an older one)
ENGINE=${E2E_GPSPM_ENGINE:-build/librpma_$METHOD.so}
HOSTILE=build/tests/tools/gpspm-hostile
DAX=${RPMA_TEST_DEVDAX:-}
COMMON_VARS=("SERVER_IP=$A" RUNTIME=1s RAMP=0 SERVER_BUSY_WAIT=0)
E2E_PORT=7700

[ -f "$ENGINE" ] || { echo "FAIL gpspm: $ENGINE is not built (make engines)"; exit 1; }

# gp_pair NAME DIRS 'SERVER_VARS' 'CLIENT_VARS' CLIENT_ARGS...   (@PORT@: the test's port)
# A server and a client (fio --ioengine=external:$ENGINE CLIENT_ARGS, JSON output):
# both exit 0, the client moved bytes in each of DIRS ("write", "read", "read write")
# with no error and nothing logged as an error, and when it wrote, the server served
# flush requests. Prints the client's IOPS and mean latencies.
gp_pair() {
	local name=gpspm-$1 dirs=$2 svars=$3 cvars=$4 status=0 rc=0 dir
	gp_want "$name" || return 0
	shift 4
	gp_new_test "$name"
	set -- "${@//@PORT@/$E2E_PORT}"
	if gp_start_server "$svars"; then
		# shellcheck disable=SC2086
		timeout "$E2E_STEP_TIMEOUT" env "${COMMON_VARS[@]}" PORT="$E2E_PORT" $cvars \
			fio --ioengine=external:"$ENGINE" "$@" --output-format=json \
			--output="$E2E_DIR/client.json" >"$E2E_DIR/client.log" 2>&1 || rc=$?
		[ "$rc" -eq 0 ] || { echo "  the client exited with $rc" >>"$E2E_DIR/why"; status=1; }
		wait "$GP_SPID" || { echo "  the server exited with $?" >>"$E2E_DIR/why"; status=1; }
	else
		status=1
	fi
	if [ "$status" -eq 0 ]; then
		if ! jq -e '.jobs[0].error == 0' "$E2E_DIR/client.json" >/dev/null 2>&1; then
			echo "  the client's JSON shows an error (or is missing)" >>"$E2E_DIR/why"
			status=1
		fi
		for dir in $dirs; do
			jq -e ".jobs[0].$dir.io_bytes > 0" "$E2E_DIR/client.json" >/dev/null 2>&1 ||
				{ echo "  the client did no $dir" >>"$E2E_DIR/why"; status=1; }
		done
		if grep -q 'ERROR' "$E2E_DIR/client.log" "$E2E_DIR/server.log"; then
			echo "  an error was logged" >>"$E2E_DIR/why"
			status=1
		fi
		case " $dirs " in
		*" write "*)
			grep -Eq 'served [1-9][0-9]* flush requests' "$E2E_DIR/server.log" ||
				{ echo "  the server served no flush request" >>"$E2E_DIR/why"; status=1; } ;;
		esac
	fi
	e2e_result "$name" "$status"
	# shellcheck disable=SC2086
	[ "$status" -eq 0 ] && fio_perf $dirs
	e2e_show_logs_if "$status"
	return 0
}

# gp_data_check NAME MEM CHECK_ENGINE SIZE 'SERVER_VARS' CLIENT_ARGS...
# The client writes a pattern over the first SIZE bytes of the server's memory
# MEM (rw and bs in CLIENT_ARGS); once the server has ended, fio reads MEM
# directly (CHECK_ENGINE: dev-dax or psync) and every block must hold the
# pattern -- and must not hold another one (the check really checks).
gp_data_check() {
	local name=gpspm-$1 mem=$2 engine=$3 size=$4 svars=$5 status=0 rc=0
	gp_want "$name" || return 0
	shift 5
	local pattern
	pattern=$(printf '0x%08x' $(((RANDOM << 17 ^ RANDOM << 2 ^ RANDOM) & 0x7fffffff | 0x01010101)))
	gp_new_test "$name"
	if gp_start_server "SERVER_MEM=$mem SERVER_SIZE=64m $svars"; then
		timeout "$E2E_STEP_TIMEOUT" fio --ioengine=external:"$ENGINE" --name=pattern \
			--serverip="$A" --port="$E2E_PORT" --create_serialize=0 --thread --size="$size" \
			--verify=pattern --verify_pattern="$pattern" --do_verify=0 --verify_state_save=0 "$@" \
			>"$E2E_DIR/client.log" 2>&1 || rc=$?
		[ "$rc" -eq 0 ] || { echo "  the client exited with $rc" >>"$E2E_DIR/why"; status=1; }
		wait "$GP_SPID" || { echo "  the server exited with $?" >>"$E2E_DIR/why"; status=1; }
	else
		status=1
	fi
	if [ "$status" -eq 0 ]; then
		local check=("$E2E_DEBIAN_FIO" --name=check --ioengine="$engine" --filename="$mem" --rw=write
			--bs=2m --size="$size" --verify=pattern --verify_only --verify_state_save=0)
		if ! timeout "$E2E_STEP_TIMEOUT" "${check[@]}" --verify_pattern="$pattern" \
				>"$E2E_DIR/client-check.log" 2>&1; then
			echo "  the server's memory does not hold the pattern $pattern" >>"$E2E_DIR/why"
			status=1
		elif timeout "$E2E_STEP_TIMEOUT" "${check[@]}" --verify_pattern=0x00c0ffee \
				>"$E2E_DIR/client-check-other.log" 2>&1; then
			echo "  the check also accepts a pattern nobody wrote" >>"$E2E_DIR/why"
			status=1
		fi
	fi
	e2e_result "$name" "$status"
	[ "$status" -eq 0 ] && grep -Eo 'served .*' "$E2E_DIR/server.log" | sed 's/^/  server: /'
	e2e_show_logs_if "$status"
	return 0
}

# gp_hostile NAME EXIT REASON_REGEX SERVED 'SERVER_VARS' CASE...
# gpspm-hostile runs CASEs against a fresh server: it must see the reaction it
# expects (answers to the valid requests, the connection closed without an answer
# after a bad one); the server must exit with EXIT by itself (1: it failed the job
# on the bad request; 0: a clean end), log REASON_REGEX and have served SERVED
# requests.
gp_hostile() {
	local name=gpspm-hostile-$1 want=$2 reason=$3 served=$4 svars=$5 status=0 rc=0 src=0
	gp_want "$name" || return 0
	shift 5
	gp_new_test "$name"
	if gp_start_server "$svars"; then
		timeout "$E2E_STEP_TIMEOUT" "$HOSTILE" "$A" "$E2E_PORT" "$@" \
			>"$E2E_DIR/client.log" 2>&1 || rc=$?
		[ "$rc" -eq 0 ] || { echo "  gpspm-hostile exited with $rc" >>"$E2E_DIR/why"; status=1; }
		wait "$GP_SPID" || src=$?
		if [ "$src" -ne "$want" ]; then
			echo "  the server exited with $src, expected $want" \
				"$( [ "$src" -gt 128 ] && echo "(killed by signal $((src - 128)))")" >>"$E2E_DIR/why"
			status=1
		fi
		if ! grep -Eq "$reason" "$E2E_DIR/server.log"; then
			echo "  the server's output does not match /$reason/" >>"$E2E_DIR/why"
			status=1
		fi
		if ! grep -q "served $served flush requests" "$E2E_DIR/server.log"; then
			echo "  the server did not serve exactly $served flush requests" >>"$E2E_DIR/why"
			status=1
		fi
	else
		status=1
	fi
	e2e_result "$name" "$status"
	e2e_show_logs_if "$status"
	return 0
}

# gp_exact_persist NAME 'SERVER_VARS' CLIENT_ARGS...
# Batched random writes with fio's verify (crc32c, read back after writing) to a
# server on device DAX: the server must persist exactly the bytes written -- its
# `B bytes persisted` equals fio's own count of bytes written (the JSON's
# write.io_bytes) and the client's own note of what it asked to persist (issue
# 47: a batch's ranges, not the span from its lowest to its highest byte). Each
# count must be there and non-zero; the figures are printed either way.
gp_exact_persist() {
	local name=gpspm-$1 svars=$2 status=0 rc=0 written writes persisted asked requests
	gp_want "$name" || return 0
	shift 2
	gp_new_test "$name"
	if gp_start_server "$svars"; then
		timeout "$E2E_STEP_TIMEOUT" fio --ioengine=external:"$ENGINE" --name=exact \
			--serverip="$A" --port="$E2E_PORT" --create_serialize=0 --thread \
			--verify=crc32c --do_verify=1 --verify_fatal=1 --verify_state_save=0 "$@" \
			--output-format=json --output="$E2E_DIR/client.json" \
			>"$E2E_DIR/client.log" 2>&1 || rc=$?
		[ "$rc" -eq 0 ] || { echo "  the client exited with $rc" >>"$E2E_DIR/why"; status=1; }
		wait "$GP_SPID" || { echo "  the server exited with $?" >>"$E2E_DIR/why"; status=1; }
	else
		status=1
	fi
	written=$(jq -r '.jobs[0].write.io_bytes // empty' "$E2E_DIR/client.json" 2>/dev/null)
	writes=$(jq -r '.jobs[0].write.total_ios // empty' "$E2E_DIR/client.json" 2>/dev/null)
	requests=$(sed -n 's/.*served \([0-9]*\) flush requests.*/\1/p' "$E2E_DIR/server.log" | tail -1)
	persisted=$(sed -n 's/.*served [0-9]* flush requests (\([0-9]*\) bytes persisted).*/\1/p' \
		"$E2E_DIR/server.log" | tail -1)
	asked=$(sed -n 's/.*wrote [0-9]* bytes, asked to persist \([0-9]*\) bytes.*/\1/p' \
		"$E2E_DIR/client.log" | tail -1)
	echo "  written ${written:-?} (fio), asked to persist ${asked:-?} (client)," \
		"persisted ${persisted:-?} (server); ${requests:-?} flush requests for ${writes:-?} writes"
	if [ "${written:-0}" -le 0 ] || [ "${persisted:-0}" -le 0 ] || [ "${asked:-0}" -le 0 ]; then
		echo "  a count is missing or zero" >>"$E2E_DIR/why"
		status=1
	elif [ "$persisted" -ne "$written" ] || [ "$asked" -ne "$written" ]; then
		echo "  persisted $persisted and asked $asked for $written bytes written" >>"$E2E_DIR/why"
		status=1
	fi
	e2e_result "$name" "$status"
	e2e_show_logs_if "$status"
	return 0
}

# gp_client_fails NAME REASON_REGEX 'SERVER_VARS' 'CLIENT_VARS' CLIENT_ARGS...
# The client must fail by itself with REASON_REGEX; the server (GPSPM, or APM
# with SERVER_JOB=apm) must end cleanly once the client has gone.
gp_client_fails() {
	local name=gpspm-$1 reason=$2 svars=$3 cvars=$4 status=0 rc=0
	gp_want "$name" || return 0
	shift 4
	gp_new_test "$name"
	local job=jobs/${SERVER_JOB:-gpspm}-server.fio
	# shellcheck disable=SC2086
	timeout "$E2E_STEP_TIMEOUT" env "${COMMON_VARS[@]}" PORT="$E2E_PORT" $svars fio "$job" \
		>"$E2E_DIR/server.log" 2>&1 &
	GP_SPID=$!
	if e2e_wait_line "$E2E_DIR/server.log" 'listening on' "$E2E_READY_TIMEOUT"; then
		# shellcheck disable=SC2086
		timeout "$E2E_STEP_TIMEOUT" env "${COMMON_VARS[@]}" PORT="$E2E_PORT" $cvars \
			fio --ioengine=external:"$ENGINE" "$@" >"$E2E_DIR/client.log" 2>&1 || rc=$?
		if [ "$rc" -eq 0 ] || [ "$rc" -eq 124 ]; then
			echo "  the client exited with $rc: it should have failed by itself" >>"$E2E_DIR/why"
			status=1
		elif ! grep -Eq "$reason" "$E2E_DIR/client.log"; then
			echo "  the client's output does not match /$reason/" >>"$E2E_DIR/why"
			status=1
		fi
		wait "$GP_SPID" || { echo "  the server exited with $?" >>"$E2E_DIR/why"; status=1; }
	else
		echo "  the server did not listen" >>"$E2E_DIR/why"
		kill "$GP_SPID" 2>/dev/null
		wait "$GP_SPID" 2>/dev/null
		status=1
	fi
	e2e_result "$name" "$status"
	e2e_show_logs_if "$status"
	return 0
}

# --- completion modes: server x client, iodepth 1 (sync) and 16 (batched), 4 KiB ---
# (a busy-polling server: one test per server process; the sleeping server's
# tests run as sections of one client against one server process: fio_group. A
# sleeping client meets a sleeping server there; how a client waits changes
# nothing the server sees, so a busy server has busy clients only)
gp_pair randwrite-4k-sync-server-busy1-client-busy1 write \
	"SERVER_BUSY_WAIT=1" "BUSY_WAIT=1" jobs/randwrite.fio
gp_pair randwrite-4k-qd16-batch16-server-busy1-client-busy1 write \
	"SERVER_BUSY_WAIT=1" "BUSY_WAIT=1 SYNC=0 IODEPTH=16 BATCH=16" jobs/randwrite.fio
batch16='sync=0 iodepth=16 iodepth_batch_submit=16'
# --- and every workload, small and large blocks, sync and batched (sleeping server);
# (write-4k-sync and randwrite-64k-qd8-batch1: engines.sh runs them against this sleeping server)
# reads and writes interleaved, one per batch: a read's completion waits for the
# flushes posted before it
fio_group sleeping-server 'SERVER_BUSY_WAIT=0' \
	'randwrite-4k-sync-server-busy0-client-busy1 write rw=randwrite busy_wait_polling=1' \
	"randwrite-4k-qd16-batch16-server-busy0-client-busy1 write rw=randwrite busy_wait_polling=1 $batch16" \
	'randwrite-4k-sync-server-busy0-client-busy0 write rw=randwrite busy_wait_polling=0' \
	"randwrite-4k-qd16-batch16-server-busy0-client-busy0 write rw=randwrite busy_wait_polling=0 $batch16" \
	'write-1m-qd4-batch4 write rw=write sync=0 bs=1m iodepth=4 iodepth_batch_submit=4' \
	'read-4k-qd8-batch8 read rw=read sync=0 iodepth=8 iodepth_batch_submit=8' \
	'randread-256k-sync read rw=randread bs=256k' \
	'rw-4k-qd16-batch1 readwrite rw=rw rwmixread=70 sync=0 iodepth=16 iodepth_batch_submit=1' \
	"rw-4k-qd16-batch16-channel readwrite rw=rw rwmixread=70 busy_wait_polling=0 $batch16" \
	'rw-256k-sync readwrite rw=rw rwmixread=70 bs=256k'
# --- the adaptive wait (busy_wait_polling=adaptive: nap, spin, sleep when idle) on the
# server, and on a client of fio's verify; the server's log says its waits found
# requests by polling (common/pace.h)
verify8m='size=8m time_based=0 runtime=0 verify=crc32c do_verify=1 verify_fatal=1 verify_state_save=0'
fio_group adaptive-server 'SERVER_BUSY_WAIT=adaptive' \
	'randwrite-4k-sync-server-adaptive write rw=randwrite' \
	"randwrite-4k-qd16-batch16-server-adaptive write rw=randwrite $batch16" \
	"verify-randwrite-4k-qd8-server-adaptive-client-adaptive readwrite $verify8m rw=randwrite sync=0 iodepth=8 iodepth_batch_submit=4 busy_wait_polling=adaptive"
if e2e_wanted gpspm-adaptive-server && gp_want gpspm-adaptive-server; then
	grep -Eq 'busy_wait_polling=adaptive: [1-9][0-9]* waits .*: [1-9][0-9]* found their request by polling' \
		"$E2E_TMP/gpspm-adaptive-server/server.log" 2>/dev/null
	e2e_result gpspm-adaptive-server-polls $?
fi
# a server taking 1 request at a time serves a sync client
gp_pair randwrite-4k-sync-server-depth1 write 'SERVER_IODEPTH=1' 'IODEPTH=8' jobs/randwrite.fio
# (fio's verify, both sides sleeping: gpspm-verify-randwrite-4k-qd8-channel in engines.sh)

# --- device DAX: the server persists with CPU cache flushes ---
if [ -n "$DAX" ]; then
	dax="SERVER_MEM=$DAX SERVER_SIZE=64m"
	gp_pair devdax-randwrite-4k-sync-server-busy1 write "$dax SERVER_BUSY_WAIT=1" '' \
		jobs/randwrite.fio
	gp_pair devdax-randwrite-4k-qd16-batch16 write "$dax" 'SYNC=0 IODEPTH=16 BATCH=16' \
		jobs/randwrite.fio
	gp_pair devdax-write-128k-qd8-batch8 write "$dax" 'SYNC=0 BS=128k IODEPTH=8 BATCH=8' \
		jobs/write.fio
	gp_pair devdax-rw-4k-qd8-batch2 "read write" "$dax" 'SYNC=0 IODEPTH=8 BATCH=2' jobs/rw.fio
	if gp_want gpspm-devdax-rw-4k-qd8-batch2; then
		grep -Eq 'served [1-9][0-9]* flush requests \([1-9][0-9]* bytes persisted\)' \
			"$E2E_TMP/gpspm-devdax-rw-4k-qd8-batch2/server.log" 2>/dev/null
		e2e_result gpspm-devdax-server-persists $?
	fi
fi

# --- the server's memory holds what the client wrote ---
if [ -n "$DAX" ]; then
	gp_data_check devdax-data-randwrite-4k-qd16 "$DAX" dev-dax 16m '' \
		--rw=randwrite --bs=4k --iodepth=16 --iodepth_batch_submit=16
	gp_data_check devdax-data-write-1m-sync "$DAX" dev-dax 32m 'SERVER_BUSY_WAIT=1' \
		--rw=write --bs=1m --sync=1
	# exactly the bytes written are persisted, batches of 4 random writes at depth 8
	gp_exact_persist devdax-persists-exactly-randwrite-4k-qd8-batch4 \
		"SERVER_MEM=$DAX SERVER_SIZE=64m" --size=16m --rw=randwrite --bs=4k \
		--iodepth=8 --iodepth_batch_submit=4 --iodepth_batch_complete_min=4
	# and at depth 32 in batches of 32: more ranges than field 15 carries (30),
	# one request a batch all the same (the packed ranges, field 16)
	gp_exact_persist devdax-persists-exactly-randwrite-4k-qd32-batch32 \
		"SERVER_MEM=$DAX SERVER_SIZE=64m SERVER_IODEPTH=32" --size=16m --rw=randwrite --bs=4k \
		--iodepth=32 --iodepth_batch_submit=32 --iodepth_batch_complete_min=32
fi
file=/tmp/rpma-fio-e2e-gpspm-mem
truncate -s 64m "$file"
gp_data_check file-data-write-64k-qd8 "$file" psync 16m '' \
	--rw=write --bs=64k --iodepth=8 --iodepth_batch_submit=4
rm -f "$file"

# --- a hostile client: every bad request ends the connection, nothing else ---
out_of_range='rejected a flush request from the client: offset'
gp_hostile valid-then-last 0 'served 4 flush requests' 4 '' \
	valid valid-end valid-whole empty-at-end last
gp_hostile beyond 1 "$out_of_range 67108864 length 1 is outside the 67108864-byte workspace" 1 '' \
	valid beyond
gp_hostile too-long 1 "$out_of_range 0 length 67108865 is outside" 1 '' valid too-long
gp_hostile wrap 1 "$out_of_range 18446744073709547520 length 8192 is outside" 1 '' valid wrap
gp_hostile huge-length 1 "$out_of_range 4096 length 18446744073709551615 is outside" 1 '' \
	valid huge-length
gp_hostile truncated 1 'rejected a message from the client: flush request of 20 bytes is truncated' \
	1 '' valid truncated
gp_hostile missing 1 'required field 3 \(op_context\) is missing' 1 '' valid missing
gp_hostile unknown 1 'unknown field 4 \(wire type 64-bit\) at byte 27' 1 '' valid unknown
gp_hostile wire-type 1 'field 1 \(offset\) at byte 0 has wire type varint' 1 '' valid wire-type
gp_hostile garbage 1 'rejected a message from the client: flush request: the field key at byte 0' \
	1 '' valid garbage
gp_hostile empty 1 'rejected a message from the client: empty flush request' 1 '' valid empty
gp_hostile oversized 1 'receiving it failed \(.*\): is it longer than the 512-byte receive buffer' \
	1 '' valid oversized
gp_hostile write-imm 1 'a receive completed as opcode [0-9]+ \(an RDMA write with immediate data\), not by a SEND' \
	1 '' valid write-imm
gp_hostile first-message-bad 1 "$out_of_range 67108864 length 1" 0 'SERVER_BUSY_WAIT=1' beyond
if [ -n "$DAX" ]; then
	dax="SERVER_MEM=$DAX SERVER_SIZE=64m"
	gp_hostile devdax-beyond 1 "$out_of_range 67108864 length 1 is outside" 1 "$dax" valid beyond
	gp_hostile devdax-wrap 1 "$out_of_range 18446744073709547520" 1 "$dax SERVER_BUSY_WAIT=1" \
		valid wrap
	gp_hostile devdax-huge-length 1 "$out_of_range 4096 length 18446744073709551615" 1 "$dax" \
		valid huge-length
	gp_hostile devdax-whole-then-last 0 'served 2 flush requests \(67112960 bytes persisted\)' 2 \
		"$dax" valid valid-whole last
fi

# gp_sigint_busy: Ctrl-C reaches a server whose client never lets it rest (requests
# to persist the whole device-DAX region, always SLOTS in flight, the server busy
# polling): the server must stop by itself, having served them until then, and the
# client see it go. Without its looks at fio's stop between the pieces of work it
# would serve on forever: still running 10 s after Ctrl-C is a hang. How long the
# stop took is printed, a figure, not asserted (a loaded machine stretches it).
gp_sigint_busy() {
	local name=gpspm-sigint-busy-client status=0 rc=0 hpid fio_pid t0 took
	gp_want "$name" || return 0
	gp_new_test "$name"
	if ! gp_start_server "SERVER_MEM=$DAX SERVER_SIZE=64m SERVER_BUSY_WAIT=1"; then
		e2e_result "$name" 1
		e2e_show_logs_if 1
		return 0
	fi
	timeout "$E2E_STEP_TIMEOUT" "$HOSTILE" "$A" "$E2E_PORT" busy-whole >"$E2E_DIR/client.log" 2>&1 &
	hpid=$!
	if e2e_wait_line "$E2E_DIR/client.log" 'busy from now on' 20 "$hpid"; then
		sleep 1 # a second of whole-region requests back to back
		fio_pid=$(pgrep -P "$GP_SPID" -x fio | head -1)
		t0=$EPOCHREALTIME
		kill -INT "${fio_pid:-$GP_SPID}"
		wait_deadline 10
		while kill -0 "$GP_SPID" 2>/dev/null && ! wait_past "$WAIT_DEADLINE"; do
			nap 0.05
		done
		took=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }')
		echo "  the server stopped ${took} s after Ctrl-C: $(grep -o 'served [0-9]* flush requests' \
			"$E2E_DIR/server.log" | head -1), the client: $(grep -o 'went after [0-9]* answers' \
			"$E2E_DIR/client.log")"
		if kill -0 "$GP_SPID" 2>/dev/null; then
			echo "  the server still ran 10 s after Ctrl-C" >>"$E2E_DIR/why"
			kill -KILL "$GP_SPID" 2>/dev/null
			status=1
		fi
	else
		echo "  the busy client got no answer" >>"$E2E_DIR/why"
		status=1
	fi
	wait "$GP_SPID" 2>/dev/null
	wait "$hpid" || rc=$?
	[ "$rc" -eq 0 ] || { echo "  gpspm-hostile exited with $rc (did the server go?)" >>"$E2E_DIR/why"; status=1; }
	if ! grep -Eq 'served [1-9][0-9]* flush requests' "$E2E_DIR/server.log"; then
		echo "  the server served no flush request" >>"$E2E_DIR/why"
		status=1
	fi
	e2e_result "$name" "$status"
	e2e_show_logs_if "$status"
}
[ -z "$DAX" ] || gp_sigint_busy

# --- mismatched peers ---
gp_client_fails server-depth-too-small \
	'takes 4 flush requests at a time \(its iodepth\) but this job may have 16 in flight' \
	'SERVER_IODEPTH=4' 'SYNC=0 IODEPTH=16 BATCH=16' jobs/randwrite.fio
# (a GPSPM client against an APM server: apm-server-gpspm-client in tests/fault/engine_faults.sh)

# --- a busy server pinned to CPU 1: its job thread runs there only ---
name=gpspm-server-pinned-busy
gp_new_test "$name"
status=0
if ! gp_want "$name"; then
	:
elif gp_start_server 'SERVER_BUSY_WAIT=1' --cpus=1; then
	fio_pid=$(pgrep -P "$GP_SPID" -x fio | head -1)
	pinned=0
	for t in /proc/"$fio_pid"/task/*; do
		grep -q 'Cpus_allowed_list:[[:space:]]*1$' "$t/status" 2>/dev/null && pinned=1
	done
	[ "$pinned" -eq 1 ] || { echo "  no thread of the server (pid ${fio_pid:-?}) is pinned to CPU 1" >>"$E2E_DIR/why"; status=1; }
	timeout "$E2E_STEP_TIMEOUT" env "${COMMON_VARS[@]}" PORT="$E2E_PORT" \
		fio --ioengine=external:"$ENGINE" jobs/randwrite.fio >"$E2E_DIR/client.log" 2>&1 ||
		{ echo "  the client failed" >>"$E2E_DIR/why"; status=1; }
	wait "$GP_SPID" || { echo "  the server exited with $?" >>"$E2E_DIR/why"; status=1; }
	e2e_result "$name" "$status"
	e2e_show_logs_if "$status"
else
	e2e_result "$name" 1
	e2e_show_logs_if 1
fi

# (interoperability with fio's own librpma_gpspm engines: tests/e2e/interop.sh)

e2e_summary
