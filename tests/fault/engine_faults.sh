#!/usr/bin/env bash
# tests/fault/engine_faults.sh -- the fio engines facing faults tests/e2e/engines.sh
# does not cover, over real Soft-RoCE, inside the VM:
#   scripts/softroce-vm run -- tests/fault/engine_faults.sh [--help]
#
# For each method (apm, gpspm): a second client for a workspace that is busy,
# a client knocking on the wrong port, a client of the other method (the GPSPM
# workspace grants no flush rights, so an APM client must refuse it), and the
# rxe link set down mid-run (the client must report the failed transport, the
# server its unanswered keepalive probe; the rxe device is recreated afterwards).
# Each: a non-zero exit, a message naming the cause, within a time limit.
# (engines.sh covers: no server, bad options, server killed, client killed.)
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1

case "${1:-}" in
-h|--help) sed -n '2,11s/^# \{0,1\}//p' "$0"; exit 0 ;;
"") ;;
*) echo "$0: unknown argument '$1' (see --help)" >&2; exit 2 ;;
esac
. tests/e2e/lib.sh
e2e_in_vm
RXE_NETDEV=${RXE_NETDEV:-rxenet0}
COMMON_VARS=("SERVER_IP=$A" RAMP=0 SERVER_BUSY_WAIT=0)

# start_server NAME METHOD 'VARS': a server in the background (E2E_SPID), listening
start_server() {
	local name=$1 method=$2 vars=$3
	E2E_PORT=$((E2E_PORT + 4))
	E2E_DIR=$E2E_TMP/$name
	mkdir -p "$E2E_DIR"
	# shellcheck disable=SC2086 # VARS: words on purpose
	timeout "$E2E_STEP_TIMEOUT" env "${COMMON_VARS[@]}" PORT="$E2E_PORT" $vars \
		fio "jobs/$method-server.fio" >"$E2E_DIR/server.log" 2>&1 &
	E2E_SPID=$!
	E2E_SERVER=(fio "jobs/$method-server.fio")
	if ! e2e_wait_line "$E2E_DIR/server.log" 'listening on' "$E2E_READY_TIMEOUT"; then
		echo "  the server did not listen" >>"$E2E_DIR/why"
		return 1
	fi
}

# client METHOD PORT 'VARS' LOG: a client in the background (CPID)
client() {
	local method=$1 port=$2 vars=$3 log=$4
	# shellcheck disable=SC2086
	timeout "$E2E_STEP_TIMEOUT" env "${COMMON_VARS[@]}" PORT="$port" $vars \
		fio --ioengine=external:"build/librpma_$method.so" jobs/randwrite.fio >"$log" 2>&1 &
	CPID=$!
}

# expect_failure PID LOG REGEX MAX: PID must exit non-zero (not by the timeout)
# within MAX seconds, its log matching REGEX. Appends the reason to why.
expect_failure() {
	local pid=$1 log=$2 regex=$3 max=$4 t0=$SECONDS rc=0 waited=0
	while kill -0 "$pid" 2>/dev/null && [ "$waited" -lt $((max * 10)) ]; do
		nap 0.1
		waited=$((waited + 1))
	done
	if kill -0 "$pid" 2>/dev/null; then
		echo "  $(basename "$log" .log) still runs after $max s" >>"$E2E_DIR/why"
		kill -KILL "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
		return 1
	fi
	wait "$pid" || rc=$?
	if [ "$rc" -eq 0 ] || [ "$rc" -eq 124 ] || [ "$rc" -gt 128 ]; then
		echo "  $(basename "$log" .log) exited with $rc (expected a failure of its own)" >>"$E2E_DIR/why"
		return 1
	fi
	if ! grep -Eq "$regex" "$log"; then
		echo "  $(basename "$log" .log)'s output does not match /$regex/" >>"$E2E_DIR/why"
		return 1
	fi
	echo "  $(basename "$log" .log) failed as expected after $((SECONDS - t0)) s: $(grep -Em1 "$regex" "$log" | cut -c1-200)"
}

# server_gone SECONDS WHEN: wait for the server to end; after SECONDS it is
# killed and the test told "the server still runs SECONDS s WHEN"
server_gone() {
	local limit=$1 when=$2 waited=0
	while kill -0 "$E2E_SPID" 2>/dev/null && [ "$waited" -lt $((limit * 10)) ]; do
		nap 0.1
		waited=$((waited + 1))
	done
	kill -0 "$E2E_SPID" 2>/dev/null || return 0
	echo "  the server still runs $limit s $when" >>"$E2E_DIR/why"
	kill -KILL "$E2E_SPID" 2>/dev/null
	wait "$E2E_SPID" 2>/dev/null
	return 1
}

# end_server [EXPECTED_RC]: the server must end within 30 s (with EXPECTED_RC when given)
end_server() {
	local want=${1:-} rc=0
	server_gone 30 later || return 1
	wait "$E2E_SPID" || rc=$?
	if [ -n "$want" ] && [ "$rc" -ne "$want" ]; then
		echo "  the server exited with $rc (expected $want)" >>"$E2E_DIR/why"
		return 1
	fi
}

# stop_server REGEX: SIGTERM the server's fio (the child of its `timeout`); it must
# end within 10 s, not killed, its output matching REGEX
stop_server() {
	local regex=$1 rc=0 t0=$SECONDS
	pkill -TERM -P "$E2E_SPID"
	server_gone 10 "after SIGTERM" || return 1
	wait "$E2E_SPID" || rc=$?
	# fio itself ends with 128 + the number of failed jobs after a signal: only
	# timeout's 124 and deaths by SIGABRT, SIGBUS, SIGFPE, SIGKILL, SIGSEGV are failures
	case $rc in
	124|134|135|136|137|139)
		echo "  the server ended with $rc after SIGTERM" >>"$E2E_DIR/why"
		return 1 ;;
	esac
	grep -Eq "$regex" "$E2E_DIR/server.log" || {
		echo "  the server's output does not match /$regex/" >>"$E2E_DIR/why"; return 1; }
	echo "  the server ended ($rc) $((SECONDS - t0)) s after SIGTERM"
}

finish() { # NAME STATUS
	e2e_result "$1" "$2"
	e2e_show_logs_if "$2"
}

# Bring the link back. rxe does not recover by itself from its netdev going down
# (connections to the address go unanswered afterwards): recreate the device.
rxe_restore() {
	local dev i
	dev=$(rdma link show 2>/dev/null | sed -n "s|^link \([^/]*\)/.*netdev $RXE_NETDEV.*|\1|p" | head -n1)
	ip link set "$RXE_NETDEV" up || return 1
	[ -n "$dev" ] && { rdma link delete "$dev" || return 1; }
	rdma link add "${dev:-rxe0}" type rxe netdev "$RXE_NETDEV" || return 1
	for i in $(seq 1 100); do
		rdma link show 2>/dev/null | grep -q 'state ACTIVE' && return 0
		nap 0.1
	done
	return 1
}

link_down() { # METHOD
	local m=$1 name=$1-link-down status=0 rc=0
	start_server "$name" "$m" 'RUNTIME=12s' || { finish "$name" 1; return; }
	client "$m" "$E2E_PORT" 'RUNTIME=12s CONNECT_TIMEOUT=5000' "$E2E_DIR/client.log"
	sleep 4 # connected, I/O flowing
	ip link set "$RXE_NETDEV" down
	echo "  set $RXE_NETDEV down" >>"$E2E_DIR/why"
	expect_failure "$CPID" "$E2E_DIR/client.log" \
		'RDMA operation failed: .*(transport error|retry exceeded)|connection .*lost|no completion from the server' 40 || status=1
	# no disconnection crosses a link that is down: the server learns that its
	# client is gone from its keepalive probe, unanswered (1 s + 5 s)
	expect_failure "$E2E_SPID" "$E2E_DIR/server.log" \
		"the client's host or its link is gone" 20 || status=1
	rxe_restore || { echo "  could not bring rxe back" >>"$E2E_DIR/why"; status=1; }
	finish "$name" "$status"
}

busy_workspace() { # METHOD
	local m=$1 name=$1-busy-workspace status=0 rc=0
	start_server "$name" "$m" 'RUNTIME=8s' || { finish "$name" 1; return; }
	client "$m" "$E2E_PORT" 'RUNTIME=8s' "$E2E_DIR/client1.log"
	local first=$CPID
	sleep 3
	client "$m" "$E2E_PORT" 'RUNTIME=2s CONNECT_TIMEOUT=3000' "$E2E_DIR/client2.log"
	expect_failure "$CPID" "$E2E_DIR/client2.log" \
		'rejected|no server accepted|busy|already' 15 || status=1
	wait "$first" || rc=$?
	[ "$rc" -eq 0 ] || { echo "  the first client exited with $rc" >>"$E2E_DIR/why"; status=1; }
	end_server 0 || status=1
	finish "$name" "$status"
}

wrong_port() { # METHOD
	local m=$1 name=$1-wrong-port status=0
	start_server "$name" "$m" 'RUNTIME=2s' || { finish "$name" 1; return; }
	local wrong=$((E2E_PORT + 2))
	client "$m" "$wrong" 'RUNTIME=2s CONNECT_TIMEOUT=2000' "$E2E_DIR/client.log"
	expect_failure "$CPID" "$E2E_DIR/client.log" \
		"no server accepted a connection at $A:$wrong within connect_timeout=2000 ms" 10 || status=1
	# a server waits for its client as long as it is let: stop it, it must say so and end
	stop_server 'stopped before a client connected' || status=1
	finish "$name" "$status"
}

other_method() { # SERVER_METHOD CLIENT_METHOD REGEX
	local sm=$1 cm=$2 regex=$3 name=$1-server-$2-client status=0
	start_server "$name" "$sm" 'RUNTIME=2s CONNECT_TIMEOUT=8000' || { finish "$name" 1; return; }
	client "$cm" "$E2E_PORT" 'RUNTIME=2s CONNECT_TIMEOUT=3000' "$E2E_DIR/client.log"
	expect_failure "$CPID" "$E2E_DIR/client.log" "$regex" 15 || status=1
	end_server || status=1
	finish "$name" "$status"
}

start=$SECONDS
for m in apm gpspm; do
	[ -f "build/librpma_$m.so" ] || { echo "build/librpma_$m.so is missing: make engines" >&2; exit 1; }
done
for m in apm gpspm; do
	busy_workspace "$m"
	wrong_port "$m"
done
# least access: the GPSPM workspace carries no flush type, so an APM client cannot flush it
other_method gpspm apm "the server's memory allows no flush at all"
other_method apm gpspm 'max_msg_num 0 in its workspace'
# last: it takes the link down (and recreates the rxe device afterwards)
for m in apm gpspm; do
	link_down "$m"
done
echo "engine faults: $((SECONDS - start)) s"
e2e_summary
