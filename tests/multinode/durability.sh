#!/usr/bin/env bash
# tests/multinode/durability.sh -- does what was acknowledged as durable survive the
# server host's power cut? The runner a lab uses (scripts/run_durability.sh), from
# node0 with node1 as the server host given by name, as on hardware: its power cut
# by scripts/softroce-vm.d/power.sh (the host kills its QEMU: nothing of the guest
# is flushed), the same NVDIMM backing file after the reboot. Two rounds, both
# methods at once (three with RDMA_CORE, the native build's prefix, on kernel 6.12:
# APM with the device's own FLUSH too; make test-native-e2e), random 4 KiB writes at iodepth 8 in batches of 4 (one flush per
# batch):
#  1. a negative control: while node1 is down (before its servers start again) 4
#     acknowledged blocks of each method are damaged in its device DAX: the runner
#     must report exactly those offsets lost, and its verdict LOST for both;
#  2. a clean round: every acknowledged write read back intact.
# Then, with plain fio and the job files: a verify without the saved state must fail
# on a block never written, and a saved state with create_serialize=0 is refused.
# In the VM the NVDIMM is a file of the host: guest memory is never volatile, so this
# shows the workflow and the checker, not a platform (docs/hardware.md).
set -u
cd "$(dirname "$0")/../.." || exit 1
# the methods in the order of their jobs (durability.fio, then durability-native.fio):
# method i's region starts at i x 16 MiB
METHODS=(apm gpspm)
[ -z "${RDMA_CORE:-}" ] || METHODS+=(apm-native)

# the runner's --before-restart hook (node1 back, its servers not yet): in round 1,
# damage 16 bytes (the verify header) of the 5th, 15th, 25th and 35th write of each
# method in node1's device DAX, and name them in DURABILITY_ROUND_DIR/damaged-METHOD
if [ "${1:-}" = --damage ]; then
	[ "${DURABILITY_ROUND:-}" = 1 ] || exit 0
	rd=${DURABILITY_ROUND_DIR:?run me as run_durability.sh --before-restart}
	args=()
	i=0
	for m in "${METHODS[@]}"; do
		awk -v f="$m.0.0" '$2 == f && $3 == "write" { n++; if (n % 10 == 5 && n <= 35) print $4 }' \
			"$rd/write.iolog" | sort -n >"$rd/damaged-$m"
		[ "$(wc -l <"$rd/damaged-$m")" -eq 4 ] || { echo "fewer than 4 writes of $m in write.iolog"; exit 1; }
		while read -r off; do args+=($((i * (16 << 20) + off))); done <"$rd/damaged-$m"
		i=$((i + 1))
	done
	timeout 30 ssh -n node1 python3 -c "'
import mmap, os, sys
fd = os.open(\"/dev/dax0.0\", os.O_RDWR)
m = mmap.mmap(fd, 64 << 20, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
for o in map(int, sys.argv[1:]):
    m[o:o + 16] = bytes(b ^ 0xff for b in m[o:o + 16])
m.close()
'" "${args[@]}"
	exit
fi

# shellcheck source=tests/multinode/lib.sh
. tests/multinode/lib.sh
# results of their own (make test-native-e2e runs this): the multinode stage, later,
# starts multinode.tsv afresh
export E2E_RESULTS=build/e2e-results/durability.tsv
: >"$E2E_RESULTS"

NAME=durability
POWER=scripts/softroce-vm.d/power.sh
RUN=$PWD/build/multinode/durability-run
export RPMA_FIO_RDMA_CORE=${RDMA_CORE:-}

# the runner: two rounds (the damaged one, then a clean one); exits 1 (writes lost)
durability_rounds() {
	local rc=0 st m r want got
	e2e_wanted "$NAME" || return 1
	E2E_DIR=$E2E_TMP/$NAME
	rm -rf "$RUN" "$E2E_DIR" && mkdir -p "$E2E_DIR"
	timeout 400 scripts/run_durability.sh --server "$SERVER_NODE" --server-ip "$SERVER_ADDR" \
		--power-cut "$POWER cut $SERVER_NODE" --wait-up "$POWER wait-up $SERVER_NODE 180" \
		--mem /dev/dax0.0 --mem-size 16m --direct-write --methods "$(IFS=,; echo "${METHODS[*]}")" \
		${RDMA_CORE:+--native} --rounds 2 --bs 4k --iodepth 8 --batch 4 --write-time 2 --keep-iolog \
		--port 7700 --before-restart "$PWD/$0 --damage" --out "$RUN" >"$E2E_DIR/runner.log" 2>&1 || rc=$?
	sed -n '/^\[round/p; /^  [a-z]/p' "$E2E_DIR/runner.log"
	st=0
	[ "$rc" -eq 1 ] || { echo "  the runner exited with $rc, not 1 (writes lost)" >>"$E2E_DIR/why"; st=1; }
	grep -q '^complete' "$RUN/status" 2>/dev/null ||
		{ echo "  rounds not judged: $(cat "$RUN/status" 2>/dev/null)" >>"$E2E_DIR/why"; st=1; }
	e2e_result "$NAME-runner-judges-both-rounds" "$st"
	[ "$st" -eq 0 ] || { runner_logs; return 1; }

	for m in "${METHODS[@]}"; do
		st=0
		# round 2: nothing lost, something read back, no more than acknowledged
		r=$(awk -F, -v m="$m" '$1 == m && $2 == 2' "$RUN/results.csv")
		echo "  $m, round 2 (method,round,bs,iodepth,batch,acknowledged,read_back,lost,rate): $r"
		awk -F, '{ exit !($6 > 0 && $7 > 0 && $7 <= $6 && $8 == 0) }' <<<"$r" ||
			{ echo "  $m: round 2 must read back 0 < n <= acknowledged, none lost" >>"$E2E_DIR/why"; st=1; }
		e2e_result "$NAME-$m-acknowledged-writes-survive" "$st"
		st=0
		# round 1: exactly the damaged offsets lost, the verdict LOST in the report
		want=$(tr '\n' ' ' <"$RUN/rounds/r1/damaged-$m" 2>/dev/null)
		got=$(awk -F, -v m="$m" '$1 == 1 && $2 == m { print $3 }' "$RUN/lost.csv" | sort -n | tr '\n' ' ')
		echo "  $m: damaged offsets: ${want:-none}; reported lost: ${got:-none}"
		if [ -z "$want" ] || [ "$want" != "$got" ]; then
			echo "  $m: the damaged blocks must be reported lost, exactly them" >>"$E2E_DIR/why"
			st=1
		fi
		grep -q "<td class='lost'><b>LOST 4 acknowledged write(s) in round(s) 1</b>" "$RUN/report.html" ||
			{ echo "  report.html: no LOST verdict (4 writes, round 1) for $m" >>"$E2E_DIR/why"; st=1; }
		e2e_result "$NAME-$m-damaged-blocks-reported" "$st"
	done
	[ "$E2E_FAILED" -eq 0 ] || { runner_logs; return 1; }
}

# what went wrong: the runner's output, each round's reason and the ends' last words
runner_logs() {
	local f
	cat "$E2E_DIR/why" 2>/dev/null
	for f in "$E2E_DIR/runner.log" "$RUN"/rounds/*/error "$RUN"/rounds/*/*.log; do
		[ -s "$f" ] || continue
		echo "  --- ${f#"$RUN"/}:"
		tail -n 15 "$f" | sed 's/^/  | /'
	done
}

# the offsets of the acknowledged writes of METHOD in round 2 (its first N, in the
# order fio issued them; the runner kept fio's I/O log: TIME FILE ACTION OFFSET LENGTH)
issued_offsets() { # METHOD N
	awk -v f="$1.0.0" -v n="$2" '$2 == f && $3 == "write" && got < n { print $4; got++ }' \
		"$RUN/rounds/r2/write.iolog"
}

# the offsets a verify run reported as bad, of METHOD's file, sorted
reported_bad() { # LOG METHOD
	grep -o "at file $2\.0\.0 offset [0-9]*" "$1" | awk '{ print $5 }' | sort -n | uniq
}

# The checker must be able to fail without the runner too: a verify of round 2 with
# plain fio and the job files but without the saved state reads blocks never
# written in that round, and must fail on one, never on an acknowledged one. And
# fio ignores a saved state in a job set up in its own thread: the engines refuse.
controls() {
	local st=0 rc=0 m w bad=0 off seed
	seed=$(cut -f6 "$RUN/rounds/r2/shape.tsv")
	e2e_setup "$NAME-nostate" env SERVER_IP="$SERVER_ADDR" PORT=7700 SERVER_MEM=/dev/dax0.0 SERVER_SIZE=16m \
		SERVER_BUSY_WAIT=0 fio jobs/durability-server.fio -- true
	e2e_run_server >"$E2E_DIR/server.log" 2>&1 &
	SPID=$!
	if e2e_wait_line "$E2E_DIR/server.log" 'librpma_gpspm: job [0-9]+: listening on' "$E2E_READY_TIMEOUT" "$SPID"; then
		timeout "$E2E_STEP_TIMEOUT" env SERVER_IP="$SERVER_ADDR" PORT=7700 SERVER_SIZE=16m BS=4k IODEPTH=8 \
			BATCH=4 CONNECT_TIMEOUT=5000 fio jobs/durability.fio --randseed="$seed" \
			--verify_only=1 --verify_state_save=0 >"$E2E_DIR/client.log" 2>&1 || rc=$?
	else
		echo "  the servers did not listen" >>"$E2E_DIR/why"
		st=1
	fi
	wait "$SPID" 2>/dev/null
	for m in apm gpspm; do
		w=$(awk -F, -v m="$m" '$1 == m && $2 == 2 { print $6 }' "$RUN/results.csv")
		for off in $(reported_bad "$E2E_DIR/client.log" "$m"); do
			bad=$((bad + 1))
			if issued_offsets "$m" $((w - 8)) | grep -qx "$off"; then
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
	e2e_show_logs_if "$st"

	st=0 rc=0
	timeout "$E2E_STEP_TIMEOUT" fio --name=cs0 --ioengine=external:build/librpma_apm.so \
		--serverip="$SERVER_ADDR" --port="$E2E_PORT" --thread --create_serialize=0 --rw=randwrite \
		--verify=crc32c --verify_only=1 --verify_state_load=1 --aux-path="$RUN/rounds/r2" \
		>"$E2E_DIR/client-verify-cs0.log" 2>&1 || rc=$?
	if [ "$rc" -eq 0 ] || ! grep -q 'verify_state_load=1 needs create_serialize=1' \
			"$E2E_DIR/client-verify-cs0.log"; then
		echo "  verify_state_load=1 with create_serialize=0 must be refused, saying why" >>"$E2E_DIR/why"
		st=1
	fi
	e2e_result "$NAME-state-without-create-serialize-refused" "$st"
	e2e_show_logs_if "$st"
}

durability_rounds && controls
e2e_summary
