#!/usr/bin/env bash
# tests/multinode/node_kill.sh -- a whole server host lost mid-run: node1 is
# rebooted by sysrq (the guest stops at once; with QEMU's -no-reboot it is gone
# for good) while a client here writes to it. The client must fail by itself with
# the problem named, within seconds; then a new run against another server host
# (node2) must work. Last of run.sh's suites: node1 does not come back.
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
		# (the session dies with the node: don't wait for it)
		timeout 10 ssh -n "$SERVER_NODE" 'echo b >/proc/sysrq-trigger' >/dev/null 2>&1 &
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

server_node_lost apm
# node1 is gone: the next server host takes over
verified_run gpspm-after-server-node-lost gpspm node2 4m '' --rw=randwrite --bs=4k --iodepth=8
e2e_summary
