#!/usr/bin/env bash
# tests/e2e/engines_hub.sh -- the GPSPM hub: one server job serving several clients
# from one thread (clients_per_job=; engines/server/hub.c, engines/gpspm/hub.c), over
# real Soft-RoCE inside the VM (tests/e2e/engines_gpspm.sh: the rest of what only the
# GPSPM engine has):
#
#   scripts/softroce-vm run --timeout 600 -- tests/e2e/engines_hub.sh
#
#   - one server job serving four clients from one thread (clients_per_job=4,
#     sleeping and busy): each client's bytes in its own part of the server's
#     memory;
#   - a fio client served to its end before the second client comes, then that
#     one, hostile (build/tests/tools/gpspm-hostile), cut off (the server waiting
#     adaptively);
#   - a client that never finishes its handshake (build/tests/tools/handshake-hostile:
#     stalled, or killed in it) dropped while the others are served, its port
#     served next;
#   - an admitted client reading and writing another's part with that one's rkey and
#     address (build/tests/tools/hub-trespass): refused by the device, the bytes kept.
#
# GPSPM_ONLY=REGEX runs only the tests whose name matches (e.g. GPSPM_ONLY=handshake).
# Runs are short (RUNTIME=1s); servers sleep on their completion channel unless a test
# says otherwise.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/e2e/lib.sh
e2e_in_vm
# (E2E_GPSPM_ENGINE: another build of the engine, e.g. a control run of an older one)
ENGINE=${E2E_GPSPM_ENGINE:-build/librpma_gpspm.so}
HOSTILE=build/tests/tools/gpspm-hostile
HANDSHAKE_HOSTILE=build/tests/tools/handshake-hostile
TRESPASS=build/tests/tools/hub-trespass
COMMON_VARS=("SERVER_IP=$A" RUNTIME=1s RAMP=0 SERVER_BUSY_WAIT=0)
# (ports of its own, four a test from 8004: engines_gpspm.sh's stay below 7900,
# hostile.sh's start at 8100)
E2E_PORT=8000

[ -f "$ENGINE" ] || { echo "FAIL gpspm: $ENGINE is not built (make engines)"; exit 1; }

# gp_hub NAME 'SERVER_VARS': one server job serving four clients from one thread
# (CLIENTS_PER_JOB=4 over a 4 x 2 MiB file) and four client jobs (ports PORT ..
# PORT + 3), each writing its own pattern over all of its 2 MiB: all exit 0 with
# nothing logged as an error, the server ran one job that says it listened on the
# four ports and served the four clients from one thread, each at least once; and
# each client's pattern is in its own quarter of the file, not another's (the
# check really checks).
gp_hub() {
	local name=gpspm-hub-$1 svars=$2 status=0 rc=0 k check
	gp_want "$name" || return 0
	gp_new_test "$name"
	local file=/tmp/rpma-fio-e2e-gpspm-hub patterns=() clients=()
	truncate -s 8m "$file"
	for k in 0 1 2 3; do
		patterns[k]=$(printf '0x%08x' $(((RANDOM << 16 ^ RANDOM) & 0x7fffffff | 0x01010101)))
		clients+=(--name="client$k" --verify_pattern="${patterns[k]}")
	done
	# shellcheck disable=SC2086
	if gp_start_server "SERVER_MEM=$file SERVER_SIZE=2m CLIENTS_PER_JOB=4 SERVER_IODEPTH=8 $svars" \
			--output-format=json --output="$E2E_DIR/server.json"; then
		timeout "$E2E_STEP_TIMEOUT" fio --ioengine=external:"$ENGINE" --serverip="$A" \
			--port="$E2E_PORT" --create_serialize=0 --thread --size=2m --rw=randwrite \
			--bs=4k --iodepth=8 --iodepth_batch_submit=8 --verify=pattern --do_verify=0 --verify_state_save=0 \
			--output-format=json --output="$E2E_DIR/client.json" "${clients[@]}" \
			>"$E2E_DIR/client.log" 2>&1 || rc=$?
		[ "$rc" -eq 0 ] || { echo "  the clients exited with $rc" >>"$E2E_DIR/why"; status=1; }
		wait "$GP_SPID" || { echo "  the server exited with $?" >>"$E2E_DIR/why"; status=1; }
	else
		status=1
	fi
	if [ "$status" -eq 0 ]; then
		jq -e '[.jobs[] | select(.error == 0 and .write.io_bytes == 2097152)] | length == 4' \
			"$E2E_DIR/client.json" >/dev/null 2>&1 ||
			{ echo "  not every client job wrote its 2 MiB without an error" >>"$E2E_DIR/why"; status=1; }
		jq -e '.jobs | length == 1' "$E2E_DIR/server.json" >/dev/null 2>&1 ||
			{ echo "  the server's JSON does not show exactly one job" >>"$E2E_DIR/why"; status=1; }
		grep -Eq "listening on $A:$E2E_PORT-$((E2E_PORT + 3)) for 4 clients, one thread" \
			"$E2E_DIR/server.log" ||
			{ echo "  the server did not listen on the four ports from one job" >>"$E2E_DIR/why"; status=1; }
		grep -Eq 'served [1-9][0-9]* flush requests from 4 clients on one thread \(each: [1-9][0-9]*, [1-9][0-9]*, [1-9][0-9]*, [1-9][0-9]*;' \
			"$E2E_DIR/server.log" ||
			{ echo "  the server did not serve each of the four clients" >>"$E2E_DIR/why"; status=1; }
		if grep -q 'ERROR' "$E2E_DIR/client.log" "$E2E_DIR/server.log"; then
			echo "  an error was logged" >>"$E2E_DIR/why"
			status=1
		fi
		# one fio run reads every quarter with its client's pattern, one with the next
		# client's: each job of the first passes, each of the second fails
		local own=() other=()
		for k in 0 1 2 3; do
			own+=(--name="own$k" --offset=$((k * 2))m --verify_pattern="${patterns[k]}")
			other+=(--name="other$k" --offset=$((k * 2))m --verify_pattern="${patterns[(k + 1) % 4]}")
		done
		for check in own other; do
			local -n jobs=$check
			fio --ioengine=psync --filename="$file" --size=2m --rw=read --bs=4k --verify=pattern \
				--do_verify=1 --verify_fatal=1 --verify_state_save=0 --output-format=json \
				--output="$E2E_DIR/$check.json" \
				"${jobs[@]}" >>"$E2E_DIR/check.log" 2>&1
		done
		jq -e '[.jobs[] | select(.error == 0)] | length == 4' "$E2E_DIR/own.json" >/dev/null 2>&1 ||
			{ echo "  not every client's quarter of the file holds its pattern" >>"$E2E_DIR/why"; status=1; }
		jq -e '[.jobs[] | select(.error != 0)] | length == 4' "$E2E_DIR/other.json" >/dev/null 2>&1 ||
			{ echo "  a client's quarter also passes another client's pattern" >>"$E2E_DIR/why"; status=1; }
	fi
	rm -f "$file"
	e2e_result "$name" "$status"
	e2e_show_logs_if "$status"
	return 0
}

# gp_hub_hostile NAME CASE...: a server job for two clients from one thread (waiting
# adaptively: busy_wait_polling=adaptive over the shared queue's CQ); a fio client on
# the first port, served to its end before the second client comes (a late client
# holds no one up); then gpspm-hostile running CASEs on the second port, cut off with
# the reason logged; the server then fails (exit 1) naming the hostile client.
gp_hub_hostile() {
	local name=gpspm-hub-hostile-$1 status=0 rc=0 hrc=0 src=0
	gp_want "$name" || return 0
	shift
	gp_new_test "$name"
	if gp_start_server 'CLIENTS_PER_JOB=2 SERVER_SIZE=16m SERVER_BUSY_WAIT=adaptive'; then
		# the fio client first, to its end, before the other client has come: a
		# client that starts late holds no one up
		timeout "$E2E_STEP_TIMEOUT" env "${COMMON_VARS[@]}" PORT="$E2E_PORT" SERVER_SIZE=16m \
			fio --ioengine=external:"$ENGINE" --output-format=json --output="$E2E_DIR/client.json" \
			jobs/randwrite.fio >"$E2E_DIR/client.log" 2>&1 || rc=$?
		timeout "$E2E_STEP_TIMEOUT" "$HOSTILE" "$A" "$((E2E_PORT + 1))" "$@" \
			>"$E2E_DIR/hostile.log" 2>&1 || hrc=$?
		wait "$GP_SPID" || src=$?
		[ "$rc" -eq 0 ] || { echo "  the fio client exited with $rc" >>"$E2E_DIR/why"; status=1; }
		[ "$hrc" -eq 0 ] || { echo "  gpspm-hostile exited with $hrc" >>"$E2E_DIR/why"; status=1; }
		[ "$src" -eq 1 ] || { echo "  the server exited with $src, expected 1" >>"$E2E_DIR/why"; status=1; }
		jq -e '.jobs[0].error == 0 and .jobs[0].write.io_bytes > 0' "$E2E_DIR/client.json" \
			>/dev/null 2>&1 || { echo "  the fio client did not write without an error" >>"$E2E_DIR/why"; status=1; }
		grep -Eq "rejected a flush request from client 2 \([^)]*, port $((E2E_PORT + 1))\): offset .*; disconnecting" \
			"$E2E_DIR/server.log" ||
			{ echo "  the server did not name the hostile client and its request" >>"$E2E_DIR/why"; status=1; }
		grep -Eq 'served [1-9][0-9]* flush requests from 2 clients on one thread \(each: [1-9][0-9]*, 1;' \
			"$E2E_DIR/server.log" ||
			{ echo "  the server did not serve the fio client to its end (and the hostile one's valid request)" >>"$E2E_DIR/why"; status=1; }
	else
		status=1
	fi
	e2e_result "$name" "$status"
	e2e_show_logs_if "$status"
	return 0
}

# gp_hub_verify_client PORT LOG: a fio client (jobs/randwrite.fio, 8 MiB written with
# crc32c checksums, then read back and checked) on PORT; its exit status
gp_hub_verify_client() {
	timeout "$E2E_STEP_TIMEOUT" env "${COMMON_VARS[@]}" PORT="$1" TIME_BASED=0 RUNTIME=0 \
		fio --ioengine=external:"$ENGINE" --size=8m --verify=crc32c --do_verify=1 \
		--verify_fatal=1 --verify_state_save=0 --output-format=json \
		--output="$E2E_DIR/$2.json" jobs/randwrite.fio >"$E2E_DIR/$2.log" 2>&1
}

# gp_hub_handshake NAME: a server job for two clients from one thread
# (CONNECT_TIMEOUT=3000); build/tests/tools/handshake-hostile asks to connect on the
# second port and never finishes the handshake (stall: it holds the half-made
# connection; killed: it is killed with SIGKILL once the server has replied). While
# it hangs there a fio client is served on the first port (writing and verifying);
# the server names the hostile connection and drops it (stall: after connect_timeout;
# killed: on its rejection, or after connect_timeout), its port listening on; then a
# second fio client is served on that port. Both fio clients pass with no error, the
# server serves both and exits 0 (a dropped handshake is a note, not a failure) with
# nothing logged as an error.
gp_hub_handshake() {
	local name=gpspm-hub-handshake-$1 how=$1 status=0 rc1=0 rc2=0 src=0 hpid
	gp_want "$name" || return 0
	gp_new_test "$name"
	local p2=$((E2E_PORT + 1)) why='its handshake not done within connect_timeout=3000 ms'
	# (killed: its kernel may reject the connection, or say nothing: then the timeout)
	[ "$how" = stall ] || why="$why|Connection (rejected|lost|closed)"
	if gp_start_server 'CLIENTS_PER_JOB=2 SERVER_SIZE=16m CONNECT_TIMEOUT=3000'; then
		timeout "$E2E_STEP_TIMEOUT" "$HANDSHAKE_HOSTILE" "$A" "$p2" stall \
			>"$E2E_DIR/client-hostile.log" 2>&1 &
		hpid=$!
		if ! e2e_wait_line "$E2E_DIR/client-hostile.log" 'the server replied' 20 "$hpid"; then
			echo "  the server did not reply to the hostile request within 20 s" >>"$E2E_DIR/why"
			status=1
		fi
		[ "$how" = stall ] || kill -KILL "$hpid" 2>/dev/null
		# served while the hostile handshake hangs (or was just killed)
		gp_hub_verify_client "$E2E_PORT" client1 || rc1=$?
		e2e_wait_line "$E2E_DIR/server.log" "dropped the connection of client 2 " 20 "$GP_SPID" ||
			echo "  the server did not drop the hostile connection within 20 s" >>"$E2E_DIR/why"
		kill -KILL "$hpid" 2>/dev/null
		wait "$hpid" 2>/dev/null
		# a well-behaved client on the port the hostile one had
		gp_hub_verify_client "$p2" client2 || rc2=$?
		wait "$GP_SPID" || src=$?
		[ "$rc1" -eq 0 ] || { echo "  the first fio client exited with $rc1" >>"$E2E_DIR/why"; status=1; }
		[ "$rc2" -eq 0 ] || { echo "  the second fio client exited with $rc2" >>"$E2E_DIR/why"; status=1; }
		[ "$src" -eq 0 ] || { echo "  the server exited with $src, expected 0" >>"$E2E_DIR/why"; status=1; }
		local k
		for k in 1 2; do
			jq -e '.jobs[0].error == 0 and .jobs[0].write.io_bytes == 8388608 and .jobs[0].read.io_bytes == 8388608' \
				"$E2E_DIR/client$k.json" >/dev/null 2>&1 ||
				{ echo "  fio client $k did not write and verify its 8 MiB without an error" >>"$E2E_DIR/why"; status=1; }
		done
		grep -Eq "dropped the connection of client 2 \([^)]*, port $p2\) before it was established \(($why)\): its port listens on" \
			"$E2E_DIR/server.log" ||
			{ echo "  the server did not name and drop the hostile connection (/$why/)" >>"$E2E_DIR/why"; status=1; }
		grep -Eq 'served [1-9][0-9]* flush requests from 2 clients on one thread \(each: [1-9][0-9]*, [1-9][0-9]*;' \
			"$E2E_DIR/server.log" ||
			{ echo "  the server did not serve both fio clients" >>"$E2E_DIR/why"; status=1; }
		if grep -q 'ERROR' "$E2E_DIR/client1.log" "$E2E_DIR/client2.log" "$E2E_DIR/server.log"; then
			echo "  an error was logged" >>"$E2E_DIR/why"
			status=1
		fi
	else
		status=1
	fi
	e2e_result "$name" "$status"
	e2e_show_logs_if "$status"
	return 0
}

# gp_hub_trespass: a server job for three clients from one thread, each in a
# protection domain of its own; build/tests/tools/hub-trespass connects as all three:
# the victim (first port) writes 4096 bytes of 0x5c over the start of its part and
# reads them back; with the victim's descriptor (its real rkey and address) the
# reader's RDMA read and the writer's RDMA write (0xee) on their own connections are
# refused by the device (a remote access error), and the victim finds its bytes as it
# wrote them. The server file says the same (0x5c there, no 0xee in the victim's
# part), and the server exits 0, having dropped the two whose connections broke.
gp_hub_trespass() {
	local name=gpspm-hub-trespass status=0 trc=0 src=0
	gp_want "$name" || return 0
	gp_new_test "$name"
	local file=/tmp/rpma-fio-e2e-gpspm-hub-trespass
	truncate -s 6m "$file"
	if gp_start_server "SERVER_MEM=$file SERVER_SIZE=2m CLIENTS_PER_JOB=3"; then
		timeout "$E2E_STEP_TIMEOUT" "$TRESPASS" "$A" "$E2E_PORT" "$((E2E_PORT + 1))" \
			"$((E2E_PORT + 2))" >"$E2E_DIR/client-trespass.log" 2>&1 || trc=$?
		wait "$GP_SPID" || src=$?
		[ "$trc" -eq 0 ] || { echo "  hub-trespass exited with $trc" >>"$E2E_DIR/why"; status=1; }
		[ "$src" -eq 0 ] || { echo "  the server exited with $src, expected 0" >>"$E2E_DIR/why"; status=1; }
		local line
		for line in "victim: wrote and read back its 4096 bytes" \
				"reader: an RDMA read of the victim's bytes: remote access error" \
				"writer: an RDMA write over the victim's bytes: remote access error" \
				"victim: its bytes read again: as it wrote them"; do
			grep -Fxq "$line" "$E2E_DIR/client-trespass.log" ||
				{ echo "  hub-trespass did not say: $line" >>"$E2E_DIR/why"; status=1; }
		done
		[ "$(head -c 4096 "$file" | tr -d '\134' | wc -c)" -eq 0 ] ||
			{ echo "  the victim's first 4096 bytes in the server file are not its 0x5c" >>"$E2E_DIR/why"; status=1; }
		if head -c 2097152 "$file" | LC_ALL=C grep -q $'\xee'; then
			echo "  the writer's 0xee bytes are in the victim's part of the server file" >>"$E2E_DIR/why"
			status=1
		fi
	else
		status=1
	fi
	rm -f "$file"
	e2e_result "$name" "$status"
	e2e_show_logs_if "$status"
	return 0
}

gp_hub sleeping 'SERVER_BUSY_WAIT=0'
gp_hub busy 'SERVER_BUSY_WAIT=1'
gp_hub_hostile beyond valid beyond
gp_hub_handshake stall
gp_hub_handshake killed
gp_hub_trespass

e2e_summary
