# shellcheck shell=bash
# tests/e2e/fio_group.sh -- fio_group, for the engine suites (sourced after lib.sh;
# needs METHOD, ENGINE and COMMON_VARS of the suite).

# Runs many tests against ONE server process and ONE client process of method
# $METHOD: every fio process costs seconds under TCG, a 1 s test's I/O does not.
#
#   fio_group NAME 'SERVER_VARS' 'TEST CHECK OPTION...'...
#
# Each test is a stonewalled section of a job file written here (jobs/client.inc,
# then the test's fio OPTIONs, e.g. rw=randwrite bs=64k sync=0 iodepth=8); the
# server runs one job per section (NUMJOBS = the number of tests; section i uses
# PORT + i). Each test passes when the client's JSON shows its section moved
# bytes in the directions of CHECK (read, write, readwrite) with no error; both
# processes must exit 0 and log no error.
fio_group() {
	local group=$1 svars=$2 status=0 n=0 spec words
	shift 2
	e2e_wanted "$METHOD-$group" || return 0
	e2e_setup "$METHOD-$group" -- # (a folder and a port of its own)
	local jobfile=$E2E_DIR/client.fio json=$E2E_DIR/client.json port=$E2E_PORT
	printf '[global]\ninclude %s/jobs/client.inc\n' "$PWD" >"$jobfile"
	for spec in "$@"; do
		read -r -a words <<<"$spec"
		printf '\n[%s]\nstonewall\n' "${words[0]}" >>"$jobfile"
		printf '%s\n' "${words[@]:2}" >>"$jobfile"
		n=$((n + 1))
	done
	# shellcheck disable=SC2206 # the variable list is meant to be split
	E2E_SERVER=(env "${COMMON_VARS[@]}" PORT="$port" NUMJOBS="$n" SERVER_SIZE=16m $svars
		fio "jobs/$METHOD-server.fio")
	E2E_PORT=$((E2E_PORT + n))
	local limit=$((E2E_STEP_TIMEOUT + 8 * n))
	timeout "$limit" "${E2E_SERVER[@]}" >"$E2E_DIR/server.log" 2>&1 &
	local spid=$! rc=0
	if e2e_wait_line "$E2E_DIR/server.log" 'listening on' "$E2E_READY_TIMEOUT" "$spid"; then
		timeout "$limit" env "${COMMON_VARS[@]}" PORT="$port" \
			fio --ioengine=external:"$ENGINE" "$jobfile" --output-format=json --output="$json" \
			>"$E2E_DIR/client.log" 2>&1 || rc=$?
		[ "$rc" -eq 0 ] || { echo "  the client exited with $rc" >>"$E2E_DIR/why"; status=1; }
	else
		echo "  the server did not listen within $E2E_READY_TIMEOUT s" >>"$E2E_DIR/why"
		status=1
		kill "$spid" 2>/dev/null
	fi
	wait "$spid" || { echo "  the server exited with $?" >>"$E2E_DIR/why"; status=1; }
	if grep -q 'ERROR' "$E2E_DIR/client.log" "$E2E_DIR/server.log"; then
		echo "  an error was logged" >>"$E2E_DIR/why"
		status=1
	fi
	# one line per section: name error read-bytes write-bytes read-IOPS write-IOPS
	local figures
	figures=$(jq -r '.jobs[] | "\(.jobname) \(.error) \(.read.io_bytes) \(.write.io_bytes) \(.read.iops | floor) \(.write.iops | floor)"' \
		"$json" 2>/dev/null)
	local name check err rb wb ri wi ok
	for spec in "$@"; do
		read -r name check _ <<<"$spec"
		ok=$status
		read -r err rb wb ri wi <<<"$(awk -v n="$name" '$1 == n { $1 = ""; print }' <<<"$figures")"
		[ "${err:-x}" = 0 ] || ok=1
		case $check in read | readwrite) [ "${rb:-0}" -gt 0 ] || ok=1 ;; esac
		case $check in write | readwrite) [ "${wb:-0}" -gt 0 ] || ok=1 ;; esac
		[ "$ok" -eq 0 ] || echo "  section $name: error ${err:-none}, read ${rb:-?} B, written ${wb:-?} B" >>"$E2E_DIR/why"
		e2e_result "$METHOD-$name" "$ok"
		[ "$ok" -eq 0 ] && echo "  read $ri IOPS, write $wi IOPS"
	done
	[ -s "$E2E_DIR/why" ] && { e2e_show_logs; sed 's/^/  | /' "$jobfile"; }
	return 0
}
