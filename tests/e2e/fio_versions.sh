#!/usr/bin/env bash
# tests/e2e/fio_versions.sh -- both engines with every fio they are built for
# (make fio-versions: build/fio-VERSION/, listed in build/fio-versions.txt, beside
# the system's fio and build/), inside the Soft-RoCE VM:
#
#   scripts/softroce-vm run -- tests/e2e/fio_versions.sh
#
# For each other fio: `fio --enghelp` loads each engine built for it (and refuses
# the engine of another fio by its ioengine version); the mission's command lines,
# verbatim (the server's job file, then `fio --ioengine=external:... jobs/write.fio`),
# for both methods, that fio on both sides; and fio's verify, batched, with that fio
# on one side and the system's fio on the other, both ways (so each side of each
# engine verifies with it): a client host and a server host rarely have the same
# fio. Each run checks which fio ran on each side.
#
# A fio runs in a folder of its own where build/ is the folder of its engines and
# jobs/ the project's: the job files' `ioengine=external:build/librpma_*.so` then
# load the engines built for it, and every command line is the one a user types.
set -u
cd "$(dirname "$0")/../.." || exit 1
# the system's fio is Debian's own (not build/fio-lean): the release beside the others
E2E_FIO=system
. tests/e2e/lib.sh
e2e_in_vm
E2E_PORT=7400
METHODS=(apm gpspm)
VERSIONS_FILE=build/fio-versions.txt

# the fio of VERSION runs in ROOTS[VERSION]; its source tree is SOURCES[VERSION]
declare -A ROOTS SOURCES
SYSTEM_VERSION=

# make_root VERSION FIO ENGINE_DIR FIO_SOURCES
make_root() {
	local root=$E2E_TMP/fio-$1
	mkdir -p "$root/bin"
	ln -s "$2" "$root/bin/fio"
	ln -s "$(realpath "$3")" "$root/build"
	ln -s "$PWD/jobs" "$root/jobs"
	ROOTS[$1]=$root
	SOURCES[$1]=$4
}

# at VERSION: the command prefix (env ...) that runs a command in the folder of that
# fio, with that fio first on PATH, into the array AT (a prefix, not a function:
# timeout runs it)
at() {
	local root=${ROOTS[$1]}
	AT=(env -C "$root" PATH="$root/bin:$PATH")
}

# in_root VERSION CMD...: CMD run so, here, under the step timeout
in_root() {
	at "$1"
	shift
	timeout "$E2E_STEP_TIMEOUT" "${AT[@]}" "$@"
}

find_versions() {
	local release ver dir
	SYSTEM_VERSION=$(fio --version | sed 's/^fio-//')
	make_root "$SYSTEM_VERSION" "$(command -v fio)" build "build/fio-src/fio-$SYSTEM_VERSION"
	if [ ! -s "$VERSIONS_FILE" ]; then
		echo "FAIL: no $VERSIONS_FILE: run make fio-versions first"
		exit 1
	fi
	while read -r release ver dir; do
		if [ ! -x "build/fio-$ver/fio" ] || [ ! -f "build/fio-$ver/librpma_apm.so" ]; then
			echo "FAIL: build/fio-$ver/ ($release) has no fio or no engines: run make fio-versions"
			exit 1
		fi
		[ "$ver" != "$SYSTEM_VERSION" ] || continue
		make_root "$ver" "$(realpath "build/fio-$ver/fio")" "build/fio-$ver" "$dir"
		OTHER_VERSIONS+=("$ver")
		echo "fio $ver ($release, $dir) against the system's fio $SYSTEM_VERSION"
	done <"$VERSIONS_FILE"
	if [ ${#OTHER_VERSIONS[@]} -eq 0 ]; then
		echo "FAIL: $VERSIONS_FILE names no fio other than the system's $SYSTEM_VERSION"
		exit 1
	fi
}

# the ioengine version of VERSION's fio (its headers'), as fio names it when it refuses
# an engine built for another
ioops_version() { # VERSION
	sed -n 's/^#define FIO_IOOPS_VERSION[^0-9]*\([0-9]*\).*/\1/p' "${SOURCES[$1]}/ioengines.h"
}

# fio --enghelp of VERSION lists each engine's options; the system fio's engine is
# refused by ioengine version
enghelp() { # VERSION
	local ver=$1 name=fio-$1-enghelp status=0 method want have
	e2e_setup "$name" true -- true
	for method in "${METHODS[@]}"; do
		if ! in_root "$ver" fio --enghelp="build/librpma_$method.so" >"$E2E_DIR/client-$method.log" 2>&1 ||
				! grep -q '^serverip ' "$E2E_DIR/client-$method.log"; then
			echo "  fio $ver does not list librpma_$method.so's options" >>"$E2E_DIR/why"
			status=1
		fi
	done
	if ! want=$(ioops_version "$ver") || ! have=$(ioops_version "$SYSTEM_VERSION") ||
			[ -z "$want" ] || [ -z "$have" ]; then
		echo "  cannot read the ioengine versions" >>"$E2E_DIR/why"
		status=1
	fi
	if [ "$status" -eq 0 ] && [ "$want" != "$have" ]; then
		in_root "$ver" fio --enghelp="$PWD/build/librpma_apm.so" >"$E2E_DIR/client-other.log" 2>&1
		grep -q "bad ioops version $have (want $want)" "$E2E_DIR/client-other.log" || {
			echo "  fio $ver did not refuse fio $SYSTEM_VERSION's engine by its version" >>"$E2E_DIR/why"
			status=1
		}
	fi
	: >"$E2E_DIR/server.log"
	e2e_result "$name" "$status"
	e2e_show_logs_if "$status"
}

# LOG shows fio VERSION ran (fio prints its version before it starts the jobs)
ran_fio() { # LOG VERSION WHO
	grep -qx "fio-$2" "$1" && return 0
	echo "  the $3 did not run fio $2" >>"$E2E_DIR/why"
	return 1
}

# E2E_SERVER until it listens on PORT, then E2E_CLIENT; both must exit 0 (each under
# the step timeout; what went wrong in E2E_DIR/why)
serve_and_run() { # PORT
	local spid status=0
	timeout "$E2E_STEP_TIMEOUT" "${E2E_SERVER[@]}" >"$E2E_DIR/server.log" 2>&1 &
	spid=$!
	if e2e_wait_line "$E2E_DIR/server.log" "listening on $A:$1" "$E2E_READY_TIMEOUT" "$spid"; then
		timeout "$E2E_STEP_TIMEOUT" "${E2E_CLIENT[@]}" >"$E2E_DIR/client.log" 2>&1 ||
			{ echo "  the client failed" >>"$E2E_DIR/why"; status=1; }
	else
		echo "  the server did not listen on $A:$1" >>"$E2E_DIR/why"
		status=1
		kill "$spid" 2>/dev/null
	fi
	wait "$spid" || { echo "  the server failed" >>"$E2E_DIR/why"; status=1; }
	return "$status"
}

# the mission's command lines, verbatim, with only the server's address set: port
# 7204, 4k writes, sync, 10 s after a 2 s ramp
mission() { # VERSION METHOD
	local ver=$1 method=$2 name=fio-$1-$2-mission-command status=0
	at "$ver"
	e2e_setup "$name" "${AT[@]}" SERVER_IP="$A" fio "jobs/$method-server.fio" -- \
		"${AT[@]}" SERVER_IP="$A" fio --ioengine=external:"build/librpma_$method.so" jobs/write.fio
	serve_and_run 7204 || status=1
	grep -Eq 'WRITE: bw=.*run=1[0-9]{4}-' "$E2E_DIR/client.log" ||
		{ echo "  no 10 s of writes in the client's output" >>"$E2E_DIR/why"; status=1; }
	ran_fio "$E2E_DIR/client.log" "$ver" client || status=1
	ran_fio "$E2E_DIR/server.log" "$ver" server || status=1
	e2e_result "$name" "$status"
	[ "$status" -eq 0 ] && grep -E '^ +write: IOPS' "$E2E_DIR/client.log"
	e2e_show_logs_if "$status"
}

# fio's verify, batched: the client of fio CVER against the server of fio SVER
verify() { # CVER SVER METHOD
	local cver=$1 sver=$2 method=$3 name=fio-$1-client-$2-server-$3-verify status=0 json
	local server_at client_at
	at "$sver"
	server_at=("${AT[@]}")
	at "$cver"
	client_at=("${AT[@]}")
	e2e_setup "$name" "${server_at[@]}" SERVER_IP="$A" PORT=@PORT@ SERVER_SIZE=16m \
		fio "jobs/$method-server.fio" -- \
		"${client_at[@]}" fio --ioengine=external:"build/librpma_$method.so" --name=verify \
		--serverip="$A" --port=@PORT@ --thread --create_serialize=0 --size=8m --bs=4k \
		--rw=randwrite --iodepth=8 --iodepth_batch_submit=4 --verify=crc32c --do_verify=1 \
		--verify_fatal=1 --verify_state_save=0 --output-format=json --output=client.json
	json=${ROOTS[$cver]}/client.json
	rm -f "$json"
	serve_and_run "$E2E_PORT" || status=1
	[ -f "$json" ] && mv "$json" "$E2E_DIR/client.json"
	if ! jq -e --arg v "fio-$cver" '."fio version" == $v and .jobs[0].error == 0 and
			.jobs[0].write.io_bytes == 8388608 and .jobs[0].read.io_bytes == 8388608' \
			"$E2E_DIR/client.json" >/dev/null 2>&1; then
		echo "  the client's JSON does not show fio-$cver writing 8 MiB and verifying them" >>"$E2E_DIR/why"
		status=1
	fi
	ran_fio "$E2E_DIR/server.log" "$sver" server || status=1
	if grep -q 'ERROR' "$E2E_DIR/client.log" "$E2E_DIR/server.log"; then
		echo "  an error was logged" >>"$E2E_DIR/why"
		status=1
	fi
	e2e_result "$name" "$status"
	e2e_show_logs_if "$status"
	[ "$status" -eq 0 ] || sed 's/^/  | /' "$E2E_DIR/client.json" 2>/dev/null | head -30
	return 0
}

OTHER_VERSIONS=()
find_versions
for ver in "${OTHER_VERSIONS[@]}"; do
	enghelp "$ver"
	for method in "${METHODS[@]}"; do
		mission "$ver" "$method"
		verify "$ver" "$SYSTEM_VERSION" "$method"
		verify "$SYSTEM_VERSION" "$ver" "$method"
	done
done
e2e_summary
