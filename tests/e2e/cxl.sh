#!/usr/bin/env bash
# tests/e2e/cxl.sh -- both engines' servers on CXL memory: the device DAX namespace
# that scripts/softroce-vm run --pmem --cxl makes on the region of an emulated
# persistent CXL type-3 device (RPMA_TEST_CXL_DEVDAX; make test-cxl):
#
#   - cxl-{apm,gpspm}-verify: a client writes 8 MiB of random 4 KiB blocks with
#     checksums at depth 8 (each batch flushed: APM's read, GPSPM's request), reads
#     them back and checks them (fio's verify): no error, every byte both ways;
#   - cxl-{apm,gpspm}-data: once the server has ended, fio reads the CXL device DAX
#     itself: every block the client wrote holds its pattern, and the check refuses a
#     pattern nobody wrote (it checks);
#   - cxl-region: the device DAX is on the nvdimm bus of the CXL subsystem (provider
#     CXL), whose region `cxl list` shows committed over the type-3 device mem0.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/e2e/lib.sh
e2e_in_vm --pmem --cxl
DAX=${RPMA_TEST_CXL_DEVDAX:-}
[ -n "$DAX" ] || { echo "FAIL cxl: RPMA_TEST_CXL_DEVDAX is not set (scripts/softroce-vm run --pmem --cxl)"; exit 1; }

# cxl_server NAME METHOD: the METHOD server on the CXL device DAX (64 MiB), until it
# listens; sets SPID (0: it did not listen)
cxl_server() {
	local name=$1 m=$2
	e2e_setup "$name" env SERVER_IP="$A" PORT=@PORT@ SERVER_MEM="$DAX" SERVER_SIZE=64m \
		SERVER_BUSY_WAIT=0 fio --ioengine=external:"build/librpma_$m.so" "jobs/$m-server.fio" -- true
	e2e_run_server >"$E2E_DIR/server.log" 2>&1 &
	SPID=$!
	if ! e2e_wait_line "$E2E_DIR/server.log" 'listening on' "$E2E_READY_TIMEOUT" "$SPID"; then
		echo "  the $m server did not listen on the CXL device DAX" >>"$E2E_DIR/why"
		SPID=0
	fi
}

# cxl_end NAME STATUS: the server exits 0 and said it mapped device DAX; the result
cxl_end() {
	local name=$1 status=$2
	if [ "$SPID" != 0 ]; then
		wait "$SPID" || { echo "  the server exited with $?" >>"$E2E_DIR/why"; status=1; }
		grep -q 'bytes of device DAX memory' "$E2E_DIR/server.log" ||
			{ echo "  the server did not say it served device DAX memory" >>"$E2E_DIR/why"; status=1; }
	else
		status=1
	fi
	e2e_result "$name" "$status"
	e2e_show_logs_if "$status"
}

cxl_verify() { # METHOD
	local m=$1 name=cxl-$1-verify status=0
	e2e_wanted "$name" || return 0
	cxl_server "$name" "$m"
	if [ "$SPID" != 0 ]; then
		timeout "$E2E_STEP_TIMEOUT" fio --ioengine=external:"build/librpma_$m.so" --name=verify \
			--serverip="$A" --port="$E2E_PORT" --create_serialize=0 --thread --size=8m \
			--rw=randwrite --bs=4k --iodepth=8 --iodepth_batch_submit=8 --verify=crc32c \
			--do_verify=1 --verify_fatal=1 --verify_state_save=0 --connect_timeout=20000 \
			--output-format=json --output="$E2E_DIR/client.json" >"$E2E_DIR/client.log" 2>&1 ||
			{ echo "  the client exited with $?" >>"$E2E_DIR/why"; status=1; }
		jq -e '.jobs[0].error == 0 and .jobs[0].write.io_bytes == 8388608 and
			.jobs[0].read.io_bytes == 8388608' "$E2E_DIR/client.json" >/dev/null 2>&1 ||
			{ echo "  the client did not write and verify its 8 MiB without an error" >>"$E2E_DIR/why"; status=1; }
	fi
	cxl_end "$name" "$status"
}

cxl_data() { # METHOD
	local m=$1 name=cxl-$1-data status=0 pattern check
	e2e_wanted "$name" || return 0
	pattern=$(printf '0x%08x' $(((RANDOM << 17 ^ RANDOM << 2 ^ RANDOM) & 0x7fffffff | 0x01010101)))
	cxl_server "$name" "$m"
	if [ "$SPID" != 0 ]; then
		timeout "$E2E_STEP_TIMEOUT" fio --ioengine=external:"build/librpma_$m.so" --name=pattern \
			--serverip="$A" --port="$E2E_PORT" --create_serialize=0 --thread --size=16m \
			--rw=write --bs=64k --iodepth=4 --verify=pattern --verify_pattern="$pattern" \
			--do_verify=0 --verify_state_save=0 --connect_timeout=20000 >"$E2E_DIR/client.log" 2>&1 ||
			{ echo "  the client exited with $?" >>"$E2E_DIR/why"; status=1; }
	fi
	cxl_end "$name" "$status"
	[ "$SPID" != 0 ] && [ "$status" -eq 0 ] || return 0
	check=("$E2E_DEBIAN_FIO" --name=check --ioengine=dev-dax --filename="$DAX" --rw=write --bs=2m
		--size=16m --verify=pattern --verify_only --verify_state_save=0)
	status=0
	timeout "$E2E_STEP_TIMEOUT" "${check[@]}" --verify_pattern="$pattern" >"$E2E_DIR/check.log" 2>&1 ||
		{ echo "  the CXL device DAX does not hold the pattern $pattern" >>"$E2E_DIR/why"; status=1; }
	! timeout "$E2E_STEP_TIMEOUT" "${check[@]}" --verify_pattern=0x00c0ffee >"$E2E_DIR/check-other.log" 2>&1 ||
		{ echo "  the check also accepts a pattern nobody wrote" >>"$E2E_DIR/why"; status=1; }
	e2e_result "$name-read-back" "$status"
	e2e_show_logs_if "$status"
}

cxl_region() {
	local name=cxl-region status=0 dev region
	e2e_wanted "$name" || return 0
	E2E_DIR=$E2E_TMP/$name
	mkdir -p "$E2E_DIR"
	dev=${DAX#/dev/}
	ndctl list -B -R -N >"$E2E_DIR/ndctl.json" 2>&1
	cxl list -R -M >"$E2E_DIR/cxl.json" 2>&1
	region=$(jq -r --arg d "$dev" '.[] | select(.provider == "CXL") | .regions[]? |
		select([.namespaces[]?.chardev] | index($d)) | .dev' "$E2E_DIR/ndctl.json" 2>/dev/null)
	[ -n "$region" ] ||
		{ echo "  $dev is not a namespace of a region on the CXL nvdimm bus" >>"$E2E_DIR/why"; status=1; }
	tr -d ' \n' <"$E2E_DIR/cxl.json" | grep -q '"decode_state":"commit"' ||
		{ echo "  cxl list shows no committed CXL region" >>"$E2E_DIR/why"; status=1; }
	e2e_result "$name" "$status"
	e2e_show_logs_if "$status"
	[ "$status" -ne 0 ] || echo "  $dev on $region (nvdimm bus of provider CXL)"
}

cxl_region
cxl_verify apm
cxl_verify gpspm
cxl_data apm
cxl_data gpspm
e2e_summary
