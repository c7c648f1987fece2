#!/usr/bin/env bash
# tests/multinode/access.sh -- who may connect to a server job (allow_clients=,
# secret_file=), between real hosts: the server on node1 admits node0 only and wants
# a secret. node2 (not listed, right secret), node0 with none and node0 with a wrong
# secret (GPSPM: only the last) are each rejected: their fio fails naming the rejection, the server
# names each refused address and why, and nothing is left registered for them on
# node1 (its MR and QP counts are what they were while it only listened). Then
# node0 with the right secret is served (writes, exit 0), by the same server job.
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/multinode/lib.sh
. tests/multinode/lib.sh

CLIENT_NODE=node2
NODE0_ADDR=$(node_addr node0)
CLIENT_ADDR=$(node_addr "$CLIENT_NODE")
SECRET="open sesame $$"

# on NODE (here when it is this host), write text $2 into file $3, owner-only
node_secret() { # NODE TEXT PATH
	local cmd
	cmd="umask 077 && printf '%s\n' $(printf '%q' "$2") >$(printf '%q' "$3")"
	if [ "$1" = "$(hostname)" ]; then sh -c "$cmd"; else ssh -n "$1" "$cmd"; fi
}

# resources of kind $1 (mr, qp) on node1: lines of `rdma resource show`
node1_res() {
	ssh -n "$SERVER_NODE" "rdma resource show $1" | grep -c .
}

# A client of METHOD on NODE with SECRET_FILE=$3, its output to E2E_DIR/client-TAG.log;
# returns its exit status
client_on() { # TAG NODE SECRET_FILE CONNECT_TIMEOUT_MS
	local log=$E2E_DIR/client-$1.log cmd
	cmd=(env SERVER_IP="$SERVER_ADDR" PORT="$E2E_PORT" RUNTIME=1s RAMP=0 SECRET_FILE="$3"
		CONNECT_TIMEOUT="$4" fio --ioengine=external:"build/librpma_$m.so" jobs/write.fio
		--output-format=json --output="$E2E_DIR/client-$1.json")
	if [ "$2" = "$(hostname)" ]; then
		timeout "$E2E_STEP_TIMEOUT" "${cmd[@]}" >"$log" 2>&1
	else
		ssh -n "$2" "cd $(printf '%q' "$PWD") && . /etc/softroce-vm.env &&
			timeout $E2E_STEP_TIMEOUT $(printf '%q ' "${cmd[@]}")" >"$log" 2>&1
	fi
}

# refused TEST TAG NODE SECRET_FILE ADDR WHY_REGEX: that client must fail, saying it
# was rejected, and the server must name ADDR and why
refused() {
	local name=$1 tag=$2 node=$3 file=$4 addr=$5 why=$6 status=0 rc=0
	client_on "$tag" "$node" "$file" 1000 || rc=$?
	if [ "$rc" -eq 0 ] || [ "$rc" -ge 124 ]; then
		echo "  the client on $node ($tag) ended with $rc: it should have been refused" >>"$E2E_DIR/why"
		status=1
	elif ! grep -q "no server accepted a connection at .* within connect_timeout" \
			"$E2E_DIR/client-$tag.log"; then
		echo "  the client on $node ($tag) does not say no server accepted it" >>"$E2E_DIR/why"
		status=1
	fi
	if ! grep -Eq "refused a connection from ${addr//./\\.}:[0-9]+: $why" "$E2E_DIR/server.log"; then
		echo "  the server did not name $addr and /$why/" >>"$E2E_DIR/why"
		status=1
	elif grep -Fq "$SECRET" "$E2E_DIR/server.log" "$E2E_DIR/client-$tag.log"; then
		echo "  the secret appears in a log" >>"$E2E_DIR/why"
		status=1
	fi
	e2e_result "$name" "$status"
	[ "$status" -eq 0 ]
}

access_run() { # METHOD
	local m=$1 p="$1-access" status=0 mr0 qp0 srv_secret="/tmp/rpma-access-$$.secret"
	e2e_wanted "$p" || return 0
	node_secret "$SERVER_NODE" "$SECRET" "$srv_secret"
	node_secret "$CLIENT_NODE" "$SECRET" "$srv_secret"
	node_secret "$(hostname)" "$SECRET" "$srv_secret.right"
	node_secret "$(hostname)" "not $SECRET" "$srv_secret.wrong"
	e2e_setup "$p" env SERVER_IP="$SERVER_ADDR" PORT=@PORT@ SERVER_BUSY_WAIT=0 \
		ALLOW_CLIENTS="$NODE0_ADDR" SECRET_FILE="$srv_secret" fio "jobs/$m-server.fio" -- true
	e2e_run_server >"$E2E_DIR/server.log" 2>&1 &
	local spid=$!
	if ! e2e_wait_line "$E2E_DIR/server.log" 'listening on' "$E2E_READY_TIMEOUT" "$spid"; then
		echo "  the server on $SERVER_NODE did not listen" >>"$E2E_DIR/why"
		e2e_result "$p-listed-client-served" 1
		e2e_show_logs
		return
	fi
	mr0=$(node1_res mr) qp0=$(node1_res qp)

	# the admission is the servers' common code: GPSPM (receives posted only for an
	# admitted request) is shown with one refusal
	if [ "$m" = apm ]; then
		refused "$p-unlisted-host-refused" unlisted "$CLIENT_NODE" "$srv_secret" \
			"$CLIENT_ADDR" 'not in allow_clients=' || status=1
		refused "$p-no-secret-refused" none "$(hostname)" none "$NODE0_ADDR" \
			'it sent no secret' || status=1
	fi
	refused "$p-wrong-secret-refused" wrong "$(hostname)" "$srv_secret.wrong" "$NODE0_ADDR" \
		'it sent a wrong secret' || status=1

	local mr1 qp1 st=0
	mr1=$(node1_res mr) qp1=$(node1_res qp)
	echo "  node1 while refusing: $mr0 -> $mr1 MRs, $qp0 -> $qp1 QPs"
	if [ "$mr0" -lt 1 ] || [ "$mr1" -ne "$mr0" ] || [ "$qp1" -ne "$qp0" ]; then
		echo "  node1's MRs ($mr0 -> $mr1) or QPs ($qp0 -> $qp1) changed for refused peers" \
			"(or none registered at all)" >>"$E2E_DIR/why"
		st=1
	fi
	e2e_result "$p-nothing-registered-for-refused" "$st"
	[ "$st" -eq 0 ] || status=1

	st=0
	client_on right "$(hostname)" "$srv_secret.right" 20000 || st=$?
	[ "$st" -eq 0 ] || echo "  the listed client with the secret exited with $st" >>"$E2E_DIR/why"
	if [ "$st" -eq 0 ] && ! jq -e '.jobs[0].error == 0 and .jobs[0].write.io_bytes > 0' \
			"$E2E_DIR/client-right.json" >/dev/null 2>&1; then
		echo "  client-right.json: an error, or no write" >>"$E2E_DIR/why"
		st=1
	fi
	wait "$spid" || { st=1; echo "  the server exited with non-zero" >>"$E2E_DIR/why"; }
	e2e_result "$p-listed-client-served" "$st"
	[ "$st" -eq 0 ] || status=1
	rm -f "$srv_secret.right" "$srv_secret.wrong"
	ssh -n "$SERVER_NODE" "rm -f $srv_secret"
	ssh -n "$CLIENT_NODE" "rm -f $srv_secret"
	e2e_show_logs_if "$status"
}

[ -n "$CLIENT_ADDR" ] || { echo "access.sh: needs $CLIENT_NODE (--nodes 3)" >&2; exit 1; }
for m in apm gpspm; do
	access_run "$m"
done
e2e_summary
