#!/usr/bin/env bash
# tests/e2e/iwarp.sh -- the library, the examples and both engines over Soft-iWARP
# (siw), inside the VM started with both transports:
#
#   scripts/softroce-vm run --transport rxe,iwarp --pmem -- tests/e2e/iwarp.sh
#
# Everything runs against RPMA_TEST_IWARP_ADDR, an address only siw0 has. What
# iWARP does differently, each shown here:
#   - the device: siw0 is an iWARP device and a listening id binds to it;
#   - locked memory: siw counts registrations against RLIMIT_MEMLOCK even for
#     root (hardware does for users without CAP_IPC_LOCK): with the default
#     limit a server's registration fails and the engine names the limit; the
#     rest runs with `ulimit -l unlimited`;
#   - no immediate data: the example that uses it is refused up front with
#     RPMA_E_NOSUPP and a line naming iWARP, never a provider error;
#   - everything else works: every other example (DRAM and device DAX), both
#     engines' DRAM workloads with fio's verify (sync and batched, reads and
#     writes mixed: iWARP completes a SEND before the reads posted ahead of it,
#     which GPSPM's ordering must not rely on), a client started before its
#     server (iWARP refuses the TCP connection at once: the client retries), and
#     the peer (fio 3.33's engines over upstream librpma) both ways.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/e2e/lib.sh

: "${RPMA_TEST_IWARP_ADDR:?run me in the VM with --transport rxe,iwarp (or iwarp)}"
A=$RPMA_TEST_IWARP_ADDR
X=build/examples
E2E_PORT=8100
export E2E_NAME_PREFIX=iwarp-

# siw0 is iWARP, and a server listening on A listens on siw0, in the TCP port space
device_is_iwarp() {
	local status=0 pid
	e2e_setup device-is-iwarp "$X"/01-connection server "$A" @PORT@ @READY@ -- true
	if ! ibv_devinfo -d siw0 2>&1 | grep -Eq 'transport:[[:space:]]+iWARP'; then
		echo "  ibv_devinfo -d siw0 does not say transport iWARP" >>"$E2E_DIR/why"
		status=1
	fi
	EXAMPLE_TIMEOUT_S=5 "${E2E_SERVER[@]}" >"$E2E_DIR/server.log" 2>&1 &
	pid=$!
	if ! e2e_wait_file "$E2E_READY" "$E2E_READY_TIMEOUT" "$pid"; then
		echo "  the server did not listen" >>"$E2E_DIR/why"
		status=1
	elif ! rdma resource show cm_id 2>/dev/null | grep -Eq "link siw0/[0-9]+ .*state LISTEN ps TCP .*src-addr $A:$E2E_PORT "; then
		rdma resource show cm_id >>"$E2E_DIR/why" 2>&1
		echo "  no listening id of siw0 on $A:$E2E_PORT" >>"$E2E_DIR/why"
		status=1
	fi
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	e2e_result device-is-iwarp "$status"
	e2e_show_logs_if "$status"
}

# 05-immediate: the client's zero-byte receive is refused by name, no provider error
immediate_refused() {
	local status=0 rc=0 pid
	e2e_setup immediate-refused "$X"/05-immediate server "$A" @PORT@ @READY@ -- \
		"$X"/05-immediate client "$A" @PORT@
	EXAMPLE_TIMEOUT_S=10 timeout "$E2E_STEP_TIMEOUT" "${E2E_SERVER[@]}" >"$E2E_DIR/server.log" 2>&1 &
	pid=$!
	if e2e_wait_file "$E2E_READY" "$E2E_READY_TIMEOUT" "$pid"; then
		timeout "$E2E_STEP_TIMEOUT" "${E2E_CLIENT[@]}" >"$E2E_DIR/client.log" 2>&1 || rc=$?
	else
		echo "  the server did not listen" >>"$E2E_DIR/why"
		status=1
	fi
	wait "$pid" # it fails too (the client left); it must end by itself
	if [ "$rc" -eq 0 ] || [ "$rc" -eq 124 ]; then
		echo "  the client exited with $rc: it should have been refused" >>"$E2E_DIR/why"
		status=1
	elif ! grep -q 'rpma_recv of 0 bytes: iWARP has no immediate data' "$E2E_DIR/client.log" ||
			! grep -q 'rpma_recv: Not supported' "$E2E_DIR/client.log"; then
		echo "  the client does not say iWARP refused the receive (RPMA_E_NOSUPP)" >>"$E2E_DIR/why"
		status=1
	elif grep -q 'Provider error' "$E2E_DIR/client.log"; then
		echo "  a provider error reached the client" >>"$E2E_DIR/why"
		status=1
	fi
	e2e_result immediate-refused "$status"
	e2e_show_logs_if "$status"
}

# the default locked-memory limit (8 MiB): the server cannot register, and says why
e2e_fails memlock-limit-named 'locked-memory limit \(ulimit -l\) is 8388608 bytes' \
	prlimit --memlock=8388608:8388608 env SERVER_IP="$A" PORT=@PORT@ SERVER_SIZE=64m \
	fio jobs/apm-server.fio
ulimit -l unlimited

device_is_iwarp
immediate_refused
status=0
# every other example over siw
RPMA_TEST_ADDR=$A E2E_PORT=8200 E2E_ONLY='^(connection|write-flush-read-.*|atomic-write-.*|messages|receive-cq|srq|multiple-connections|reject|peer-gone-.*|multithreaded)$' \
	tests/e2e/examples.sh || status=1
# both engines' DRAM workloads that mix reads and writes, batch, sleep on the channel or
# verify (fio's verify: sync, batched, channel), a lane each; a client started first
RPMA_TEST_ADDR=$A E2E_ONLY='^(apm|gpspm)-(dram-workloads|client-starts-first)$' E2E_PORT=8400 \
	E2E_SECTIONS='^(rw-4k-sync|rw-64k-qd8-batch4|randwrite-4k-qd16-batch16|randread-4k-qd16-batch8|verify-.*)$' \
	tests/e2e/engines.sh || status=1
# the peer, both ways: its client against our server, ours against its server
RPMA_TEST_ADDR=$A INTEROP_ONLY='qd16-batch16-dram-(ours-client-theirs-server|theirs-client-ours-server)$' \
	tests/e2e/interop.sh || status=1
e2e_summary || status=1
exit "$status"
