#!/usr/bin/env bash
# tests/multinode/hub.sh -- a GPSPM hub (one server job, several clients from one
# thread: clients_per_job=) on node1's device DAX against hostile clients on node2,
# while a well-behaved fio client on node0 is served:
#
#   - trespass: node2 connects as three of the hub's clients; with the first one's
#     real rkey and address the second reads and the third writes its part:
#     both refused by node1's device (a remote access error), the bytes kept;
#   - handshake-stall / handshake-killed: node2 asks to connect on the second port
#     and never completes the handshake (or is killed in it) while node0's fio client
#     writes and verifies on the first; the half-made connection is dropped and
#     another fio client from node0 is served on that port;
#   - flood-whole: node2 keeps 2 * iodepth + 4 requests to persist its whole part in
#     flight (more than its receive queue holds) while node0's fio client writes and
#     verifies its part with one flush per write: it is served to its end, and the
#     job survives node2's flood and its loss;
#   - deaf: node2 posts no receive and sends 2 * iodepth + 4 requests (the hub's
#     responses to it are retried without end, every one of its send buffers held)
#     while node0's fio client writes and verifies: node0 is served to its end, and
#     node2, none of whose responses completed for connect_timeout, is cut off.
#
# Every case but deaf: the server exits 0 with nothing logged as an error (a dropped
# or lost client is a note); deaf: it exits 1, naming node2's client as its error.
# E2E_ONLY=REGEX runs some of them.
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/multinode/lib.sh
. tests/multinode/lib.sh

HOSTILE_NODE=node2
HOSTILE_ADDR=$(node_addr "$HOSTILE_NODE")
# (E2E_GPSPM_ENGINE: another build, e.g. a control run of an older one: the server
# runs a copy of its job file naming it, as ioengine= there wins over --ioengine)
ENGINE=${E2E_GPSPM_ENGINE:-build/librpma_gpspm.so}
TOOLS=build/tests/tools
# (a hub's ports: four a case)
E2E_PORT=8300

for t in gpspm-hostile handshake-hostile hub-trespass; do
	[ -x "$TOOLS/$t" ] || { echo "FAIL hub: $TOOLS/$t is not built (make tools)"; exit 1; }
done

# on NODE (this one: here), run CMD... from the project folder under the step timeout
on_node() { # NODE CMD...
	local node=$1
	shift
	if [ "$node" = "$(hostname)" ]; then
		timeout "$E2E_STEP_TIMEOUT" "$@"
	else
		ssh -n "$node" "cd $(printf '%q' "$PWD") && . /etc/softroce-vm.env &&
			timeout $E2E_STEP_TIMEOUT $(printf '%q ' "$@")"
	fi
}

# hub_start NAME N 'VARS': the hub for N clients on node1's device DAX (16 MiB each),
# ports E2E_PORT .. E2E_PORT + N - 1, until it listens. Sets SPID (0: it did not listen).
hub_start() {
	local name=$1 n=$2 vars=$3
	# shellcheck disable=SC2086 # the variable list is meant to be split
	e2e_setup "$name" env SERVER_IP="$SERVER_ADDR" PORT=@PORT@ SERVER_BUSY_WAIT=0 \
		SERVER_MEM=/dev/dax0.0 SERVER_SIZE=16m CLIENTS_PER_JOB="$n" $vars \
		fio --ioengine=external:"$ENGINE" "$E2E_TMP/$name/gpspm-server.fio" -- true
	sed "s|^ioengine=.*|ioengine=external:$ENGINE|" jobs/gpspm-server.fio >"$E2E_DIR/gpspm-server.fio"
	e2e_run_server >"$E2E_DIR/server.log" 2>&1 &
	SPID=$!
	if ! e2e_wait_line "$E2E_DIR/server.log" 'listening on' "$E2E_READY_TIMEOUT" "$SPID"; then
		echo "  the hub on $SERVER_NODE did not listen" >>"$E2E_DIR/why"
		SPID=0
	fi
}

# a fio client here on PORT writing SIZE with checksums (4 KiB, each write flushed),
# then reading it back and checking: its output E2E_DIR/TAG.log, .json; its status
fio_client() { # TAG PORT SIZE
	timeout "$E2E_STEP_TIMEOUT" fio --ioengine=external:"$ENGINE" --name="$1" \
		--serverip="$SERVER_ADDR" --port="$2" --create_serialize=0 --thread --size="$3" \
		--rw=randwrite --bs=4k --iodepth=1 --verify=crc32c --do_verify=1 --verify_fatal=1 \
		--verify_state_save=0 --connect_timeout=20000 --output-format=json \
		--output="$E2E_DIR/$1.json" >"$E2E_DIR/$1.log" 2>&1
}

# fio_served TAG BYTES: the client's JSON shows BYTES written and read back, no error
fio_served() {
	jq -e --argjson b "$2" '.jobs[0].error == 0 and .jobs[0].write.io_bytes == $b and
		.jobs[0].read.io_bytes == $b' "$E2E_DIR/$1.json" >/dev/null 2>&1 ||
		{ echo "  fio client $1 did not write and verify its $2 bytes without an error" >>"$E2E_DIR/why"; return 1; }
}

# hub_end NAME STATUS [EXIT]: the server exits EXIT (0), nothing logged as an error;
# the result
hub_end() {
	local name=$1 status=$2 want=${3:-0} src=0
	if [ "$SPID" != 0 ]; then
		wait "$SPID" || src=$?
		[ "$src" -eq "$want" ] ||
			{ echo "  the hub exited with $src, expected $want" >>"$E2E_DIR/why"; status=1; }
	else
		status=1
	fi
	if grep -q 'ERROR' "$E2E_DIR"/*.log; then
		echo "  an error was logged" >>"$E2E_DIR/why"
		status=1
	fi
	E2E_PORT=$((E2E_PORT + 3))
	e2e_result "$name" "$status"
	e2e_show_logs_if "$status"
}

hub_trespass() {
	local name=gpspm-hub-trespass status=0 rc=0 line
	e2e_wanted "$name" || return 0
	hub_start "$name" 3 ''
	if [ "$SPID" != 0 ]; then
		on_node "$HOSTILE_NODE" "$TOOLS/hub-trespass" "$SERVER_ADDR" "$E2E_PORT" \
			"$((E2E_PORT + 1))" "$((E2E_PORT + 2))" >"$E2E_DIR/client-trespass.log" 2>&1 || rc=$?
		[ "$rc" -eq 0 ] || { echo "  hub-trespass on $HOSTILE_NODE exited with $rc" >>"$E2E_DIR/why"; status=1; }
		for line in "reader: an RDMA read of the victim's bytes: remote access error" \
				"writer: an RDMA write over the victim's bytes: remote access error" \
				"victim: its bytes read again: as it wrote them"; do
			grep -Fxq "$line" "$E2E_DIR/client-trespass.log" ||
				{ echo "  hub-trespass did not say: $line" >>"$E2E_DIR/why"; status=1; }
		done
	fi
	hub_end "$name" "$status"
}

# hub_handshake stall|killed
hub_handshake() {
	local how=$1 name=gpspm-hub-handshake-$1 status=0 hpid p2
	e2e_wanted "$name" || return 0
	hub_start "$name" 2 'CONNECT_TIMEOUT=3000'
	p2=$((E2E_PORT + 1))
	if [ "$SPID" != 0 ]; then
		on_node "$HOSTILE_NODE" "$TOOLS/handshake-hostile" "$SERVER_ADDR" "$p2" stall \
			>"$E2E_DIR/client-hostile.log" 2>&1 &
		hpid=$!
		e2e_wait_line "$E2E_DIR/client-hostile.log" 'the server replied' 20 "$hpid" ||
			{ echo "  the hub did not reply to the hostile request within 20 s" >>"$E2E_DIR/why"; status=1; }
		[ "$how" = stall ] || ssh -n "$HOSTILE_NODE" 'pkill -KILL -x handshake-hosti'
		fio_client client1 "$E2E_PORT" 4m || status=1
		fio_served client1 4194304 || status=1
		e2e_wait_line "$E2E_DIR/server.log" 'dropped the connection of client 2 ' 20 "$SPID" ||
			{ echo "  the hub did not drop the hostile connection within 20 s" >>"$E2E_DIR/why"; status=1; }
		ssh -n "$HOSTILE_NODE" 'pkill -KILL -x handshake-hosti'
		wait "$hpid" 2>/dev/null
		fio_client client2 "$p2" 4m || status=1
		fio_served client2 4194304 || status=1
	fi
	hub_end "$name" "$status"
}

# What node0's writes (each with its flush) waited beside the flood, against the pace of
# the flood's answers (each a flush of its whole part): a turn of node2's ends with one of
# them, so node0's flushes wait for about one at a time, not for all node2 has sent.
flood_wait() {
	local n ms lat
	read -r n ms <<<"$(sed -n 's/.*stopped after \([0-9]*\) answers, \([0-9]*\) ms from the first/\1 \2/p' \
		"$E2E_DIR/client-flood.log")"
	lat=$(jq -r '.jobs[0].write.clat_ns | [.percentile["50.000000"], .percentile["99.000000"], .max]
		| map(. / 1e6 | . * 100 | round / 100) | "p50 \(.[0]) ms, p99 \(.[1]) ms, max \(.[2]) ms"' \
		"$E2E_DIR/client.json" 2>/dev/null)
	echo "  node0's writes: ${lat:-?}; node2's whole-part flushes: ${n:-?} answered in ${ms:-?} ms" \
		"($(awk -v n="${n:-0}" -v t="${ms:-0}" 'BEGIN { if (n > 0) printf "%.2f", t / n; else printf "?" }') ms each)" \
		>>"$E2E_DIR/wait"
}

hub_flood() {
	local name=gpspm-hub-flood-whole status=0 hpid
	e2e_wanted "$name" || return 0
	hub_start "$name" 2 'SERVER_IODEPTH=8'
	if [ "$SPID" != 0 ]; then
		on_node "$HOSTILE_NODE" "$TOOLS/gpspm-hostile" "$SERVER_ADDR" "$((E2E_PORT + 1))" \
			flood-whole >"$E2E_DIR/client-flood.log" 2>&1 &
		hpid=$!
		e2e_wait_line "$E2E_DIR/client-flood.log" 'answered, and busy from now on' 20 "$hpid" ||
			{ echo "  the flood did not start within 20 s" >>"$E2E_DIR/why"; status=1; }
		fio_client client "$E2E_PORT" 2m || status=1
		fio_served client 2097152 || status=1
		if ! kill -0 "$hpid" 2>/dev/null; then
			echo "  the flood had ended before the fio client did" >>"$E2E_DIR/why"
			status=1
		fi
		ssh -n "$HOSTILE_NODE" 'pkill -TERM -x gpspm-hostile'
		wait "$hpid" 2>/dev/null
		flood_wait
		grep -Eq 'served [1-9][0-9]* flush requests from 2 clients on one thread \(each: [1-9][0-9]*, [1-9][0-9]*;' \
			"$E2E_DIR/server.log" ||
			{ echo "  the hub did not serve both clients" >>"$E2E_DIR/why"; status=1; }
	fi
	hub_end "$name" "$status"
	[ ! -f "$E2E_DIR/wait" ] || cat "$E2E_DIR/wait"
}

# (connect_timeout: how long the deaf client's responses may hang; no keepalive
# probe, which would cut it off too)
DEAF_TIMEOUT_MS=8000

hub_deaf() {
	local name=gpspm-hub-deaf status=0 hpid start took=
	e2e_wanted "$name" || return 0
	hub_start "$name" 2 "SERVER_IODEPTH=8 CONNECT_TIMEOUT=$DEAF_TIMEOUT_MS KEEPALIVE=0"
	if [ "$SPID" != 0 ]; then
		on_node "$HOSTILE_NODE" "$TOOLS/gpspm-hostile" "$SERVER_ADDR" "$((E2E_PORT + 1))" \
			deaf >"$E2E_DIR/client-deaf.log" 2>&1 &
		hpid=$!
		e2e_wait_line "$E2E_DIR/client-deaf.log" 'case deaf: sent' 20 "$hpid" ||
			{ echo "  the deaf client did not send within 20 s" >>"$E2E_DIR/why"; status=1; }
		start=$(date +%s%N)
		fio_client client "$E2E_PORT" 1m || status=1
		took=$((($(date +%s%N) - start) / 1000000))
		fio_served client 1048576 || status=1
		! grep -q 'took none of its responses' "$E2E_DIR/server.log" ||
			{ echo "  the fio client was not served to its end before the deaf one was cut off" >>"$E2E_DIR/why"; status=1; }
		wait "$hpid" || { echo "  the deaf client was not cut off" >>"$E2E_DIR/why"; status=1; }
		grep -q 'case deaf: the server disconnected after' "$E2E_DIR/client-deaf.log" ||
			{ echo "  the deaf client did not see the hub disconnect it" >>"$E2E_DIR/why"; status=1; }
		grep -Eq "client 2 \\(${HOSTILE_ADDR//./\\.}:[0-9]+, port $((E2E_PORT + 1))\\) took none of its responses within connect_timeout=$DEAF_TIMEOUT_MS ms" \
			"$E2E_DIR/server.log" ||
			{ echo "  the hub did not name the deaf client as it cut it off" >>"$E2E_DIR/why"; status=1; }
	fi
	hub_end "$name" "$status" 1
	[ -z "$took" ] || echo "  the fio client's run: $took ms; the deaf client $(grep -o 'disconnected after [0-9]* ms' "$E2E_DIR/client-deaf.log")"
}

hub_trespass
hub_deaf
hub_handshake stall
hub_handshake killed
hub_flood
e2e_summary
