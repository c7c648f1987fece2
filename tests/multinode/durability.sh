#!/usr/bin/env bash
# tests/multinode/durability.sh -- does what was acknowledged as durable survive the
# server host's power cut? One round with both methods at once, as a lab would run
# it with plain fio (jobs/durability.fio, docs/engines.md):
#  1. a server of each method on node1's device DAX (jobs/durability-server.fio);
#  2. here, random 4 KiB writes with fio's verify pattern, batched (iodepth 8,
#     batches of 4: one flush per batch), until fio's trigger: it saves which
#     writes completed, stops, and cuts node1's power (tests/multinode/power.sh:
#     the host kills its QEMU; nothing of the guest is flushed);
#  3. node1 boots again on the same NVDIMM backing file, the servers start again on
#     the same bytes, and fio's verify_only with the saved state reads back over
#     RDMA every write it saw complete, and checks it.
# In the VM the NVDIMM is a file of the host: guest memory is never volatile, so this
# shows the workflow and the checker, not a platform (docs/hardware.md).
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/multinode/lib.sh
. tests/multinode/lib.sh

NAME=durability
TRIGGER_S=4
RATE=300 # writes per second per job: far from covering the 32 MiB before the trigger

boot_id() { # NODE
	timeout 10 ssh -n "$1" cat /proc/sys/kernel/random/boot_id 2>/dev/null
}

# the servers on node1 (again after the cut): returns once both listen
start_servers() { # LOG
	e2e_run_server >"$1" 2>&1 &
	SPID=$!
	e2e_wait_line "$1" 'librpma_gpspm: job [0-9]+: listening on' "$E2E_READY_TIMEOUT" "$SPID" &&
		e2e_wait_line "$1" 'librpma_apm: job [0-9]+: listening on' 5 "$SPID"
}

# the client's jobs: the durability job file, the options given after it
client() { # OUT_JSON FIO_OPTIONS...
	local out=$1
	shift
	timeout "$E2E_STEP_TIMEOUT" env SERVER_IP="$SERVER_ADDR" PORT="$E2E_PORT" SERVER_SIZE=32m BS=4k IODEPTH=8 BATCH=4 \
		RATE_IOPS="$RATE" CONNECT_TIMEOUT=5000 fio jobs/durability.fio --aux-path="$E2E_DIR" \
		--output-format=json --output="$out" "$@"
}

# jq over the two JSON files: a method's acknowledged writes and verified reads
ios() { # JSON JOB DIR
	jq -r --arg j "$2" ".jobs[] | select(.jobname == \$j) | .$3.total_ios" "$1" 2>/dev/null
}

durability_round() {
	local status=0 rc=0 id0 id1 m w r
	e2e_wanted "$NAME" || return 0
	e2e_setup "$NAME" env SERVER_IP="$SERVER_ADDR" PORT=@PORT@ SERVER_MEM=/dev/dax0.0 SERVER_SIZE=32m \
		DIRECT_WRITE_TO_PMEM=1 SERVER_BUSY_WAIT=0 fio jobs/durability-server.fio -- true
	id0=$(boot_id "$SERVER_NODE")
	if ! start_servers "$E2E_DIR/server.log"; then
		echo "  the servers on $SERVER_NODE did not listen" >>"$E2E_DIR/why"
		e2e_result "$NAME-node-back-with-its-pmem" 1
		e2e_show_logs
		return
	fi
	client "$E2E_DIR/write.json" --write_iolog="$E2E_DIR/write.iolog" --trigger-timeout="$TRIGGER_S" \
		--trigger="tests/multinode/power.sh cut $SERVER_NODE" >"$E2E_DIR/client-write.log" 2>&1 || rc=$?
	echo "  the writing fio ended with $rc after the trigger"
	kill "$SPID" 2>/dev/null # the ssh that carried the servers: its host is gone
	wait "$SPID" 2>/dev/null
	grep -q "power cut" "$E2E_DIR/client-write.log" ||
		{ echo "  the trigger did not cut $SERVER_NODE's power" >>"$E2E_DIR/why"; status=1; }

	# node1 back, its PMem as it was left
	if ! tests/multinode/power.sh wait-up "$SERVER_NODE" 180 >>"$E2E_DIR/why" 2>&1; then
		status=1
	else
		id1=$(boot_id "$SERVER_NODE")
		if [ -z "$id1" ] || [ "$id1" = "$id0" ]; then
			echo "  $SERVER_NODE did not boot again (boot id $id0 -> $id1)" >>"$E2E_DIR/why"
			status=1
		fi
		start_servers "$E2E_DIR/server-after.log" ||
			{ echo "  the servers did not listen again after the power cut" >>"$E2E_DIR/why"; status=1; }
	fi
	e2e_result "$NAME-node-back-with-its-pmem" "$status"
	[ "$status" -eq 0 ] || { e2e_show_logs; return; }

	rc=0
	client "$E2E_DIR/verify.json" --verify_only=1 --verify_state_load=1 --verify_state_save=0 \
		>"$E2E_DIR/client-verify.log" 2>&1 || rc=$?
	wait "$SPID" 2>/dev/null
	for m in apm gpspm; do
		local st=0
		w=$(ios "$E2E_DIR/write.json" "$m" write) r=$(ios "$E2E_DIR/verify.json" "$m" read)
		echo "  $m: ${w:-?} writes acknowledged before the power cut, ${r:-?} read back and verified"
		if [ "$rc" -ne 0 ]; then
			echo "  $m: the verifying fio exited with $rc" >>"$E2E_DIR/why"
			st=1
		elif ! [ -f "$E2E_DIR/local-$m-$([ "$m" = apm ] && echo 0 || echo 1)-verify.state" ]; then
			echo "  $m: fio saved no verify state at the trigger" >>"$E2E_DIR/why"
			st=1
		elif ! [ "${w:-0}" -gt 0 ] 2>/dev/null || ! [ "${r:-0}" -gt 0 ] 2>/dev/null || [ "$r" -gt "$w" ]; then
			echo "  $m: expected 0 < verified <= acknowledged" >>"$E2E_DIR/why"
			st=1
		fi
		e2e_result "$NAME-$m-acknowledged-writes-survive" "$st"
		[ "$st" -eq 0 ] || status=1
	done
	e2e_show_logs_if "$status"
}

# the offsets of the writes number N, N + STEP, ... (COUNT of them, in the order fio
# issued them) of job file FILE (apm.0.0, gpspm.0.0) in the write run's I/O log
# (fio's version 3: TIME FILE ACTION OFFSET LENGTH)
issued_offsets() { # FILE N STEP COUNT
	awk -v f="$1" -v n="$2" -v step="$3" -v count="$4" \
		'$2 == f && $3 == "write" { i++; if (i >= n && (i - n) % step == 0 && got < count) { print $4; got++ } }' \
		"$E2E_DIR/write.iolog"
}

# the offsets a verify run reported as bad, of job file FILE, sorted
reported_bad() { # LOG FILE
	grep -o "at file $2 offset [0-9]*" "$1" | awk '{ print $5 }' | sort -n | uniq
}

# damage 16 bytes at the start of each block (its verify header) at the region
# offsets given, in node1's device DAX at BASE bytes (the server is down)
damage() { # BASE OFFSET...
	local base=$1
	shift
	timeout 30 ssh -n "$SERVER_NODE" "python3 -c '
import mmap, os, sys
base = int(sys.argv[1])
fd = os.open(\"/dev/dax0.0\", os.O_RDWR)
m = mmap.mmap(fd, 64 << 20, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
for off in sys.argv[2:]:
    o = base + int(off)
    m[o:o + 16] = bytes(b ^ 0xff for b in m[o:o + 16])
m.close()
' $base $*"
}

# The checker must be able to fail. Control 1: a verify without the saved state
# reads blocks never written, and must fail on one, not an acknowledged one.
# Control 2: acknowledged blocks damaged while the servers are down (their verify
# headers flipped in node1's device DAX) must be reported lost, exactly those: a
# verify of the first writes, all acknowledged (number_ios: fio's saved state does
# not hold with continue_on_error, which going on past a loss needs).
controls() {
	local status=0 any=0 m file base want got rc st bad=0 off w n=1000000
	kill "$SPID" 2>/dev/null # the servers from the clean verify: gone with their clients
	wait "$SPID" 2>/dev/null

	start_servers "$E2E_DIR/server-nostate.log" || status=1
	rc=0
	client "$E2E_DIR/verify-nostate.json" --verify_only=1 --verify_state_save=0 \
		>"$E2E_DIR/client-verify-nostate.log" 2>&1 || rc=$?
	wait "$SPID" 2>/dev/null
	st=$status
	for m in apm gpspm; do
		w=$(ios "$E2E_DIR/write.json" "$m" write)
		[ "$((w - 8))" -lt "$n" ] && n=$((w - 8))
		for off in $(reported_bad "$E2E_DIR/client-verify-nostate.log" "$m.0.0"); do
			bad=$((bad + 1))
			if issued_offsets "$m.0.0" 1 1 $((w - 8)) | grep -qx "$off"; then
				echo "  $m: offset $off, an acknowledged write, reported bad" >>"$E2E_DIR/why"
				st=1
			fi
		done
	done
	echo "  without the saved state: fio exited with $rc, $bad block(s) reported bad, none acknowledged"
	if [ "$rc" -eq 0 ] || [ "$bad" -eq 0 ]; then
		echo "  a verify without the saved state must fail on a block never written" >>"$E2E_DIR/why"
		st=1
	fi
	e2e_result "$NAME-without-state-fails" "$st"
	[ "$st" -eq 0 ] || any=1

	for m in apm gpspm; do
		file=$m.0.0 base=0
		[ "$m" = apm ] || base=$((32 << 20))
		issued_offsets "$file" 5 10 4 | sort -n >"$E2E_DIR/damaged-$m"
		[ "$(wc -l <"$E2E_DIR/damaged-$m")" -eq 4 ] ||
			{ echo "  $m: fewer than 4 writes in the I/O log to damage" >>"$E2E_DIR/why"; status=1; }
		# shellcheck disable=SC2046 # one offset per word
		damage "$base" $(cat "$E2E_DIR/damaged-$m") >>"$E2E_DIR/why" 2>&1 ||
			{ echo "  $m: could not damage node1's device DAX" >>"$E2E_DIR/why"; status=1; }
	done
	start_servers "$E2E_DIR/server-damaged.log" || status=1
	rc=0
	client "$E2E_DIR/verify-damaged.json" --verify_only=1 --verify_state_save=0 --number_ios="$n" \
		--verify_fatal=0 --continue_on_error=verify \
		>"$E2E_DIR/client-verify-damaged.log" 2>&1 || rc=$?
	wait "$SPID" 2>/dev/null
	for m in apm gpspm; do
		st=$status
		reported_bad "$E2E_DIR/client-verify-damaged.log" "$m.0.0" >"$E2E_DIR/reported-$m"
		want=$(tr '\n' ' ' <"$E2E_DIR/damaged-$m") got=$(tr '\n' ' ' <"$E2E_DIR/reported-$m")
		echo "  $m: damaged offsets: $want; of the first $n writes reported lost: $(echo "$got" | cut -c1-200)"
		if [ -z "$want" ] || [ "$want" != "$got" ]; then
			echo "  $m: the damaged blocks must be reported lost, exactly them" >>"$E2E_DIR/why"
			st=1
		fi
		e2e_result "$NAME-$m-damaged-blocks-reported" "$st"
		[ "$st" -eq 0 ] || any=1
	done

	# fio ignores a saved state in a job set up in its own thread: the engines refuse
	st=0 rc=0
	timeout "$E2E_STEP_TIMEOUT" fio --name=cs0 --ioengine=external:build/librpma_apm.so \
		--serverip="$SERVER_ADDR" --port="$E2E_PORT" --thread --create_serialize=0 --rw=randwrite \
		--verify=crc32c --verify_only=1 --verify_state_load=1 --aux-path="$E2E_DIR" \
		>"$E2E_DIR/client-verify-cs0.log" 2>&1 || rc=$?
	if [ "$rc" -eq 0 ] || ! grep -q 'verify_state_load=1 needs create_serialize=1' \
			"$E2E_DIR/client-verify-cs0.log"; then
		echo "  verify_state_load=1 with create_serialize=0 must be refused, saying why" >>"$E2E_DIR/why"
		st=1
	fi
	e2e_result "$NAME-state-without-create-serialize-refused" "$st"
	[ "$st" -eq 0 ] || any=1
	e2e_show_logs_if "$any"
}

durability_round
[ "$E2E_FAILED" -gt 0 ] || ! e2e_wanted "$NAME" || controls
e2e_summary
