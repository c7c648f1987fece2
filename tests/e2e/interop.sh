#!/usr/bin/env bash
# tests/e2e/interop.sh -- rpma-fio's engines against the peer: fio 3.33's in-tree
# librpma_{apm,gpspm}_{client,server} engines over upstream librpma 1.2.0
# (build/peer/fio, made by scripts/build_peer.sh, `make peer`). Inside the VM:
#
#   scripts/softroce-vm run --pmem --timeout 900 -- tests/e2e/interop.sh
#
# For each method (APM, GPSPM) and each direction (our client with the peer's
# server, the peer's client with our server), the client's data must be the data
# the server holds, with sync=1 and with batches of 16 writes (ours makes a
# batch durable with one flush; the peer flushes each random write):
#   - DRAM: fio's verify (crc32c in every block, then everything read back over
#     RDMA and checked). The peer's GPSPM client cannot read: against our
#     server it writes a pattern into a file on tmpfs instead, checked as below;
#   - device DAX: the client writes a pattern, the server ends, then
#     /dev/dax0.0 is read directly (fio's dev-dax engine) and must hold exactly
#     that pattern (and the check must reject a pattern nobody wrote).
# Drop-in ("-dropin" tests): the peer's fio, linked against upstream's
# librpma.so.0, runs its own engines on BOTH ends against our library
# (LD_LIBRARY_PATH=build, checked with ldd first): APM with fio's verify on
# DRAM, GPSPM with a pattern on device DAX.
# The suite fails, not skips, when build/peer/fio or device DAX is missing.
#
# GPSPM servers busy-poll: a sleeping one answers a sync=1 client ~40 times more
# slowly under TCG (both the peer's and ours; tests/e2e/engines_gpspm.sh tests
# ours sleeping).
# Clients start once their server listens: ours says "listening on"; the
# peer's says nothing, so `rdma resource show cm_id` must show it LISTENing.
# INTEROP_ONLY=REGEX runs only the tests whose name matches.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/e2e/lib.sh
e2e_in_vm --pmem
PEER_FIO=${PEER_FIO:-build/peer/fio}
DAX=${RPMA_TEST_DEVDAX:-}
E2E_PORT=7900
IP_NAME_SUFFIX=
# sizes in bytes (fio's units depend on kb_base); 16 MiB: the largest client size, a
# multiple of devdax's 2 MiB (the peer's server zeroes all of it at start: slow under TCG)
SERVER_BYTES=16777216
CONNECT_MS=20000

missing=0
for f in "$PEER_FIO" build/librpma_apm.so build/librpma_gpspm.so; do
	[ -x "$f" ] || [ -f "$f" ] || { echo "FAIL interop: $f is missing (make peer engines)"; missing=1; }
done
[ -n "$DAX" ] || { echo "FAIL interop: no device DAX (run the VM with --pmem)"; missing=1; }
[ "$missing" -eq 0 ] || { rm -rf "$E2E_TMP"; exit 1; }

# what the peer's fio runs with: nothing, or (drop-in) our library in its place
IP_PEER_ENV=(env)

ip_want() {
	[[ $1 =~ ${INTEROP_ONLY:-.} ]]
}

# ip_server_cmd OWNER METHOD MEM: the server's command in IP_SERVER
# (OWNER: ours|theirs; MEM: malloc or a device-DAX path).
ip_server_cmd() {
	local owner=$1 method=$2 mem=$3
	if [ "$owner" = ours ]; then
		# devdax: advertise direct write to PMem, so APM clients flush persistently
		local direct=0
		[ "$mem" = malloc ] || direct=1
		IP_SERVER=(env "SERVER_IP=$A" "PORT=$E2E_PORT" "SERVER_MEM=$mem" "SERVER_SIZE=$SERVER_BYTES"
			"DIRECT_WRITE_TO_PMEM=$direct" SERVER_BUSY_WAIT=1 "CONNECT_TIMEOUT=$CONNECT_MS"
			fio "jobs/$method-server.fio")
	else
		IP_SERVER=("${IP_PEER_ENV[@]}" "$PEER_FIO" --name=peer-server --ioengine="librpma_${method}_server"
			--serverip="$A" --port="$E2E_PORT" --create_serialize=0 --thread
			--filename="$mem" --size="$SERVER_BYTES" --direct_write_to_pmem=0)
		# (its GPSPM server ends when its client says so)
		[ "$method" = apm ] || IP_SERVER+=(--iodepth=64 --busy_wait_polling=1
			--time_based --runtime=365d)
	fi
}

# ip_client_cmd OWNER METHOD: the start of the client's command in IP_CLIENT.
ip_client_cmd() {
	local owner=$1 method=$2
	if [ "$owner" = ours ]; then
		IP_CLIENT=(fio --ioengine=external:"build/librpma_$method.so"
			--connect_timeout="$CONNECT_MS")
	else
		IP_CLIENT=("${IP_PEER_ENV[@]}" "$PEER_FIO" --ioengine="librpma_${method}_client")
	fi
	IP_CLIENT+=(--name=client --serverip="$A" --port="$E2E_PORT" --create_serialize=0 --thread)
}

# Wait until an RDMA CM ID listens on port $1, at most $2 s, while process $3 lives
# (the peer's server says nothing when it listens).
ip_wait_listening() {
	local port=$1 pid=$3
	wait_deadline "$2"
	local deadline=$WAIT_DEADLINE
	until e2e_listening "$port"; do
		wait_past "$deadline" && return 1
		kill -0 "$pid" 2>/dev/null || return 1
		nap 0.1
	done
}

# Start the server in the background (under timeout); wait until our server
# listens. Sets IP_SPID.
ip_start_server() {
	local owner=$1
	timeout "$E2E_STEP_TIMEOUT" "${IP_SERVER[@]}" >"$E2E_DIR/server.log" 2>&1 &
	IP_SPID=$!
	if [ "$owner" = theirs ]; then
		ip_wait_listening "$E2E_PORT" "$E2E_READY_TIMEOUT" "$IP_SPID" && return 0
		echo "  the peer's server did not listen within $E2E_READY_TIMEOUT s" >>"$E2E_DIR/why"
		return 1
	fi
	if ! e2e_wait_line "$E2E_DIR/server.log" 'listening on' "$E2E_READY_TIMEOUT"; then
		echo "  our server did not listen within $E2E_READY_TIMEOUT s" >>"$E2E_DIR/why"
		return 1
	fi
}

# Does $E2E_DIR/client.log show I/O in each direction of $1 ("write", "read write")?
ip_client_moved() {
	local dir
	for dir in $1; do
		if ! grep -Eq "^ +${dir}: IOPS=" "$E2E_DIR/client.log"; then
			echo "  the client did no $dir" >>"$E2E_DIR/why"
			return 1
		fi
	done
	if grep -Eq 'err= *[1-9]|verify: bad|fio: .*(error|failed)' "$E2E_DIR/client.log"; then
		echo "  the client's log reports an error" >>"$E2E_DIR/why"
		return 1
	fi
}

# The server's memory $1 (device DAX or a file) must hold pattern $2 over its
# first $3 bytes, and not 0x00c0ffee.
ip_memory_holds() {
	local mem=$1 pattern=$2 size=$3 engine=psync
	[ -c "$mem" ] && engine=dev-dax
	local checker=("$E2E_DEBIAN_FIO" --name=check --ioengine="$engine" --filename="$mem" --rw=write --bs=2m
		--size="$size" --verify=pattern --verify_only --verify_state_save=0)
	if ! timeout "$E2E_STEP_TIMEOUT" "${checker[@]}" --verify_pattern="$pattern" \
		>"$E2E_DIR/client-check.log" 2>&1; then
		echo "  $mem does not hold the pattern $pattern the client wrote" >>"$E2E_DIR/why"
		return 1
	fi
	if timeout "$E2E_STEP_TIMEOUT" "${checker[@]}" --verify_pattern=0x00c0ffee \
		>"$E2E_DIR/client-check-other.log" 2>&1; then
		echo "  the check also accepts a pattern nobody wrote" >>"$E2E_DIR/why"
		return 1
	fi
}

# ip_test NAME METHOD SERVER_OWNER MEM CHECK SIZE CLIENT_ARGS...
# The client does its I/O (CLIENT_ARGS) over the first SIZE bytes of the
# server's memory MEM (malloc, device DAX, or a file, created here). CHECK:
#   verify:  fio's verify over RDMA: the client's log must show the writes and
#            the reads that checked them, no error;
#   pattern: the client writes a random pattern; once the server has ended,
#            MEM (device DAX or a file) must hold it.
ip_test() {
	local method=$2 owner=$3 mem=$4 check=$5 size=$6 status=0 rc=0
	local client_owner=ours
	[ "$owner" = ours ] && client_owner=theirs
	# (PEER_BOTH=1: the peer's client too)
	if [ "${PEER_BOTH:-0}" = 1 ]; then client_owner=theirs; fi
	local name=$method-$1-$client_owner-client-$owner-server$IP_NAME_SUFFIX
	shift 6
	ip_want "$name" || return 0
	E2E_PORT=$((E2E_PORT + 1))
	E2E_DIR="$E2E_TMP/$name"
	mkdir -p "$E2E_DIR"
	ip_server_cmd "$owner" "$method" "$mem"
	ip_client_cmd "$client_owner" "$method"
	E2E_SERVER=("${IP_SERVER[@]}")
	[ -c "$mem" ] || [ "$mem" = malloc ] || truncate -s "$SERVER_BYTES" "$mem"
	local extra=() pattern=
	if [ "$check" = pattern ]; then
		pattern=$(printf '0x%08x' $(((RANDOM << 17 ^ RANDOM << 2 ^ RANDOM) & 0x7fffffff | 0x01010101)))
		extra=(--verify=pattern --verify_pattern="$pattern" --do_verify=0 --verify_state_save=0)
	else
		extra=(--verify=crc32c --do_verify=1 --verify_fatal=1 --verify_state_save=0)
	fi
	echo "  client: ${IP_CLIENT[*]} --size=$size ${extra[*]} $*" >"$E2E_DIR/why"
	if ip_start_server "$owner"; then
		timeout "$E2E_STEP_TIMEOUT" "${IP_CLIENT[@]}" --size="$size" "${extra[@]}" "$@" \
			>"$E2E_DIR/client.log" 2>&1 || rc=$?
		[ "$rc" -eq 0 ] || { echo "  the client exited with $rc" >>"$E2E_DIR/why"; status=1; }
	else
		status=1
		kill "$IP_SPID" 2>/dev/null
	fi
	# (a server whose client failed may wait for ever: the step's timeout ends it)
	wait "$IP_SPID" || { echo "  the server exited with $?" >>"$E2E_DIR/why"; status=1; }
	if [ "$status" -eq 0 ]; then
		if [ "$check" = pattern ]; then
			ip_client_moved write || status=1
			[ "$status" -ne 0 ] || ip_memory_holds "$mem" "$pattern" "$size" || status=1
		else
			ip_client_moved "write read" || status=1
		fi
	fi
	e2e_result "$name" "$status"
	[ "$status" -eq 0 ] && grep -E '^ +(write|read): IOPS' "$E2E_DIR/client.log"
	e2e_show_logs_if "$status"
	return 0
}

MIB=1048576
for method in apm gpspm; do
	ip_test verify-randwrite-4k-sync-dram "$method" theirs malloc verify $((2 * MIB)) \
		--rw=randwrite --bs=4k --sync=1
	# batches of 16 writes: ours makes each batch durable with one flush
	ip_test verify-randwrite-4k-qd16-batch16-dram "$method" theirs malloc verify $((8 * MIB)) \
		--rw=randwrite --bs=4k --iodepth=16 --iodepth_batch_submit=16 \
		--iodepth_batch_complete_min=16
done
# the peer's APM client reads; its GPSPM client cannot (it expects every
# completion to be a flush response): it writes a pattern into a file (tmpfs)
ip_test verify-randwrite-4k-sync-dram apm ours malloc verify $((2 * MIB)) \
	--rw=randwrite --bs=4k --sync=1
ip_test verify-randwrite-4k-qd16-batch16-dram apm ours malloc verify $((8 * MIB)) \
	--rw=randwrite --bs=4k --iodepth=16 --iodepth_batch_submit=16 --iodepth_batch_complete_min=16
ip_test pattern-randwrite-4k-sync-tmpfs gpspm ours "$E2E_TMP/gpspm-sync.mem" pattern $((2 * MIB)) \
	--rw=randwrite --bs=4k --sync=1
ip_test pattern-randwrite-4k-qd16-batch16-tmpfs gpspm ours "$E2E_TMP/gpspm-batch.mem" pattern \
	$((8 * MIB)) --rw=randwrite --bs=4k --iodepth=16 --iodepth_batch_submit=16 \
	--iodepth_batch_complete_min=16
# device DAX, both ways
for method in apm gpspm; do
	for owner in theirs ours; do
		ip_test pattern-write-64k-qd8-batch8-devdax "$method" "$owner" "$DAX" pattern $((16 * MIB)) \
			--rw=write --bs=64k --iodepth=8 --iodepth_batch_submit=8
		ip_test pattern-randwrite-4k-qd16-batch16-devdax "$method" "$owner" "$DAX" pattern \
			$((4 * MIB)) --rw=randwrite --bs=4k --iodepth=16 --iodepth_batch_submit=16
	done
done

# Drop-in: the peer's fio, linked against upstream's librpma.so.0, runs its own
# in-tree engines on both sides against OUR library (build/librpma.so.0 first on
# LD_LIBRARY_PATH): same soname, same symbol version node.
OURS_DIR=$PWD/build
ip_dropin_loads_ours() {
	local name=dropin-loader-resolves-librpma.so.0-to-ours status=0 got
	ip_want "$name" || return 0
	E2E_DIR=$E2E_TMP/$name
	mkdir -p "$E2E_DIR"
	got=$(LD_LIBRARY_PATH=$OURS_DIR ldd "$PEER_FIO" | awk '$1 == "librpma.so.0" { print $3 }')
	if [ "$(readlink -f "$got")" != "$(readlink -f "$OURS_DIR/librpma.so")" ]; then
		echo "  librpma.so.0 resolves to '$got', not $OURS_DIR/librpma.so.0" >>"$E2E_DIR/why"
		status=1
	fi
	e2e_result "$name" "$status"
	e2e_show_logs_if "$status"
}
ip_dropin_loads_ours
IP_PEER_ENV=(env LD_LIBRARY_PATH="$OURS_DIR") IP_NAME_SUFFIX=-dropin
# ip_test with the peer's fio on both ends
ip_test_peer_pair() {
	PEER_BOTH=1 ip_test "$@"
}
ip_test_peer_pair verify-randwrite-4k-qd16-batch16-dram apm theirs malloc verify $((8 * MIB)) \
	--rw=randwrite --bs=4k --iodepth=16 --iodepth_batch_submit=16 --iodepth_batch_complete_min=16
# (the peer's GPSPM client cannot read, and its server maps files only on PMem)
ip_test_peer_pair pattern-randwrite-4k-sync-devdax gpspm theirs "$DAX" pattern \
	$((2 * MIB)) --rw=randwrite --bs=4k --sync=1

e2e_summary
