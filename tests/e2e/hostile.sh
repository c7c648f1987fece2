#!/usr/bin/env bash
# tests/e2e/hostile.sh -- peers that break the protocol, against our engines, over
# real Soft-RoCE inside the VM:
#
#   scripts/softroce-vm run --timeout 600 -- tests/e2e/hostile.sh
#
#   - a hostile GPSPM server (build/tests/tools/gpspm-hostile-server) against our
#     GPSPM client (fio jobs/write.fio, sync=1 and iodepth 8): a response with an
#     unknown op_context, one answered twice, truncated, oversized, garbage,
#     empty, a request instead of a response, a response before any request, a
#     flood of responses nobody asked for, no answer at all;
#   - a hostile APM server (apm-hostile-server) against our APM client: workspaces
#     that lie about the descriptor's size, direct_write_to_pmem, the descriptor
#     itself, or the region's size;
#   - a well-behaved case of each tool as the control: the client's job completes;
#   - the hostile GPSPM client (gpspm-hostile) against our GPSPM server: more
#     requests at once than the server's max_msg_num, two requests with one
#     op_context: the server serves them (receives it has not posted hold the rest
#     back; the op_context is the client's tag, echoed), then ends cleanly.
#
# A client facing a hostile case must fail by itself: exit non-zero (not killed by
# the step's timeout, not by a signal), name the problem on stderr, and leave
# within LEAVE_MS of the misbehaviour (the tool measures it) and within
# CLIENT_S seconds of its start (fio's start-up under TCG included). Each tool
# serves its cases one after the other, on one port: one server process a tool.
#
# Results are named hostile-GROUP-CASE (GROUP: gpspm-server, apm-server, client);
# HOSTILE_ONLY=REGEX runs only the groups whose name matches.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/e2e/lib.sh
e2e_in_vm
TOOLS=build/tests/tools
E2E_PORT=8100
CONNECT_TIMEOUT_MS=3000
COMMON_VARS=("SERVER_IP=$A" RAMP=0 "CONNECT_TIMEOUT=$CONNECT_TIMEOUT_MS")
# the bounds: from the misbehaviour to the client's leaving, and a client's whole run
LEAVE_MS=$((CONNECT_TIMEOUT_MS + 2000))
CLIENT_S=$((CONNECT_TIMEOUT_MS / 1000 + 8))
QD8='SYNC=0 IODEPTH=8 BATCH=4'
NOT_IN_FLIGHT='answered a flush request that is not in flight'

for tool in gpspm-hostile-server apm-hostile-server gpspm-hostile; do
	[ -x "$TOOLS/$tool" ] || { echo "FAIL hostile: $TOOLS/$tool is not built (make tools)"; exit 1; }
done

hs_want() {
	[[ $1 =~ ${HOSTILE_ONLY:-.} ]]
}

# The lines of the tool's log about case $1.
hs_case_lines() {
	grep -F "case $1:" "$E2E_DIR/server.log"
}

# The tool's verdicts on case $1 so far (a case may be served more than once).
hs_verdicts() {
	grep -E "^case $1: (the client left|FAIL)" "$E2E_DIR/server.log"
}

# Wait (at most 10 s, while the tool lives) for verdict number $2 on case $1; print it.
hs_verdict() {
	local waited=0 alive=1
	while [ "$(hs_verdicts "$1" | wc -l)" -lt "$2" ]; do
		# (a tool that has ended has said all it will)
		[ "$waited" -ge 100 ] || [ "$alive" -eq 0 ] && return 1
		kill -0 "$HS_SPID" 2>/dev/null || alive=0
		nap 0.1
		waited=$((waited + 1))
	done
	hs_verdicts "$1" | sed -n "$2p"
}

# hs_client NAME CASE 'CLIENT_VARS' REGEX ENGINE CLIENT_ARGS...
# One fio client against the tool's next case. REGEX empty: the control, which
# must complete (exit 0, data written, the tool satisfied: the GPSPM one wants the
# client's last message); else the client must fail by itself with REGEX on its
# output, within the bounds.
hs_client() {
	local name=$1 case=$2 cvars=$3 regex=$4 engine=$5 status=0 rc=0 t0 took left verdict n
	shift 5
	local log=$E2E_DIR/client-$name.log why=$E2E_DIR/why-$name
	n=$(($(hs_verdicts "$case" | wc -l) + 1))
	t0=$EPOCHREALTIME
	# shellcheck disable=SC2086 # the variable list is meant to be split
	timeout "$E2E_STEP_TIMEOUT" env "${COMMON_VARS[@]}" PORT="$E2E_PORT" RUNTIME=2s $cvars \
		fio --ioengine=external:"$engine" jobs/write.fio "$@" >"$log" 2>&1 || rc=$?
	took=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
	# the tool says its verdict on the case once the client has gone
	verdict=$(hs_verdict "$case" "$n") ||
		echo "  the tool said nothing about the client leaving" >>"$why"
	if [ -z "$regex" ]; then
		[ "$rc" -eq 0 ] || echo "  the client exited with $rc" >>"$why"
		grep -Eq 'WRITE: bw=[1-9]' "$log" || echo "  the client wrote nothing" >>"$why"
		[[ $verdict == *'the client left'* ]] ||
			echo "  the tool did not see the client leave" >>"$why"
	else
		if [ "$rc" -eq 0 ] || [ "$rc" -eq 124 ] || [ "$rc" -gt 128 ]; then
			echo "  the client exited with $rc: it should have failed by itself" \
				"$( [ "$rc" -gt 128 ] && echo "(killed by signal $((rc - 128)))")" >>"$why"
		fi
		grep -Eq "$regex" "$log" || echo "  the client's output does not match /$regex/" >>"$why"
		left=$(sed -n 's/.*the client left \([0-9]*\) ms after.*/\1/p' <<<"$verdict")
		if [ -z "$left" ]; then
			echo "  the tool did not see the client leave" >>"$why"
		elif [ "$left" -gt "$LEAVE_MS" ]; then
			echo "  the client left $left ms after the misbehaviour (at most $LEAVE_MS)" >>"$why"
		fi
		if awk -v t="$took" -v b="$CLIENT_S" 'BEGIN { exit !(t > b) }'; then
			echo "  the client ran $took s (at most $CLIENT_S)" >>"$why"
		fi
	fi
	[ -s "$why" ] && status=1
	e2e_result "$name" "$status"
	if [ "$status" -eq 0 ]; then
		echo "  client ${took} s${left:+, left ${left} ms after the misbehaviour}:" \
			"$(grep -E "${regex:-WRITE: bw=}" "$log" | head -1 | sed 's/^ *//')"
	else
		cat "$why"
		echo "  --- the tool, case $case:"
		hs_case_lines "$case" | sed 's/^/  | /'
		echo "  --- the client:"
		sed 's/^/  | /' "$log"
	fi
}

# hs_group GROUP TOOL ENGINE  NAME CASE 'CLIENT_VARS' REGEX [NAME CASE ...]
# Starts TOOL with every CASE, then runs one client (hs_client) per quadruple,
# in order; the tool must end by itself with OK.
hs_group() {
	local group=$1 tool=$2 engine=$3 cases=() rc=0 i
	shift 3
	hs_want "$group" || return 0
	local args=("$@")
	for ((i = 1; i < ${#args[@]}; i += 4)); do cases+=("${args[i]}"); done
	E2E_PORT=$((E2E_PORT + 1))
	E2E_DIR=$E2E_TMP/$group
	mkdir -p "$E2E_DIR"
	timeout $((E2E_STEP_TIMEOUT + 15 * ${#cases[@]})) "$TOOLS/$tool" "$A" "$E2E_PORT" "${cases[@]}" \
		>"$E2E_DIR/server.log" 2>&1 &
	HS_SPID=$!
	if ! e2e_wait_line "$E2E_DIR/server.log" 'listening on' "$E2E_READY_TIMEOUT" "$HS_SPID"; then
		kill "$HS_SPID" 2>/dev/null
		wait "$HS_SPID" 2>/dev/null
		e2e_result "hostile-$group-listens" 1
		sed 's/^/  | /' "$E2E_DIR/server.log"
		return 0
	fi
	for ((i = 0; i < ${#args[@]}; i += 4)); do
		local extra=()
		[ -n "${HS_CLIENT_ARGS[${args[i]}]:-}" ] && extra=("${HS_CLIENT_ARGS[${args[i]}]}")
		hs_client "hostile-$group-${args[i]}" "${args[i + 1]}" "${args[i + 2]}" "${args[i + 3]}" \
			"$engine" "${extra[@]}"
	done
	wait "$HS_SPID" || rc=$?
	if [ "$rc" -ne 0 ] || ! tail -1 "$E2E_DIR/server.log" | grep -q ': OK$'; then
		e2e_result "hostile-$group-ends-ok" 1
		echo "  $tool exited with $rc"
		sed 's/^/  | /' "$E2E_DIR/server.log"
	else
		e2e_result "hostile-$group-ends-ok" 0
	fi
}

# a fio option a client needs beyond its variables, by test name
declare -A HS_CLIENT_ARGS=([small-region]=--size=1m)

# --- a hostile GPSPM server against our GPSPM client ---
# (oversized: the client's receive fails, with "local QP operation error" on rxe
# or "local length error"; the client names the likely cause)
hs_group gpspm-server gpspm-hostile-server build/librpma_gpspm.so \
	well               well          'RUNTIME=1s' '' \
	well-qd8           well          "RUNTIME=1s $QD8" '' \
	unknown-opctx      unknown-opctx '' "$NOT_IN_FLIGHT \(op_context 1000000; in flight: 0-1\)" \
	unknown-opctx-qd8  unknown-opctx "$QD8" "$NOT_IN_FLIGHT \(op_context 1000000;" \
	duplicate          duplicate     '' "$NOT_IN_FLIGHT \(op_context 0;" \
	duplicate-qd8      duplicate     "$QD8" "$NOT_IN_FLIGHT \(op_context 0;" \
	truncated          truncated     '' 'sent an invalid message: flush response of 5 bytes is truncated' \
	oversized          oversized     '' 'an RDMA operation failed: local (QP operation|length) error \(receiving the server.s message failed: was it longer than the 512-byte receive buffer\?\)' \
	garbage            garbage       '' 'sent an invalid message: flush response' \
	empty              empty         '' 'sent an invalid message: empty flush response \(0 bytes\)' \
	wrong-type         wrong-type    '' 'sent an invalid message: flush response: unknown field 2 \(wire type 64-bit\)' \
	early              early         '' "$NOT_IN_FLIGHT \(op_context 0;" \
	flood              flood         '' "$NOT_IN_FLIGHT \(op_context 1000000;" \
	flood-qd8          flood         "$QD8" "$NOT_IN_FLIGHT \(op_context 1000000;" \
	silent             silent        '' "no completion from the server at $A:[0-9]+ for $CONNECT_TIMEOUT_MS ms"

# --- a hostile APM server against our APM client ---
invalid_ws='sent an invalid workspace: '
pdata="${invalid_ws}the server's private data"
bad_desc="the server's memory descriptor"
hs_group apm-server apm-hostile-server build/librpma_apm.so \
	well          well          'RUNTIME=1s' '' \
	small-region  small-region  '' 'size=1048576 is more than the 65536 bytes the server exposes' \
	region-lie    region-lie    '' 'an RDMA operation failed: remote access error' \
	desc-short    desc-short    '' "$bad_desc \(21 bytes\) is invalid" \
	desc-size-24  desc-size-24  '' "$bad_desc \(24 bytes\) is invalid" \
	desc-size-0   desc-size-0   '' "$pdata announces a 0-byte region descriptor \(expected 1-24\)" \
	desc-size-25  desc-size-25  '' "$pdata announces a 25-byte region descriptor \(expected 1-24\)" \
	dwpmem-7      dwpmem-7      '' "${invalid_ws}direct_write_to_pmem is 7 in the server's private data" \
	flags-unknown flags-unknown '' "$pdata has unknown flags 0x80 at byte 28" \
	desc-garbage  desc-garbage  '' 'an RDMA operation failed: remote access error' \
	desc-wrap     desc-wrap     '' "$bad_desc \(21 bytes\) is invalid" \
	no-workspace  no-workspace  '' "$invalid_ws"

# --- the hostile GPSPM client against our GPSPM server (4 requests at a time) ---
if hs_want client; then
	E2E_PORT=$((E2E_PORT + 1))
	E2E_DIR=$E2E_TMP/client
	mkdir -p "$E2E_DIR"
	status=0 rc=0 src=0
	timeout "$E2E_STEP_TIMEOUT" env "${COMMON_VARS[@]}" PORT="$E2E_PORT" SERVER_IODEPTH=4 \
		SERVER_BUSY_WAIT=0 fio jobs/gpspm-server.fio >"$E2E_DIR/server.log" 2>&1 &
	spid=$!
	if e2e_wait_line "$E2E_DIR/server.log" 'listening on' "$E2E_READY_TIMEOUT" "$spid"; then
		timeout "$E2E_STEP_TIMEOUT" "$TOOLS/gpspm-hostile" "$A" "$E2E_PORT" valid flood dup-opctx \
			valid last >"$E2E_DIR/client.log" 2>&1 || rc=$?
	else
		echo "  the server did not listen" >>"$E2E_DIR/why"
		kill "$spid" 2>/dev/null
	fi
	wait "$spid" || src=$?
	[ "$rc" -eq 0 ] || echo "  gpspm-hostile exited with $rc" >>"$E2E_DIR/why"
	[ "$src" -eq 0 ] || echo "  the server exited with $src" >>"$E2E_DIR/why"
	for c in flood dup-opctx; do
		grep -q "case $c: every one of the [0-9]* answered once" "$E2E_DIR/client.log" ||
			echo "  case $c: not every request was answered once" >>"$E2E_DIR/why"
	done
	# 1 + (2 * 4 + 4) + 2 + 1 requests, each persisted and answered once
	grep -q 'served 16 flush requests' "$E2E_DIR/server.log" ||
		echo "  the server did not serve exactly 16 flush requests" >>"$E2E_DIR/why"
	if grep -Eq 'rejected|ERROR' "$E2E_DIR/server.log"; then
		echo "  the server rejected something or logged an error" >>"$E2E_DIR/why"
	fi
	[ -s "$E2E_DIR/why" ] && status=1
	e2e_result hostile-client-flood-and-dup-opctx "$status"
	if [ "$status" -eq 0 ]; then
		grep -E '^case (flood|dup-opctx)' "$E2E_DIR/client.log" | sed 's/^/  /'
		grep -Eo 'served .*' "$E2E_DIR/server.log" | sed 's/^/  server: /'
	fi
	E2E_SERVER=("(server: jobs/gpspm-server.fio SERVER_IODEPTH=4)")
	e2e_show_logs_if "$status"
fi

e2e_summary
