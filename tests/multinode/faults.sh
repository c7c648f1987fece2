#!/usr/bin/env bash
# tests/multinode/faults.sh -- faults on a real link: the server node's NIC taken
# down mid-run (on node1 itself, by a script left running there: with its link
# down nothing reaches it) and brought back 20 s later. The client here must fail
# by itself with the problem named, within seconds; so must the server, its probe
# or response failing, by the time the link is back at the latest; and a new run
# across the same link must work.
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/multinode/lib.sh
. tests/multinode/lib.sh

DOWN_AFTER=4 DOWN_FOR=20

# On node1, in the background: the link down after DOWN_AFTER s, up again DOWN_FOR s
# later, and its rxe device made again (rxe does not recover by itself from its
# netdev going down: tests/fault/engine_faults.sh).
schedule_link_down() {
	ssh -n "$SERVER_NODE" "nohup sh -c 'sleep $DOWN_AFTER; ip link set eth0 down; sleep $DOWN_FOR;
		ip link set eth0 up; rdma link delete rxe0; rdma link add rxe0 type rxe netdev eth0;
		touch $(printf '%q' "$E2E_DIR/link-back")' >/dev/null 2>&1 &"
}

link_down() { # METHOD
	local m=$1 name=$1-server-link-down status=0 rc=0 t0
	e2e_wanted "$name" || return 0
	if start_long_pair "$name" "$m" 1; then
		t0=$SECONDS
		schedule_link_down
		wait "$CPID" || rc=$?
		client_noticed "$rc" $((SECONDS - t0 - DOWN_AFTER)) 15 "$E2E_DIR/client.log" || status=1
		# the server, cut off from its client, hears nothing (no disconnection crosses
		# a link that is down): its probe or its response fails. Mostly 9-10 s after the
		# fault; but rxe, its own link down, may keep a send pending until the link is
		# back (once 22 s): the bound is the link's return plus 10 s. (The server says
		# so in the shared folder: the ssh that carries it waits for the link.)
		if e2e_wait_file "$E2E_DIR/server.rc" $((DOWN_FOR + 30)); then
			server_noticed "$(cat "$E2E_DIR/server.rc")" $((SECONDS - t0 - DOWN_AFTER)) \
				$((DOWN_FOR + 10)) "$E2E_DIR/server.log" || status=1
		else
			echo "  the server did not end within $((DOWN_FOR + 30)) s" >>"$E2E_DIR/why"
			status=1
		fi
		e2e_wait_file "$E2E_DIR/link-back" $((DOWN_FOR + 30)) ||
			{ echo "  node1's link did not come back" >>"$E2E_DIR/why"; status=1; }
	else
		status=1
	fi
	kill "$SPID" 2>/dev/null
	wait "$SPID" 2>/dev/null
	e2e_result "$name" "$status"
	e2e_show_logs_if "$status"
	# a new run over the link that went down
	verified_run "$m-after-link-back" "$m" node1 4m '' --rw=randwrite --bs=4k --iodepth=8
}

for m in apm gpspm; do
	link_down "$m"
done
e2e_summary
