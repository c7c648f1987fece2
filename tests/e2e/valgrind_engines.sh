#!/usr/bin/env bash
# tests/e2e/valgrind_engines.sh -- a short fio run of each engine, server and
# client both under valgrind memcheck, over real Soft-RoCE, inside the VM:
#   scripts/softroce-vm run -- tests/e2e/valgrind_engines.sh [--help]
#
# Per method: a 2-second randwrite (server and client under memcheck); then a
# client SIGKILLed mid-run while its GPSPM server runs under memcheck (the server
# job must end cleanly, status 0, and release everything; the servers' code for a
# lost client is shared, GPSPM adds its message buffers and slots). valgrind exits 99 on an
# error or a definite/possible leak; tests/e2e/valgrind.supp hides rdma-core's
# process-wide state only, tests/e2e/fio.supp one leak of fio's own option
# parser (VALGRIND_ENGINES_SUPP may add more). (One method after the other: two
# lanes side by side measured slower, memcheck keeps both vCPUs busy.)
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1

case "${1:-}" in
-h|--help) sed -n '2,11s/^# \{0,1\}//p' "$0"; exit 0 ;;
"") ;;
*) echo "$0: unknown argument '$1' (see --help)" >&2; exit 2 ;;
esac
. tests/e2e/lib.sh
e2e_in_vm
command -v valgrind >/dev/null || { echo "$0: valgrind is not installed" >&2; exit 1; }
E2E_STEP_TIMEOUT=${E2E_VALGRIND_STEP_TIMEOUT:-150}
E2E_READY_TIMEOUT=${E2E_VALGRIND_READY_TIMEOUT:-180}
COMMON_VARS=("SERVER_IP=$A" RAMP=0 SERVER_BUSY_WAIT=0 BUSY_WAIT=0)
SUPP=(--suppressions=tests/e2e/valgrind.supp --suppressions=tests/e2e/fio.supp)
[ -n "${VALGRIND_ENGINES_SUPP:-}" ] && SUPP+=(--suppressions="$VALGRIND_ENGINES_SUPP")
# fio built from the tree the engines are compiled against, with few libraries:
# Debian's fio loads 64, which takes valgrind ~55 s a run under TCG (mk/fio_lean.mk)
VG_FIO=${E2E_VALGRIND_FIO:-build/fio-lean}
[ -x "$VG_FIO" ] || { echo "$0: $VG_FIO is missing: make fio-lean" >&2; exit 1; }
# shellcheck disable=SC2054 # the commas are valgrind's
MEMCHECK=(valgrind --error-exitcode=99 "${SUPP[@]}" --leak-check=full
	--show-leak-kinds=definite,possible --errors-for-leak-kinds=definite,possible)

# vg_server NAME METHOD RUNTIME: a new test folder and port, the server under
# memcheck in the background (pid in VG_SPID); fails when it does not listen
vg_server() {
	local name=$1 m=$2 runtime=$3
	E2E_PORT=$((E2E_PORT + 4))
	E2E_DIR=$E2E_TMP/$name
	mkdir -p "$E2E_DIR"
	E2E_SERVER=("${MEMCHECK[@]}" "$VG_FIO" "jobs/$m-server.fio")
	timeout "$E2E_STEP_TIMEOUT" env "${COMMON_VARS[@]}" PORT="$E2E_PORT" RUNTIME="$runtime" \
		"${MEMCHECK[@]}" "$VG_FIO" "jobs/$m-server.fio" >"$E2E_DIR/server.log" 2>&1 &
	VG_SPID=$!
	e2e_wait_line "$E2E_DIR/server.log" 'listening on' "$E2E_READY_TIMEOUT" && return 0
	echo "  the server did not listen" >>"$E2E_DIR/why"
	kill -KILL "$VG_SPID" 2>/dev/null
	return 1
}

# vg_server_end NAME STATUS: the server must exit 0 (memcheck clean, not hung)
vg_server_end() {
	local name=$1 status=$2 rc=0
	wait "$VG_SPID" || rc=$?
	[ "$rc" -eq 0 ] || { echo "  the server exited with $rc (99: valgrind found something, 124: it hung)" >>"$E2E_DIR/why"; status=1; }
	e2e_result "$name" "$status"
	e2e_show_logs_if "$status"
}

# fio_pair_vg NAME METHOD: a 2 s randwrite, both sides under memcheck
fio_pair_vg() {
	local name=$1 m=$2 status=0 rc=0
	if ! vg_server "$name" "$m" 2s; then
		status=1
	else
		timeout "$E2E_STEP_TIMEOUT" env "${COMMON_VARS[@]}" PORT="$E2E_PORT" RUNTIME=2s \
			CONNECT_TIMEOUT=20000 "${MEMCHECK[@]}" "$VG_FIO" --ioengine=external:"build/librpma_$m.so" \
			jobs/randwrite.fio >"$E2E_DIR/client.log" 2>&1 || rc=$?
		[ "$rc" -eq 0 ] || { echo "  the client exited with $rc (99: valgrind found something)" >>"$E2E_DIR/why"; status=1; }
		grep -q 'write: IOPS=' "$E2E_DIR/client.log" || { echo "  the client did no I/O" >>"$E2E_DIR/why"; status=1; }
	fi
	vg_server_end "$name" "$status"
}

# client_killed_vg NAME METHOD: the server (under memcheck) loses its client to SIGKILL
client_killed_vg() {
	local name=$1 m=$2 status=0
	if ! vg_server "$name" "$m" 60s; then
		status=1
	else
		env "${COMMON_VARS[@]}" PORT="$E2E_PORT" RUNTIME=60s CONNECT_TIMEOUT=20000 \
			fio --ioengine=external:"build/librpma_$m.so" jobs/randwrite.fio \
			>"$E2E_DIR/client.log" 2>&1 &
		local cpid=$!
		# connected and I/O flowing (the server under valgrind is slow to accept)
		e2e_wait_io "$E2E_PORT" "$A" "$E2E_READY_TIMEOUT" ||
			{ echo "  no I/O flowed within $E2E_READY_TIMEOUT s" >>"$E2E_DIR/why"; status=1; }
		kill -KILL "$cpid" 2>/dev/null
		wait "$cpid" 2>/dev/null
		echo "  killed the client with SIGKILL" >>"$E2E_DIR/why"
	fi
	vg_server_end "$name" "$status"
}

start=$SECONDS
for m in apm gpspm; do
	[ -f "build/librpma_$m.so" ] || { echo "$0: build/librpma_$m.so is missing: make engines" >&2; exit 1; }
	fio_pair_vg "memcheck-$m-randwrite" "$m"
done
# (GPSPM's: the servers' shared code (engines/server) and GPSPM's own buffers and slots)
client_killed_vg memcheck-gpspm-server-client-killed gpspm
echo "valgrind engines: $((SECONDS - start)) s"
e2e_summary
