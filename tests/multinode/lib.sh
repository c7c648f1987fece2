# shellcheck shell=bash
# tests/multinode/lib.sh -- what the multi-node suites share: the nodes' addresses,
# the e2e helpers (tests/e2e/lib.sh) set to start every server on node1, a verified
# fio run across two hosts and the judgement of a client that lost its server.
# shellcheck source=tests/e2e/lib.sh

: "${SOFTROCE_VM_NODES:?run me on node0 of scripts/softroce-vm run --nodes 2 (or more)}"

# the address of a node, from the names softroce-vm wrote into /etc/hosts
node_addr() { # NAME
	getent hosts "$1" | cut -d' ' -f1
}

SERVER_NODE=node1
SERVER_ADDR=$(node_addr "$SERVER_NODE")
[ -n "$SERVER_ADDR" ] || { echo "multinode: $SERVER_NODE has no address" >&2; exit 1; }
export E2E_SERVER_HOST=$SERVER_NODE
# the servers' ready files and logs where both nodes see them: the project folder
mkdir -p build/multinode
export E2E_TMP_BASE=$PWD/build/multinode
export E2E_RESULTS=build/e2e-results/multinode.tsv
export E2E_NAME_PREFIX=multinode-
. tests/e2e/lib.sh

# bytes this node's NIC (VERIFIED_NIC, else eth0) sent so far: what proves that a test
# went over the network
nic_tx_bytes() {
	cat "/sys/class/net/${VERIFIED_NIC:-eth0}/statistics/tx_bytes"
}

# verified_run NAME METHOD NODE SIZE 'SERVER_VARS' CLIENT_ARGS...
# The METHOD server (jobs/METHOD-server.fio) on NODE, a client here with fio's verify
# (write SIZE with checksums, then read it all back and check): both must exit 0, the
# client's JSON must show writes and reads and no error, and this node's NIC must
# have sent at least SIZE bytes (the data went over the network). NODE may be this
# node (the last one standing): then the server runs here, over rxe's loopback.
verified_run() {
	local name=$1 m=$2 node=$3 size=$4 svars=$5 status=0 addr tx0 sent bytes
	shift 5
	e2e_wanted "$name" || return 0
	addr=${VERIFIED_ADDR:-$(node_addr "$node")} # (VERIFIED_ADDR: another of its addresses)
	bytes=$(numfmt --from=iec "${size^^}")
	local E2E_SERVER_HOST=$node
	[ "$node" != "$(hostname)" ] || { E2E_SERVER_HOST=; bytes=0; }
	# shellcheck disable=SC2086 # the variable list is meant to be split
	e2e_setup "$name" env SERVER_IP="$addr" PORT=@PORT@ RUNTIME=1s RAMP=0 SERVER_BUSY_WAIT=0 $svars \
		fio "jobs/$m-server.fio" -- \
		fio --ioengine=external:"build/librpma_$m.so" --name=verify --serverip="$addr" \
		--port=@PORT@ --create_serialize=0 --thread --size="$size" --verify=crc32c --do_verify=1 \
		--verify_fatal=1 --verify_state_save=0 --connect_timeout=20000 "$@" \
		--output-format=json --output="$E2E_TMP/$name/client.json"
	tx0=$(nic_tx_bytes)
	e2e_run_server >"$E2E_DIR/server.log" 2>&1 &
	local spid=$!
	if e2e_wait_line "$E2E_DIR/server.log" 'listening on' "$E2E_READY_TIMEOUT" "$spid"; then
		timeout "$E2E_STEP_TIMEOUT" "${E2E_CLIENT[@]}" >"$E2E_DIR/client.log" 2>&1 || status=$?
		[ "$status" -eq 0 ] || echo "  the client exited with $status" >>"$E2E_DIR/why"
	else
		echo "  the server on $node did not listen within $E2E_READY_TIMEOUT s" >>"$E2E_DIR/why"
		status=1
	fi
	wait "$spid" || { status=1; echo "  the server exited with non-zero" >>"$E2E_DIR/why"; }
	sent=$(($(nic_tx_bytes) - tx0))
	if [ "$status" -eq 0 ] && ! jq -e '.jobs[0].error == 0 and .jobs[0].write.io_bytes > 0
			and .jobs[0].read.io_bytes > 0' "$E2E_DIR/client.json" >/dev/null 2>&1; then
		echo "  client.json: an error, or no write and read-back (verify) I/O" >>"$E2E_DIR/why"
		status=1
	fi
	if [ "$status" -eq 0 ] && [ "$sent" -lt "$bytes" ]; then
		echo "  ${VERIFIED_NIC:-eth0} sent $sent bytes, less than the $bytes written: not over the network" >>"$E2E_DIR/why"
		status=1
	fi
	e2e_result "$name" "$status"
	e2e_show_logs_if "$status"
}

# A side (client or server) whose peer went away (link down, host lost) must fail by
# itself (not 0, not killed by its timeout), name the problem (REGEX, extended) and
# notice within MAX_S seconds. Says what it ended with; appends why not to
# E2E_DIR/why and returns non-zero then.
noticed() { # SIDE REGEX RC TOOK_S MAX_S LOG
	local side=$1 regex=$2 rc=$3 took=$4 max=$5 log=$6
	echo "  the $side ended with $rc about $took s after the fault" | tee -a "$E2E_DIR/why"
	if [ "$rc" -eq 0 ] || [ "$rc" -ge 124 ]; then
		echo "  it should have failed by itself (not 0, not killed)" >>"$E2E_DIR/why"
		return 1
	fi
	if ! grep -Eq "$regex" "$log"; then
		echo "  the $side did not name the problem (/$regex/)" >>"$E2E_DIR/why"
		return 1
	fi
	echo "  $(grep -Em1 "$regex" "$log" | cut -c1-220)"
	if [ "$took" -gt "$max" ]; then
		echo "  the $side took more than $max s to notice" >>"$E2E_DIR/why"
		return 1
	fi
}

# the client: a failed transport, a lost connection or a missing completion
client_noticed() { # RC TOOK_S MAX_S CLIENT_LOG
	noticed client 'RDMA operation failed: .*(transport|retry)|connection .*lost|no completion from the server' "$@"
}

# the server, which hears no disconnection: its keepalive probe (or a message)
# unanswered, within its keepalive (1 s) plus the 5 s a probe waits, plus TCG's slack
server_noticed() { # RC TOOK_S MAX_S SERVER_LOG
	noticed server "the client's host or its link is gone" "$@"
}

# A METHOD server on node1 and a client here writing for up to 40 s (RUNTIME), started
# together: SPID (the ssh carrying the server) and CPID. With ON_NODE=1 the server
# writes its output (server.log) and exit status (server.rc) into the shared E2E_DIR
# itself: seen from here when it happens, even while node1's link, which carries
# the ssh session, is down. Returns non-zero (said in why) if the server did not listen.
# shellcheck disable=SC2034 # SPID, CPID: the callers'
start_long_pair() { # NAME METHOD [ON_NODE]
	local name=$1 m=$2 on_node=${3:-0} out
	e2e_setup "$name" env SERVER_IP="$SERVER_ADDR" PORT=@PORT@ RUNTIME=40s SERVER_BUSY_WAIT=0 \
		fio "jobs/$m-server.fio" -- \
		env SERVER_IP="$SERVER_ADDR" PORT=@PORT@ RUNTIME=40s RAMP=0 CONNECT_TIMEOUT=5000 \
		fio --ioengine=external:"build/librpma_$m.so" jobs/randwrite.fio
	out=$E2E_DIR/server.log
	if [ "$on_node" = 1 ]; then
		# shellcheck disable=SC2016 # expanded by that shell
		E2E_SERVER=(sh -c '"$@" >"$0/server.log" 2>&1; echo $? >"$0/server.rc"' "$E2E_DIR" "${E2E_SERVER[@]}")
		out=$E2E_DIR/server.ssh.log
	fi
	e2e_run_server >"$out" 2>&1 &
	SPID=$!
	CPID=
	if ! e2e_wait_line "$E2E_DIR/server.log" 'listening on' "$E2E_READY_TIMEOUT" "$SPID"; then
		echo "  the server on $SERVER_NODE did not listen" >>"$E2E_DIR/why"
		return 1
	fi
	timeout 60 "${E2E_CLIENT[@]}" >"$E2E_DIR/client.log" 2>&1 &
	CPID=$!
}
