#!/usr/bin/env bash
# tests/native/engines.sh -- the engines of the native build (build/native/, rdma-core
# with ibv_wr_flush) in the 6.12 guest, whose rxe executes RDMA FLUSH and ATOMIC WRITE:
#
#   prefix=$(scripts/rdma_core.sh)
#   scripts/softroce-vm run --kernel 6.12 --pmem -- env RDMA_CORE="$prefix" tests/native/engines.sh
#
# fio links the system's libibverbs, so every fio running a native engine runs under
# LD_LIBRARY_PATH=$RDMA_CORE/lib. Every client checks its data with fio's verify (write,
# then read back over RDMA and compare), and the APM client's closing note counts its
# flushes and how many completed as the device's own FLUSH (the completion's opcode):
#
#   - native APM both ends: native_flush=1 and auto post only native FLUSHes (DRAM with
#     visibility placement, device DAX with persistent placement); native_flush=0 none;
#   - native GPSPM both ends (the server persists; no RDMA FLUSH at all);
#   - the ends differ: a server of the default build (its registration has no flush
#     access) or the peer's server (fio 3.33 + librpma 1.2) with a native client: auto
#     emulates, native_flush=1 fails at connection time naming the server; a client of
#     the default build with a native server: auto emulates, native_flush=1 fails naming
#     this client's device; the peer's client against a native server (it emulates).
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/e2e/lib.sh
. tests/e2e/lib.sh
e2e_in_vm --kernel 6.12
: "${RDMA_CORE:?the private rdma-core prefix (RDMA_CORE=\$(scripts/rdma_core.sh))}"
N=build/native
PEER_FIO=${PEER_FIO:-build/peer/fio}
DAX=${RPMA_TEST_DEVDAX:-}
E2E_PORT=8100
E2E_NAME_PREFIX=native- # (read by lib.sh)
NATIVE_ENV=(env "LD_LIBRARY_PATH=$RDMA_CORE/lib")

missing=0
for f in "$N/librpma_apm.so" "$N/librpma_gpspm.so" "$N/jobs/apm-server.fio" \
		"$N/jobs/gpspm-server.fio" build/librpma_apm.so "$PEER_FIO"; do
	[ -e "$f" ] || { echo "FAIL native-engines: $f is missing (make native e2e-build)"; missing=1; }
done
[ -n "$DAX" ] || { echo "FAIL native-engines: no device DAX (run the VM with --pmem)"; missing=1; }
[ "$missing" -eq 0 ] || { rm -rf "$E2E_TMP"; exit 1; }

# the client's common options: 8 MiB written with checksums, then read back and checked
VERIFY=(--name=verify --serverip="$A" --port=@PORT@ --create_serialize=0 --thread --size=8m
	--verify=crc32c --do_verify=1 --verify_fatal=1 --verify_state_save=0)

# server commands: server_ours BUILD METHOD [VAR=VALUE...] / server_peer. The job files
# name the default build's engine: a native server runs make native's copy naming its own.
server_ours() {
	local build=$1 method=$2 job=jobs/$2-server.fio
	shift 2
	SERVER=(env "SERVER_IP=$A" PORT=@PORT@ SERVER_BUSY_WAIT=1 "$@")
	if [ "$build" = native ]; then
		SERVER=("${NATIVE_ENV[@]}" "${SERVER[@]}")
		job=$N/jobs/$method-server.fio
	fi
	SERVER+=(fio "$job")
}
server_peer() {
	SERVER=("$PEER_FIO" --name=peer-server --ioengine=librpma_apm_server --serverip="$A"
		--port=@PORT@ --create_serialize=0 --thread --filename=malloc --size=8m
		--direct_write_to_pmem=0)
}

# Start SERVER, wait until it listens (ours says so; the peer's shows in `rdma resource`).
start_server() {
	local cmd=("${SERVER[@]//@PORT@/$E2E_PORT}")
	timeout "$E2E_STEP_TIMEOUT" "${cmd[@]}" >"$E2E_DIR/server.log" 2>&1 &
	SPID=$!
	wait_deadline "$E2E_READY_TIMEOUT"
	local deadline=$WAIT_DEADLINE
	# (ours says so; the peer's server says nothing when it listens)
	until grep -q 'listening on' "$E2E_DIR/server.log" 2>/dev/null || e2e_listening "$E2E_PORT"; do
		if ! kill -0 "$SPID" 2>/dev/null || wait_past "$deadline"; then
			echo "  the server did not listen within $E2E_READY_TIMEOUT s" >>"$E2E_DIR/why"
			return 1
		fi
		nap 0.1
	done
}

# The APM client's note "F flushes: K completed as the device's own RDMA FLUSH":
# F > 0, and K must be F (WANT=all) or 0 (WANT=none).
flushes_are() {
	local want=$1 line f k
	line=$(grep -Eo '[0-9]+ flushes: [0-9]+ completed as the device' "$E2E_DIR/client.log" | head -n 1)
	f=${line%% *}
	k=$(sed -E 's/.*flushes: ([0-9]+) .*/\1/' <<<"$line")
	if [ -z "$line" ] || [ "$f" -eq 0 ]; then
		echo "  no flush count in the client's output" >>"$E2E_DIR/why"
		return 1
	fi
	echo "  flushes: $f posted, $k native FLUSH" >>"$E2E_DIR/counts"
	if { [ "$want" = all ] && [ "$k" -ne "$f" ]; } || { [ "$want" = none ] && [ "$k" -ne 0 ]; }; then
		echo "  expected $want of the $f flushes native, $k were" >>"$E2E_DIR/why"
		return 1
	fi
}

# pass NAME FLUSHES CLIENT_CMD...: the client exits 0, verified its data without error;
# FLUSHES: all|none (the note's count) or - (GPSPM: no note).
pass() {
	local name=$1 flushes=$2 status=0
	shift 2
	e2e_wanted "$name" || return 0
	e2e_setup "$name" true -- "$@"
	if start_server; then
		timeout "$E2E_STEP_TIMEOUT" "${E2E_CLIENT[@]}" >"$E2E_DIR/client.log" 2>&1 || {
			status=$?
			echo "  the client exited with $status" >>"$E2E_DIR/why"
		}
	else
		status=1
	fi
	local rc=0
	wait "$SPID" || rc=$?
	if [ "$rc" -ne 0 ] && [ "$status" -eq 0 ]; then
		echo "  the server exited with $rc" >>"$E2E_DIR/why"
		status=1
	fi
	if [ "$status" -eq 0 ]; then
		if ! grep -Eq '^ +(write|read): IOPS=' "$E2E_DIR/client.log" ||
				grep -Eq 'err= *[1-9]|verify: bad|fio: .*(error|failed)' "$E2E_DIR/client.log"; then
			echo "  the client moved no data, or reports an error" >>"$E2E_DIR/why"
			status=1
		fi
		[ "$flushes" = - ] || flushes_are "$flushes" || status=1
	fi
	finish "$name" "$status"
}

# refused NAME REGEX CLIENT_CMD...: the client fails at connection time (before any
# I/O) saying REGEX; the server (none if SERVER is empty) ends by itself.
refused() {
	local name=$1 regex=$2 status=0
	shift 2
	e2e_wanted "$name" || return 0
	e2e_setup "$name" true -- "$@"
	SPID=
	if [ ${#SERVER[@]} -eq 0 ] || start_server; then
		if timeout "$E2E_STEP_TIMEOUT" "${E2E_CLIENT[@]}" >"$E2E_DIR/client.log" 2>&1; then
			echo "  the client succeeded; it should have been refused" >>"$E2E_DIR/why"
			status=1
		elif ! grep -Eq "$regex" "$E2E_DIR/client.log"; then
			echo "  the client's output does not match /$regex/" >>"$E2E_DIR/why"
			status=1
		elif grep -Eq '^ +(write|read): IOPS=[1-9]' "$E2E_DIR/client.log"; then
			echo "  the client did I/O before it was refused" >>"$E2E_DIR/why"
			status=1
		fi
	else
		status=1
	fi
	# a server whose client left is done (the peer's APM server too); never left behind
	if [ -n "$SPID" ]; then
		if ! timeout 15 tail --pid="$SPID" -f /dev/null; then
			kill "$SPID" 2>/dev/null
			echo "  the server did not end after its client left" >>"$E2E_DIR/why"
			status=1
		fi
		wait "$SPID" 2>/dev/null
	fi
	finish "$name" "$status"
}

finish() {
	e2e_result "$1" "$2"
	[ -e "$E2E_DIR/counts" ] && cat "$E2E_DIR/counts"
	E2E_SERVER=("${SERVER[@]}")
	e2e_show_logs_if "$2"
	E2E_PORT=$((E2E_PORT + 2))
}

NAPM=(fio --ioengine=external:"$N/librpma_apm.so")
NCLIENT=("${NATIVE_ENV[@]}" "${NAPM[@]}")

# --- native both ends ---
server_ours native apm
pass apm-native-flush-1 all "${NCLIENT[@]}" "${VERIFY[@]}" --native_flush=1 --rw=randwrite \
	--bs=4k --iodepth=8 --iodepth_batch_submit=8
server_ours native apm
pass apm-native-flush-auto all "${NCLIENT[@]}" "${VERIFY[@]}" --rw=write --bs=64k --sync=1
server_ours native apm
pass apm-native-flush-0 none "${NCLIENT[@]}" "${VERIFY[@]}" --native_flush=0 --rw=randwrite \
	--bs=4k --iodepth=8 --iodepth_batch_submit=8
server_ours native apm "SERVER_MEM=$DAX" SERVER_SIZE=64m DIRECT_WRITE_TO_PMEM=1
pass apm-native-flush-persistent-devdax all "${NCLIENT[@]}" "${VERIFY[@]}" --native_flush=1 \
	--rw=randwrite --bs=16k --iodepth=8 --iodepth_batch_submit=4
server_ours native gpspm
pass gpspm-verify - "${NATIVE_ENV[@]}" fio --ioengine=external:"$N/librpma_gpspm.so" \
	"${VERIFY[@]}" --rw=randwrite --bs=4k --iodepth=8 --iodepth_batch_submit=8
# (refused before it connects: no server needed)
SERVER=()
refused gpspm-native-flush-1 'native_flush=1: GPSPM' "${NATIVE_ENV[@]}" \
	fio --ioengine=external:"$N/librpma_gpspm.so" "${VERIFY[@]}" --native_flush=1 --rw=write --bs=4k

# --- the ends differ: a server whose registration has no flush access ---
server_ours default apm
pass client-native-server-default-auto none "${NCLIENT[@]}" "${VERIFY[@]}" --rw=randwrite --bs=4k
server_ours default apm
refused client-native-server-default-flush-1 "native_flush=1: the server's memory does not take" \
	"${NCLIENT[@]}" "${VERIFY[@]}" --native_flush=1 --rw=randwrite --bs=4k
server_peer
pass client-native-server-peer-auto none "${NCLIENT[@]}" "${VERIFY[@]}" --rw=randwrite --bs=4k
server_peer
refused client-native-server-peer-flush-1 "native_flush=1: the server's memory does not take" \
	"${NCLIENT[@]}" "${VERIFY[@]}" --native_flush=1 --rw=randwrite --bs=4k

# --- the ends differ: a client whose device (rdma-core 44) cannot post FLUSH ---
server_ours native apm
pass client-default-server-native-auto none fio --ioengine=external:build/librpma_apm.so \
	"${VERIFY[@]}" --rw=randwrite --bs=4k
server_ours native apm
refused client-default-server-native-flush-1 "native_flush=1: this client's RDMA device" \
	fio --ioengine=external:build/librpma_apm.so "${VERIFY[@]}" --native_flush=1 --rw=write --bs=4k
# the peer's client never vouches: it emulates against a native server (fio's verify)
server_ours native apm
pass client-peer-server-native - "$PEER_FIO" --ioengine=librpma_apm_client "${VERIFY[@]}" --rw=randwrite --bs=4k --iodepth=8

e2e_summary
