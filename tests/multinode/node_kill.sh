#!/usr/bin/env bash
# tests/multinode/node_kill.sh -- whole hosts lost mid-run, rebooted by sysrq (the
# guest stops at once; with QEMU's -no-reboot it is gone for good):
#  - the server host (node1) while a client here writes to it: the client must fail
#    by itself with the problem named, within seconds; then a new run against
#    another server host (node2) must work;
#  - then the client host (node2) while it writes to servers of both methods here:
#    no disconnection ever comes, and each server must end by itself within its
#    keepalive and the 5 s its probe waits for an answer, naming the lost client;
#    then a new run against a server here must work.
# Last of run.sh's suites: the nodes do not come back.
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/multinode/lib.sh
. tests/multinode/lib.sh

[ "$SOFTROCE_VM_NODES" -ge 3 ] || { echo "node_kill.sh: needs 3 nodes (this run has $SOFTROCE_VM_NODES)"; exit 1; }
KILL_AFTER=4

server_node_lost() { # METHOD
	local m=$1 name=$1-server-node-lost status=0 rc=0 t0
	e2e_wanted "$name" || return 0
	if start_long_pair "$name" "$m"; then
		sleep "$KILL_AFTER"
		t0=$SECONDS
		lose_node "$SERVER_NODE"
		echo "  rebooted $SERVER_NODE (sysrq) $KILL_AFTER s into the run" >>"$E2E_DIR/why"
		wait "$CPID" || rc=$?
		client_noticed "$rc" $((SECONDS - t0)) 15 "$E2E_DIR/client.log" || status=1
	else
		status=1
	fi
	# the ssh that carried the server waits for a host that is gone: end it here
	kill "$SPID" 2>/dev/null
	wait "$SPID" 2>/dev/null
	e2e_result "$name" "$status"
	e2e_show_logs_if "$status"
}

# (a guest's sessions die with it: end the ssh that carried them, don't wait)
lose_node() { # NODE
	timeout 10 ssh -n "$1" 'echo b >/proc/sysrq-trigger' >/dev/null 2>&1 &
}

CLIENT_NODE=node2
HERE=$(hostname)
HERE_ADDR=$(node_addr "$HERE")
# what docs/engines.md promises a server whose client host is lost: keepalive (1 s)
# plus the 5 s a probe waits for its answer, with room for TCG's slack
CLIENT_LOST_MAX=20

# A METHOD server here and its client on CLIENT_NODE (over ssh), writing for up to
# 40 s. Appends the test's directory, server and client pids to DIRS, SPIDS, CPIDS.
start_remote_client() { # NAME METHOD
	local name=$1 m=$2 E2E_SERVER_HOST=
	e2e_setup "$name" env SERVER_IP="$HERE_ADDR" PORT=@PORT@ SERVER_BUSY_WAIT=0 KEEPALIVE=1000 \
		fio "jobs/$m-server.fio" -- \
		timeout 60 env SERVER_IP="$HERE_ADDR" PORT=@PORT@ RUNTIME=40s RAMP=0 \
		fio --ioengine=external:"build/librpma_$m.so" jobs/randwrite.fio
	DIRS+=("$E2E_DIR")
	PORTS+=("$E2E_PORT")
	e2e_run_server >"$E2E_DIR/server.log" 2>&1 &
	SPIDS+=($!)
	if ! e2e_wait_line "$E2E_DIR/server.log" 'listening on' "$E2E_READY_TIMEOUT" "${SPIDS[-1]}"; then
		echo "  the server did not listen" >>"$E2E_DIR/why"
		CPIDS+=('') # no client: nothing to stop (kill 0 would signal this whole group)
		return 1
	fi
	ssh -n "$CLIENT_NODE" "cd $(printf '%q' "$PWD") && . /etc/softroce-vm.env && $(printf '%q ' "${E2E_CLIENT[@]}")" \
		>"$E2E_DIR/client.log" 2>&1 &
	CPIDS+=($!)
}

# Wait until a connection to this node's port PORT is established, at most LIMIT seconds.
wait_connected() { # PORT LIMIT
	e2e_wait_connected "$1" "$HERE_ADDR" "$2"
}

# Both methods' servers here lose their client host at once.
client_node_lost() {
	local DIRS=() PORTS=() SPIDS=() CPIDS=() status=() names=() t0 i rc took
	for m in apm gpspm; do
		e2e_wanted "$m-client-node-lost" || continue
		names+=("$m-client-node-lost")
		status+=(0)
		start_remote_client "$m-client-node-lost" "$m" || status[-1]=1
	done
	[ ${#names[@]} -gt 0 ] || return 0
	# (two clients connecting at once on a one-vCPU TCG guest may take seconds)
	for i in "${!names[@]}"; do
		[ "${status[i]}" -ne 0 ] || wait_connected "${PORTS[i]}" 30 || {
			echo "  no client from $CLIENT_NODE connected within 30 s; the CM's connections:" >>"${DIRS[i]}/why"
			rdma resource show cm_id >>"${DIRS[i]}/why" 2>&1
			status[i]=1; }
	done
	sleep "$KILL_AFTER"
	t0=$SECONDS
	lose_node "$CLIENT_NODE"
	for i in "${!names[@]}"; do
		E2E_DIR=${DIRS[i]}
		rc=0
		wait "${SPIDS[i]}" || rc=$?
		took=$((SECONDS - t0))
		echo "  rebooted $CLIENT_NODE (sysrq) $KILL_AFTER s into the run" >>"$E2E_DIR/why"
		server_noticed "$rc" "$took" "$CLIENT_LOST_MAX" "$E2E_DIR/server.log" || status[i]=1
		if [ -n "${CPIDS[i]}" ]; then
			kill "${CPIDS[i]}" 2>/dev/null
			wait "${CPIDS[i]}" 2>/dev/null
		fi
		e2e_result "${names[i]}" "${status[i]}"
		e2e_show_logs_if "${status[i]}"
	done
}

server_node_lost apm
# node1 is gone: the next server host takes over
verified_run gpspm-after-server-node-lost gpspm node2 4m '' --rw=randwrite --bs=4k --iodepth=8
client_node_lost
# node2 is gone too: this node serves a new run, over rxe's loopback
verified_run apm-after-client-node-lost apm "$HERE" 4m '' --rw=randwrite --bs=4k --iodepth=8
e2e_summary
