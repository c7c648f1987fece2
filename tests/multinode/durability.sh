#!/usr/bin/env bash
# tests/multinode/durability.sh -- does what was acknowledged as durable survive the
# server host's power cut, and can the verdict be fooled? The runner a lab uses
# (scripts/run_durability.sh), from node0 with node1 as the server host given by name,
# as on hardware: its power cut by scripts/softroce-vm.d/power.sh (the host kills its
# QEMU: nothing of the guest is flushed), the same NVDIMM backing file after the
# reboot. All methods at once (apm-native too with RDMA_CORE, the native build's
# prefix, on kernel 6.12: make test-native-e2e), random 4 KiB writes at iodepth 8 in
# batches of 4 (one flush per batch). The VM's NVDIMM never loses a write, so a
# platform that does is played on node1's device DAX after each cut, before the
# servers start again (--before-restart: tests/multinode/pmem_image.py):
#  run 1, round 1: the writes of each method's last 300 ms before the cut lost (their
#     blocks as before the round), up to the last one acknowledged, and one older block
#     of each torn (a byte of its data): exactly those offsets LOST;
#  run 1, round 2: nothing lost: every acknowledged write read back intact;
#  run 1, before its rounds (not on CXL, which QEMU cannot warm-reset): the canary's
#     control (--canary-reset: a warm reset of node1, its RAM kept) keeps the token;
#  run 2: GPSPM's memory back to its state from before the round, APM's to what it held
#     after run 1's round 1 (an earlier run): every acknowledged write LOST;
#  run 3: a power cut that reboots nothing: not judged, never SURVIVED;
#  run 4 (make test-native-e2e): a warm reset for a power cut (power.sh reset: the
#     server reboots, its RAM kept), named so that no word of it reads as a reboot:
#     the DRAM canary (node1's reserved RAM, SOFTROCE_VM_DRAM_CANARY) kept its token,
#     not judged. Every run gives the canary: run 1 node1's reserved RAM by /dev/mem,
#     runs 2 and 4 its legacy PMem of memmap=16M!ADDR (/dev/pmemN, the form hardware
#     is told to use, SOFTROCE_VM_PMEM_CANARY); runs 1 and 2 must show the power gone;
#     node1's NVDIMM-backed /dev/pmemN is refused as one (it keeps its bytes);
#  run 5 (make test-native-e2e): a firmware that clears memory at boot, played by a
#     warm reset after which other bytes are written to the canary: the control fails,
#     no round runs, exit 3.
# Then, with plain fio and the job files: a verify without the saved state must fail
# on a block never written, and a saved state with create_serialize=0 is refused.
set -u
cd "$(dirname "$0")/../.." || exit 1
# the methods in the order of their jobs (durability.fio, then durability-native.fio):
# method i's region starts at i x 16 MiB
METHODS=(apm gpspm)
[ -z "${RDMA_CORE:-}" ] || METHODS+=(apm-native)
DEPTH=8 REGION=$((16 << 20))
# the server host's device DAX (make test-cxl: the one on its CXL region) and the
# name of the results
export DURABILITY_DEVDAX=${DURABILITY_DEVDAX:-/dev/dax0.0} DURABILITY_NAME=${DURABILITY_NAME:-durability}
IMAGES=$PWD/build/multinode/$DURABILITY_NAME-images

# node1's device DAX, as tests/multinode/pmem_image.py changes it
pmem() { # WHAT ARGS...
	timeout 60 ssh -n node1 python3 "$PWD/tests/multinode/pmem_image.py" "$DURABILITY_DEVDAX" "$@"
}

# the runner's --before-restart hook: node1 back, its servers not yet; PLATFORM names
# the run (run1: round 1 loses its last writes, round 2 nothing; revert; keep)
if [ "${1:-}" = --platform ]; then
	rd=${DURABILITY_ROUND_DIR:?run me as run_durability.sh --before-restart}
	case ${PLATFORM:?}:${DURABILITY_ROUND:?} in
	run1:1)
		# each method's writes completed in its last 300 ms before the cut
		# (write_iops.N.log, the runner's log of its N-th job: Unix ms, 1,
		# direction, size, offset; the cut lands while they write, and every write in
		# the log was acknowledged), and its 6th write torn
		i=0 blocks=() torn=()
		for m in "${METHODS[@]}"; do
			log=$rd/write_iops.$((i + 1)).log
			[ -s "$log" ] || { echo "no $log: no write of $m completed"; exit 1; }
			awk -F', ' '$3 == 1 { t[n] = $1; o[n++] = $5 }
				END { for (k = 0; k < n; k++) if (t[k] >= t[n - 1] - 300) print o[k] }' "$log" >"$rd/recent-$m"
			awk -F', ' '$3 == 1 && ++n == 6 { print $5 }' "$log" >"$rd/torn-$m"
			sort -nu "$rd/recent-$m" "$rd/torn-$m" >"$rd/expected-$m"
			while read -r off; do blocks+=($((i * REGION + off))); done <"$rd/recent-$m"
			torn+=($((i * REGION + $(cat "$rd/torn-$m") + 100)))
			i=$((i + 1))
		done
		[ ${#blocks[@]} -gt 0 ] || { echo "no write in the last 300 ms"; exit 1; }
		pmem blocks "$IMAGES/before-run.img" 4096 "${blocks[@]}" && pmem tear "${torn[@]}" &&
			pmem save "$IMAGES/after-round-1.img" $((${#METHODS[@]} * REGION)) ;;
	run1:2)
		pmem save "$IMAGES/before-run-2.img" $((${#METHODS[@]} * REGION)) ;;
	revert:1)
		# APM's regions (apm, apm-native) an earlier run's, GPSPM's its own from before
		i=0
		for m in "${METHODS[@]}"; do
			img=$IMAGES/after-round-1.img
			[ "$m" != gpspm ] || img=$IMAGES/before-run-2.img
			pmem revert "$img" $((i * REGION)) "$REGION" || exit 1
			i=$((i + 1))
		done ;;
	esac
	exit
fi

# shellcheck source=tests/multinode/lib.sh
. tests/multinode/lib.sh
# results of their own (make test-native-e2e runs this): the multinode stage, later,
# starts multinode.tsv afresh
export E2E_RESULTS=build/e2e-results/$DURABILITY_NAME.tsv
: >"$E2E_RESULTS"

NAME=$DURABILITY_NAME
POWER=scripts/softroce-vm.d/power.sh
RUN=$PWD/build/multinode/$NAME-run
export RPMA_FIO_RDMA_CORE=${RDMA_CORE:-}

# the runner's rounds into OUT; its status in RC
runner() { # OUT PLATFORM ROUNDS [RUNNER OPTIONS...]
	local out=$1
	export PLATFORM=$2
	local rounds=$3
	shift 3
	rm -rf "$out"
	RC=0
	timeout 600 scripts/run_durability.sh --server "$SERVER_NODE" --server-ip "$SERVER_ADDR" \
		--power-cut "$POWER cut $SERVER_NODE" --wait-up "$POWER wait-up $SERVER_NODE 180" \
		--mem "$DURABILITY_DEVDAX" --mem-size 16m --direct-write --methods "$(IFS=,; echo "${METHODS[*]}")" \
		${RDMA_CORE:+--native} --rounds "$rounds" --bs 4k --iodepth "$DEPTH" --batch 4 --write-time 2 \
		--port 7700 --before-restart "$PWD/$0 --platform" --dram-canary "$SOFTROCE_VM_DRAM_CANARY" \
		--out "$out" "$@" >>"$E2E_DIR/runner.log" 2>&1 || RC=$?
	sed -n '/^\[round/p; /^  [a-z]/p' "$E2E_DIR/runner.log" | tail -n $((rounds * 6))
}

figure() { # OUT ROUND METHOD COLUMN (results.csv: 6 acknowledged 7 read back 8 lost 9 unread 10 issued
	# 11 quiet)
	awk -F, -v r="$2" -v m="$3" -v c="$4" '$1 == m && $2 == r { print $c }' "$1/results.csv"
}

figures() { # OUT ROUND METHOD: acknowledged, read back, lost, unread, issued
	awk -F, -v r="$2" -v m="$3" '$1 == m && $2 == r { print $6, $7, $8, $9, $10 }' "$1/results.csv"
}

judged() { # OUT WANT_RC
	local st=0
	[ "$RC" -eq "$2" ] || { echo "  the runner exited with $RC, not $2" >>"$E2E_DIR/why"; st=1; }
	grep -q '^complete' "$1/status" 2>/dev/null ||
		{ echo "  rounds not judged: $(cat "$1/status" 2>/dev/null)" >>"$E2E_DIR/why"; st=1; }
	return "$st"
}

durability_rounds() {
	local st m want got a
	e2e_wanted "$NAME" || return 1
	E2E_DIR=$E2E_TMP/$NAME
	rm -rf "$RUN" "$E2E_DIR" "$IMAGES" && mkdir -p "$E2E_DIR" "$IMAGES"
	pmem save "$IMAGES/before-run.img" $((${#METHODS[@]} * REGION)) ||
		{ echo "  cannot save node1's device DAX" >>"$E2E_DIR/why"; runner_logs; return 1; }

	# (the canary's control is a warm reset, which a guest with CXL cannot take)
	local control=(--canary-reset "$POWER reset $SERVER_NODE")
	[ "$NAME" = durability ] || control=()
	runner "$RUN" run1 2 "${control[@]}"
	st=0
	judged "$RUN" 1 || st=1
	e2e_result "$NAME-runner-judges-both-rounds" "$st"
	[ "$st" -eq 0 ] || { runner_logs; return 1; }
	for m in "${METHODS[@]}"; do
		st=0
		want=$(tr '\n' ' ' <"$RUN/rounds/r1/expected-$m")
		got=$(awk -F, -v m="$m" '$1 == 1 && $2 == m { print $3 }' "$RUN/lost.csv" | sort -n | tr '\n' ' ')
		echo "  $m, round 1: lost as played: ${want:-none}"
		echo "  $m, round 1: reported lost:  ${got:-none}"
		if [ -z "$want" ] || [ "$want" != "$got" ] || [ "$(figure "$RUN" 1 "$m" 8)" -ne "$(wc -w <<<"$want")" ]; then
			echo "  $m: the writes of the last 300 ms and the torn one must be reported lost, exactly them" \
				>>"$E2E_DIR/why"
			st=1
		fi
		e2e_result "$NAME-$m-recent-writes-lost-exactly" "$st"
		st=0
		a=$(figure "$RUN" 2 "$m" 6)
		echo "  $m, round 2 (acknowledged, read back, lost, unread, issued): $(figures "$RUN" 2 "$m")"
		if [ "${a:-0}" -le 0 ] || [ "$(figure "$RUN" 2 "$m" 7)" != "$a" ] || [ "$(figure "$RUN" 2 "$m" 8)" != 0 ]; then
			echo "  $m: round 2 must read back every acknowledged write, none lost" >>"$E2E_DIR/why"
			st=1
		fi
		e2e_result "$NAME-$m-acknowledged-writes-survive" "$st"
	done
	grep -q "<td class='lost'><b>LOST [0-9]* acknowledged write(s) in round(s) 1</b>" "$RUN/report.html" ||
		{ echo "  report.html: no LOST verdict for round 1" >>"$E2E_DIR/why"; e2e_result "$NAME-report-says-lost" 1; }
	power_shown "$RUN" 2 run1
	quiet_recorded
	rnic_counted
	[ "$NAME" != durability ] || control_kept
	[ "$E2E_FAILED" -eq 0 ] || { runner_logs; return 1; }
}

# run 1: each round's cut timed by the client's clock (power-cut.time: its command's
# start and end, Unix ms) and each method's quiet before it (results.csv's 11th
# column: from its last acknowledged write, by its write log's Unix times, to the
# command's start), a number of ms the report's verdicts show
quiet_recorded() {
	local st=0 r m t q took
	for r in 1 2; do
		t=$(cat "$RUN/rounds/r$r/power-cut.time" 2>/dev/null)
		if ! [[ $t =~ ^([0-9]{13})\ ([0-9]{13})$ ]] || [ "${BASH_REMATCH[2]}" -lt "${BASH_REMATCH[1]}" ]; then
			echo "  round $r: power-cut.time '$t' is not the cut's start and end in Unix ms" >>"$E2E_DIR/why"
			st=1
			continue
		fi
		took=$((BASH_REMATCH[2] - BASH_REMATCH[1]))
		for m in "${METHODS[@]}"; do
			q=$(figure "$RUN" "$r" "$m" 11)
			echo "  $m, round $r: quiet $q ms before the cut (its command took $took ms)"
			[[ $q =~ ^[0-9]+$ ]] || { echo "  $m, round $r: no quiet time ('$q')" >>"$E2E_DIR/why"; st=1; }
		done
	done
	grep -q '^| method | verdict | rounds judged | acknowledged | read back | lost | quiet before a cut (ms) |$' \
		"$RUN/report.md" || { echo "  report.md: the verdicts show no quiet time" >>"$E2E_DIR/why"; st=1; }
	e2e_result "$NAME-run1-quiet-before-each-cut-timed" "$st"
}

# run 1: the client's RNIC's counters from before each round's writes and from its cut
# (rxe0's packets sent grew: the writes went through it), and the report's line a round
rnic_counted() {
	local st=0 r a b
	for r in 1 2; do
		a=$(awk '$1 == "rxe0/ports/1/hw_counters/sent_pkts" { print $2 }' "$RUN/rounds/r$r/rnic-before.txt" 2>/dev/null)
		b=$(awk '$1 == "rxe0/ports/1/hw_counters/sent_pkts" { print $2 }' "$RUN/rounds/r$r/rnic-at-cut.txt" 2>/dev/null)
		echo "  round $r: rxe0 sent ${a:-?} -> ${b:-?} packets; $(grep "^- round $r: " "$RUN/report.md")"
		if [ -z "$a" ] || [ -z "$b" ] || [ "$b" -le "$a" ] || ! grep -q "^- round $r: \(none grew\|\`\)" "$RUN/report.md"; then
			echo "  round $r: no counters of rxe0 from before the writes and the cut, or none in the report" \
				>>"$E2E_DIR/why"
			st=1
		fi
	done
	e2e_result "$NAME-run1-client-rnic-counted-each-round" "$st"
}

# run 1's canary control: the warm reset kept the token, and the report says so
control_kept() {
	local st=0
	if ! grep -q "a reset kept the token in $SOFTROCE_VM_DRAM_CANARY" "$RUN/canary-control/kept" 2>/dev/null ||
		! grep -q "Before the rounds a reset (.--canary-reset.) kept a token there" "$RUN/report.md"; then
		echo "  the canary's control: no record that the warm reset kept its token" >>"$E2E_DIR/why"
		st=1
	fi
	e2e_result "$NAME-run1-canary-kept-across-a-warm-reset" "$st"
}

# the report of OUT (run RUN) says the canary showed the power gone in N of N rounds
power_shown() { # OUT N RUN
	local st=0
	grep -q "^Loss of power: shown in $2 of $2 judged round(s) by the DRAM canary" "$1/report.md" ||
		{ echo "  report.md: the loss of power not shown in $2 of $2 rounds" >>"$E2E_DIR/why"; st=1; }
	e2e_result "$NAME-$3-power-loss-shown-by-dram-canary" "$st"
}

# run 2 (after the controls, which need run 1's last round on the device): the memory
# reverts, to the state from before the round (GPSPM) and to an earlier run's (APM)
reverted_round() {
	local out=$RUN-revert m a n st i=0 i0
	E2E_DIR=$E2E_TMP/$NAME
	runner "$out" revert 1 --dram-canary "$SOFTROCE_VM_PMEM_CANARY"
	st=0
	judged "$out" 1 || st=1
	for m in "${METHODS[@]}"; do
		a=$(figure "$out" 1 "$m" 6)
		i=$((i + 1))
		n=$(awk -F', ' '$3 == 1' "$out/rounds/r1/write_iops.$i.log" | wc -l)
		echo "  $m, reverted (acknowledged, read back, lost, unread, issued): $(figures "$out" 1 "$m"), $n completed by the log"
		if [ "${a:-0}" -le 0 ] || [ "$a" -ne "$n" ] || [ "$(figure "$out" 1 "$m" 8)" != "$a" ]; then
			echo "  $m: every write the log saw complete must be acknowledged, and LOST" >>"$E2E_DIR/why"
			st=1
		fi
		# the cut came while it wrote: its last writes issued, failed, never acknowledged
		i0=$(($(figure "$out" 1 "$m" 10) - a))
		if [ "$i0" -lt 1 ] || [ "$i0" -gt "$DEPTH" ]; then
			echo "  $m: $i0 writes issued and not acknowledged: the cut must land while 1 to $DEPTH are" >>"$E2E_DIR/why"
			st=1
		fi
	done
	e2e_result "$NAME-reverted-memory-every-write-lost" "$st"
	power_shown "$out" 1 run2
	[ "$st" -eq 0 ] || runner_logs "$out"
}

# A run of one round that must not be judged: exit 3, WHY in the round's error, the
# verdicts NOT JUDGED and never SURVIVED
not_judged_run() { # OUT WHY TEST RUNNER_OPTIONS...
	local out=$1 why=$2 test=$3 st=0
	shift 3
	E2E_DIR=$E2E_TMP/$NAME
	runner "$out" keep 1 "$@"
	[ "$RC" -eq 3 ] || { echo "  the runner exited with $RC, not 3 (not judged)" >>"$E2E_DIR/why"; st=1; }
	grep -q "$why" "$out/rounds/r1/error" 2>/dev/null ||
		{ echo "  no '$why' in the round's error" >>"$E2E_DIR/why"; st=1; }
	if ! grep -q '^| apm | \*\*NOT JUDGED' "$out/report.md" || grep -q '\*\*SURVIVED' "$out/report.md"; then
		echo "  report.md: a verdict other than NOT JUDGED" >>"$E2E_DIR/why"
		st=1
	fi
	e2e_result "$NAME-$test" "$st"
	[ "$st" -eq 0 ] || runner_logs "$out"
}

# run 3: a power cut that does nothing: the server's boot id is the same after it
cut_that_did_nothing() {
	not_judged_run "$RUN-nocut" "did not boot again" cut-that-rebooted-nothing-not-judged \
		--power-cut true --wait-up true --write-time 1
}

# run 4: a warm reset by a name no word of which reads as one: node1 reboots (a new
# boot id), its RAM kept: the canary's token is still there, not judged
warm_reset_not_judged() {
	not_judged_run "$RUN-warm" "memory kept the token written to $SOFTROCE_VM_PMEM_CANARY before the cut" \
		warm-reset-kept-the-canary-not-judged --power-cut "$POWER reset $SERVER_NODE" --write-time 1 \
		--dram-canary "$SOFTROCE_VM_PMEM_CANARY"
}

# run 5: a firmware that clears memory at boot, played by a warm reset of node1 and
# other bytes in its canary once it is up: the canary's control fails, no round runs
clearing_firmware_refused() {
	local out=$RUN-clearing st=0 path=${SOFTROCE_VM_DRAM_CANARY%@*} offset=${SOFTROCE_VM_DRAM_CANARY#*@}
	E2E_DIR=$E2E_TMP/$NAME
	runner "$out" keep 1 --canary-reset "$POWER reset $SERVER_NODE && $POWER wait-up $SERVER_NODE 180 &&
		ssh -n $SERVER_NODE $PWD/scripts/matrix/dram_canary.sh write $path $((offset / 4096)) cleared-at-boot"
	[ "$RC" -eq 3 ] || { echo "  the runner exited with $RC, not 3 (not judged)" >>"$E2E_DIR/why"; st=1; }
	[ ! -e "$out/rounds/r1" ] || { echo "  a round ran after the canary's control failed" >>"$E2E_DIR/why"; st=1; }
	if ! grep -q "lost its token in a reset" "$out/canary-control/error" 2>/dev/null ||
		! grep -q "The DRAM canary's control (.--canary-reset.) failed" "$out/report.md"; then
		echo "  no report of the canary's token lost in the reset" >>"$E2E_DIR/why"
		st=1
	fi
	! grep -q '\*\*SURVIVED' "$out/report.md" || { echo "  report.md says SURVIVED" >>"$E2E_DIR/why"; st=1; }
	e2e_result "$NAME-firmware-clearing-the-canary-no-round" "$st"
	[ "$st" -eq 0 ] || runner_logs "$out"
}

# node1's fsdax namespace on the NVDIMM (/dev/pmemN, not a memmap= region's) keeps its
# bytes through a power cut: refused as a canary, naming why
canary_on_pmem_refused() {
	local dev out st=0
	E2E_DIR=$E2E_TMP/$NAME
	dev=$(timeout 30 ssh -n "$SERVER_NODE" 'ls /dev/pmem* 2>/dev/null' | grep -vx "$SOFTROCE_VM_PMEM_CANARY" | head -n 1)
	if [ -z "$dev" ]; then
		echo "  node1 has no /dev/pmemN" >>"$E2E_DIR/why"
		st=1
	elif out=$(timeout 30 ssh -n "$SERVER_NODE" "$PWD/scripts/matrix/dram_canary.sh" check "$dev" 0 2>&1); then
		echo "  $dev (the NVDIMM's) accepted as a canary" >>"$E2E_DIR/why"
		st=1
	elif ! grep -q "$dev is no legacy PMem device of a memmap=SIZE!ADDR region" <<<"$out"; then
		echo "  $dev refused without naming why: $out" >>"$E2E_DIR/why"
		st=1
	fi
	echo "  $dev as a canary: ${out:-?}"
	e2e_result "$NAME-canary-on-nvdimm-pmem-refused" "$st"
}

# what went wrong: the runner's output, each round's reason and the ends' last words
runner_logs() { # [OUT]
	local f out=${1:-$RUN}
	cat "$E2E_DIR/why" 2>/dev/null
	for f in "$E2E_DIR/runner.log" "$out"/rounds/*/error "$out"/rounds/*/*.log; do
		[ -s "$f" ] || continue
		echo "  --- ${f#"$out"/}:"
		tail -n 15 "$f" | sed 's/^/  | /'
	done
}

# the offsets of the acknowledged writes of METHOD in round 2 (its first N, in the
# order fio issued them, as its read-back read them again: TIME FILE ACTION OFFSET LENGTH)
issued_offsets() { # METHOD N
	awk -v f="$1.0.0" -v n="$2" '$2 == f && $3 == "read" && got < n { print $4; got++ }' \
		"$RUN/rounds/r2/readback.iolog"
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
	local st=0 rc=0 m w bad=0 off seed pattern
	seed=$(cut -f6 "$RUN/rounds/r2/shape.tsv")
	pattern=$(cut -f7 "$RUN/rounds/r2/shape.tsv")
	e2e_setup "$NAME-nostate" env SERVER_IP="$SERVER_ADDR" PORT=7700 SERVER_MEM="$DURABILITY_DEVDAX" SERVER_SIZE=16m \
		SERVER_BUSY_WAIT=0 fio jobs/durability-server.fio -- true
	e2e_run_server >"$E2E_DIR/server.log" 2>&1 &
	SPID=$!
	if e2e_wait_line "$E2E_DIR/server.log" 'librpma_gpspm: job [0-9]+: listening on' "$E2E_READY_TIMEOUT" "$SPID"; then
		timeout "$E2E_STEP_TIMEOUT" env SERVER_IP="$SERVER_ADDR" PORT=7700 SERVER_SIZE=16m BS=4k IODEPTH=8 \
			BATCH=4 CONNECT_TIMEOUT=5000 RANDSEED="$seed" VERIFY_PATTERN="$pattern" fio jobs/durability.fio \
			--aux-path="$E2E_DIR" --verify_only=1 >"$E2E_DIR/client.log" 2>&1 || rc=$?
	else
		echo "  the servers did not listen" >>"$E2E_DIR/why"
		st=1
	fi
	wait "$SPID" 2>/dev/null
	for m in apm gpspm; do
		w=$(awk -F, -v m="$m" '$1 == m && $2 == 2 { print $6 }' "$RUN/results.csv")
		for off in $(reported_bad "$E2E_DIR/client.log" "$m"); do
			bad=$((bad + 1))
			if issued_offsets "$m" $((w - DEPTH)) | grep -qx "$off"; then
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

if [ -z "${SOFTROCE_VM_DRAM_CANARY:-}" ] || [ -z "${SOFTROCE_VM_PMEM_CANARY:-}" ]; then
	echo "FAIL $NAME: no SOFTROCE_VM_DRAM_CANARY or SOFTROCE_VM_PMEM_CANARY: run me on node0 of" \
		"scripts/softroce-vm run --nodes 2 --pmem"
	exit 1
fi
if durability_rounds && controls; then
	reverted_round
	cut_that_did_nothing
	# (make test-cxl's run has the same rounds, not this one: the reset is the VM's)
	if [ "$NAME" = durability ]; then
		warm_reset_not_judged
		clearing_firmware_refused
	fi
	canary_on_pmem_refused
fi
e2e_summary
